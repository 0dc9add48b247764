// UK account number: eight digits (shorter legacy numbers must be zero-padded by the sender).
import { type Check, fail, pass, exactDigitsProblem } from './result';

export function validateUkAccountNumber(value: string): Check {
  const v = value.trim().replace(/[\s-]/g, '');
  const problem = exactDigitsProblem(v, 8, 'A UK account number');
  if (problem) return fail(problem);
  return pass(v);
}
