// Argentine CBU: 22 digits in two blocks (bank+branch+check, account+check), each with a weighted check digit (BCRA).
import { type Check, digitAt, fail, pass, exactDigitsProblem } from './result';

// Weights applied from the rightmost digit leftwards: 3, 1, 7, 9, 3, 1, 7, 9, ...
const WEIGHTS = [3, 1, 7, 9] as const;

export function cbuCheckDigit(block: string): number {
  let sum = 0;
  for (let i = 0; i < block.length; i++) {
    sum += digitAt(block, block.length - 1 - i) * (WEIGHTS[i % 4] ?? 0);
  }
  return (10 - (sum % 10)) % 10;
}

export function validateCbu(value: string): Check {
  const v = value.trim().replace(/[\s-]/g, '');
  const problem = exactDigitsProblem(v, 22, 'A CBU');
  if (problem) return fail(problem);
  if (cbuCheckDigit(v.slice(0, 7)) !== digitAt(v, 7)) {
    return fail('The check digit of the CBU bank/branch block does not match.');
  }
  if (cbuCheckDigit(v.slice(8, 21)) !== digitAt(v, 21)) {
    return fail('The check digit of the CBU account block does not match.');
  }
  return pass(v);
}
