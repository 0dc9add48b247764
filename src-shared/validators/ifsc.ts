// Indian IFSC: 4-letter bank code, a literal 0, then a 6-character branch code (11 characters).
import { type Check, fail, pass } from './result';

export function validateIfsc(value: string): Check {
  const v = value.trim().toUpperCase();
  if (v.length !== 11) return fail('An IFSC has exactly 11 characters, for example SBIN0000691.');
  if (!/^[A-Z]{4}0[A-Z0-9]{6}$/.test(v)) {
    return fail('An IFSC is 4 letters, the digit 0, then 6 letters or digits.');
  }
  return pass(v);
}
