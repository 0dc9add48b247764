// Brazilian CPF (individuals, 11 digits) and CNPJ (companies, 14 characters, alphanumeric from July 2026)
// with their two mod-11 check digits (Receita Federal).
import { type Check, digitAt, fail, pass } from './result';

export function cpfCheckDigits(first9: string): string {
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < 9; i++) {
    const d = digitAt(first9, i);
    s1 += d * (10 - i);
    s2 += d * (11 - i);
  }
  const d1 = ((s1 * 10) % 11) % 10;
  const d2 = (((s2 + d1 * 2) * 10) % 11) % 10;
  return `${d1}${d2}`;
}

export function validateCpf(value: string): Check {
  const v = value.trim().replace(/[\s.-]/g, '');
  if (!/^\d{11}$/.test(v)) return fail('A CPF has exactly 11 digits.');
  // Repeated digits pass the arithmetic but the Receita Federal never issues them.
  if (/^(\d)\1{10}$/.test(v)) return fail('A CPF cannot consist of one repeated digit.');
  if (cpfCheckDigits(v.slice(0, 9)) !== v.slice(9)) return fail('The CPF check digits do not match.');
  return pass(v);
}

// Nota Técnica COCAD/SUARA/RFB 49/2024: each character counts as its ASCII code minus 48,
// so digits keep their value and A=17 ... Z=42; the two check digits stay numeric.
function cnpjValue(ch: string): number {
  return ch.charCodeAt(0) - 48;
}

function cnpjDigit(body: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += cnpjValue(body[i] ?? '0') * (weights[i] ?? 0);
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

const W1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const W2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] as const;

export function cnpjCheckDigits(first12: string): string {
  const d1 = cnpjDigit(first12, W1);
  const d2 = cnpjDigit(first12 + String(d1), W2);
  return `${d1}${d2}`;
}

export function validateCnpj(value: string): Check {
  const v = value.trim().replace(/[\s.\-/]/g, '').toUpperCase();
  if (v.length !== 14) return fail('A CNPJ has exactly 14 characters.');
  if (!/^[A-Z0-9]{12}\d{2}$/.test(v)) {
    return fail('A CNPJ is 12 letters or digits followed by 2 check digits.');
  }
  if (/^0{12}/.test(v) || /^(\d)\1{13}$/.test(v)) return fail('This CNPJ is not one the Receita Federal issues.');
  if (cnpjCheckDigits(v.slice(0, 12)) !== v.slice(12)) return fail('The CNPJ check digits do not match.');
  return pass(v);
}
