// Luhn (ISO/IEC 7812 mod 10) and UnionPay card numbers (16-19 digits, starting with 62).
import { type Check, digitAt, fail, pass } from './result';

function luhnSum(digits: string, doubleFirstFromRight: boolean): number {
  let sum = 0;
  let double = doubleFirstFromRight;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digitAt(digits, i);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum;
}

export function luhnValid(digits: string): boolean {
  if (!/^\d{2,}$/.test(digits)) return false;
  return luhnSum(digits, false) % 10 === 0;
}

/** The digit to append to `body` so that the result passes the Luhn check. */
export function luhnCheckDigit(body: string): number {
  return (10 - (luhnSum(body, true) % 10)) % 10;
}

export function validateUnionPay(value: string): Check {
  const v = value.trim().replace(/[\s-]/g, '');
  if (!/^\d+$/.test(v) || v.length < 16 || v.length > 19) {
    return fail('A UnionPay card number has 16 to 19 digits.');
  }
  if (!v.startsWith('62')) return fail('A UnionPay card number starts with 62.');
  if (!luhnValid(v)) return fail('The card number check digit does not match; the number has a typing error.');
  return pass(v);
}
