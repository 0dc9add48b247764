// UK sort code: six digits, usually written 12-34-56.
import { type Check, fail, pass } from './result';

export function validateSortCode(value: string): Check {
  const v = value.trim();
  if (!/^\d{2}([- ]?)\d{2}\1\d{2}$/.test(v)) {
    return fail('A UK sort code has 6 digits, for example 12-34-56.');
  }
  return pass(v.replace(/[- ]/g, ''));
}
