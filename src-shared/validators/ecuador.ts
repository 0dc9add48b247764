// Ecuadorian cédula (10 digits, mod-10) and RUC (13 digits: natural person, public or private entity).
import { type Check, digitAt, fail, pass } from './result';

function provinceValid(code: number): boolean {
  // 01-24 are provinces; 30 is used for Ecuadorians registered abroad.
  return (code >= 1 && code <= 24) || code === 30;
}

function cedulaChecksumValid(v: string): boolean {
  let sum = 0;
  for (let i = 0; i < 9; i++) {
    let p = digitAt(v, i) * (i % 2 === 0 ? 2 : 1);
    if (p > 9) p -= 9;
    sum += p;
  }
  return (10 - (sum % 10)) % 10 === digitAt(v, 9);
}

export function validateEcuadorCedula(value: string): Check {
  const v = value.trim().replace(/[\s-]/g, '');
  if (!/^\d{10}$/.test(v)) return fail('An Ecuadorian cédula has exactly 10 digits.');
  if (!provinceValid(Number(v.slice(0, 2)))) return fail('The first two digits of a cédula must be a province code (01-24 or 30).');
  if (digitAt(v, 2) >= 6) return fail('The third digit of a cédula must be 0 to 5.');
  if (!cedulaChecksumValid(v)) return fail('The cédula check digit does not match.');
  return pass(v);
}

function mod11Zero(v: string, weights: readonly number[]): boolean {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += digitAt(v, i) * (weights[i] ?? 0);
  return sum % 11 === 0;
}

export function validateEcuadorRuc(value: string): Check {
  const v = value.trim().replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(v)) return fail('An Ecuadorian RUC has exactly 13 digits.');
  if (!provinceValid(Number(v.slice(0, 2)))) return fail('The first two digits of a RUC must be a province code (01-24 or 30).');
  const third = digitAt(v, 2);
  if (third < 6) {
    // Natural person: cédula plus a non-zero establishment number.
    if (v.endsWith('000')) return fail('The establishment number (last 3 digits) of a RUC cannot be 000.');
    if (!cedulaChecksumValid(v)) return fail('The RUC check digit does not match.');
  } else if (third === 6) {
    if (v.endsWith('0000')) return fail('The establishment number (last 4 digits) of a public-sector RUC cannot be 0000.');
    if (!mod11Zero(v, [3, 2, 7, 6, 5, 4, 3, 2, 1])) return fail('The RUC check digit does not match.');
  } else if (third === 9) {
    if (v.endsWith('000')) return fail('The establishment number (last 3 digits) of a RUC cannot be 000.');
    if (!mod11Zero(v, [4, 3, 2, 7, 6, 5, 4, 3, 2, 1])) return fail('The RUC check digit does not match.');
  } else {
    return fail('The third digit of a RUC must be 0-5, 6 or 9.');
  }
  return pass(v);
}
