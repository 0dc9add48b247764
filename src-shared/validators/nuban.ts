// Nigerian NUBAN: 10-digit account number whose last digit is a check digit over bank code + serial (CBN).
import { type Check, digitAt, fail, pass, exactDigitsProblem } from './result';

// CBN 2020 revision: the bank code is padded to 6 digits ("000" + 3-digit DMB code, "9" + 5-digit OFI code)
// and weighted with the seed 373373373373373; for 3-digit codes this equals the 2010 weights 3,7,3,3,7,3,...
const SEED = '373373373373373';

function paddedBankCode(bankCode: string): string | null {
  if (/^\d{3}$/.test(bankCode)) return `000${bankCode}`;
  if (/^\d{5}$/.test(bankCode)) return `9${bankCode}`;
  if (/^\d{6}$/.test(bankCode)) return bankCode;
  return null;
}

export function nubanCheckDigit(bankCode: string, serial9: string): number | null {
  const code = paddedBankCode(bankCode);
  if (code === null || !/^\d{9}$/.test(serial9)) return null;
  const all = code + serial9;
  let sum = 0;
  for (let i = 0; i < all.length; i++) sum += digitAt(all, i) * digitAt(SEED, i);
  return (10 - (sum % 10)) % 10;
}

/** True when the 10th digit of `account10` is the NUBAN check digit for that bank. */
export function nubanCheckDigitValid(bankCode: string, account10: string): boolean {
  if (!/^\d{10}$/.test(account10)) return false;
  const expected = nubanCheckDigit(bankCode, account10.slice(0, 9));
  return expected !== null && expected === digitAt(account10, 9);
}

/** Format only: corridors also accept bank codes outside the NUBAN scheme, so no check digit here. */
export function validateNuban(value: string): Check {
  const v = value.trim();
  const problem = exactDigitsProblem(v, 10, 'A Nigerian account number (NUBAN)');
  if (problem) return fail(problem);
  return pass(v);
}
