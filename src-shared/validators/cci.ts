// Peruvian CCI (Código de Cuenta Interbancario): 20 digits — bank 3, branch 3, account 12, check 2. Each check
// digit covers one group (bank+branch, then account) with weights 1, 2, 1, 2… from the left, the digits of each
// product summed, and (10 − sum mod 10) mod 10. This is the rule the banks' own account-to-CCI conversions
// apply (BCP and BBVA publish conversions that agree with it); docs/api-decisions.md records the choice.
import { type Check, fail, pass, exactDigitsProblem } from './result';

/** The check digit of one CCI group. */
export function cciCheckDigit(group: string): number {
  let sum = 0;
  for (let i = 0; i < group.length; i++) {
    const product = (group.charCodeAt(i) - 48) * (i % 2 === 0 ? 1 : 2);
    sum += product > 9 ? product - 9 : product;
  }
  return (10 - (sum % 10)) % 10;
}

export function validateCci(value: string): Check {
  const v = value.trim().replace(/[\s-]/g, '');
  const problem = exactDigitsProblem(v, 20, 'A CCI');
  if (problem) return fail(problem);
  const expected = `${cciCheckDigit(v.slice(0, 6))}${cciCheckDigit(v.slice(6, 18))}`;
  if (v.slice(18) !== expected) return fail('The CCI check digits do not match its bank, branch and account.');
  return pass(v);
}
