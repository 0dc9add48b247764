// UK account number: eight digits (shorter legacy numbers must be zero-padded by the sender).
import { type Check, fail, pass } from './result';

export function validateUkAccountNumber(value: string): Check {
  const v = value.trim().replace(/[\s-]/g, '');
  if (!/^\d{8}$/.test(v)) return fail('A UK account number has exactly 8 digits.');
  return pass(v);
}
