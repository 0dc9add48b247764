// Mexican CLABE: 18 digits (bank 3, city 3, account 11, check 1); check digit with weights 3,7,1 (Banxico).
import { type Check, digitAt, fail, pass, exactDigitsProblem } from './result';

const WEIGHTS = [3, 7, 1] as const;

export function clabeCheckDigit(first17: string): number {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (digitAt(first17, i) * (WEIGHTS[i % 3] ?? 0)) % 10;
  return (10 - (sum % 10)) % 10;
}

export function validateClabe(value: string): Check {
  const v = value.trim().replace(/[\s-]/g, '');
  const problem = exactDigitsProblem(v, 18, 'A CLABE');
  if (problem) return fail(problem);
  if (clabeCheckDigit(v.slice(0, 17)) !== digitAt(v, 17)) {
    return fail('The CLABE check digit does not match; the CLABE has a typing error.');
  }
  return pass(v);
}
