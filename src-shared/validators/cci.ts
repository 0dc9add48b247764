// Peruvian CCI (Código de Cuenta Interbancario): 20 digits (bank 3, branch 3, account 12, check 2).
// The check-digit algorithm is not published by the ASBANC/CCE in a form we could verify against
// official vectors, so only the length and digits are checked; a wrong CCI is left to the bank.
import { type Check, fail, pass } from './result';

export function validateCci(value: string): Check {
  const v = value.trim().replace(/[\s-]/g, '');
  if (!/^\d{20}$/.test(v)) return fail('A CCI has exactly 20 digits.');
  return pass(v);
}
