// Colombian identifiers: NIT (tax number) with the DIAN mod-11 check digit, and the CC (cédula) number.
import { type Check, digitAt, fail, pass } from './result';

// DIAN prime weights, applied from the rightmost digit of the NIT body leftwards.
const WEIGHTS = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71] as const;

export function nitCheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    sum += digitAt(body, body.length - 1 - i) * (WEIGHTS[i] ?? 0);
  }
  const r = sum % 11;
  return r < 2 ? r : 11 - r;
}

/** NIT written with its check digit, with or without the dash: 800.197.268-4 or 8001972684. */
export function validateNit(value: string): Check {
  const v = value.trim().replace(/[\s.]/g, '');
  const m = /^(\d{5,15})-?(\d)$/.exec(v);
  if (m === null) return fail('A NIT is 6 to 16 digits including its check digit, for example 800.197.268-4.');
  const body = m[1] ?? '';
  const check = Number(m[2]);
  if (nitCheckDigit(body) !== check) return fail('The NIT check digit does not match.');
  return pass(`${body}-${check}`);
}

/** Cédula de ciudadanía: 6 to 10 digits with no check digit, so only the shape can be checked. */
export function validateColombianCc(value: string): Check {
  const v = value.trim().replace(/[\s.]/g, '');
  if (!/^\d{6,10}$/.test(v)) return fail('A Colombian cédula (CC) has 6 to 10 digits.');
  return pass(v);
}
