// Chilean RUT/RUN: a body of up to 8 digits plus a mod-11 check character (0-9 or K), written 12.345.678-5.
import { type Check, digitAt, fail, pass } from './result';

export function rutCheckChar(body: string): string {
  let sum = 0;
  let weight = 2;
  for (let i = body.length - 1; i >= 0; i--) {
    sum += digitAt(body, i) * weight;
    weight = weight === 7 ? 2 : weight + 1;
  }
  const r = 11 - (sum % 11);
  return r === 11 ? '0' : r === 10 ? 'K' : String(r);
}

export function validateRut(value: string): Check {
  const v = value.trim().replace(/[\s.]/g, '').toUpperCase();
  const m = /^(\d{1,8})-?([\dK])$/.exec(v);
  if (m === null) return fail('A RUT is up to 8 digits and a check character, for example 12.345.678-5.');
  const body = m[1] ?? '';
  const check = m[2] ?? '';
  if (rutCheckChar(body) !== check) return fail('The RUT check character does not match.');
  return pass(`${body}-${check}`);
}
