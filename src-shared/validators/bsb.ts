// Australian BSB (bank-state-branch): six digits, usually written 123-456.
import { type Check, fail, pass } from './result';

export function validateBsb(value: string): Check {
  const v = value.trim();
  if (!/^\d{3}[- ]?\d{3}$/.test(v)) return fail('An Australian BSB has 6 digits, for example 062-000.');
  return pass(v.replace(/[- ]/g, ''));
}
