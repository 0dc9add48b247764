// China's Unified Social Credit Code (统一社会信用代码, GB 32100-2015): 18 characters, mod-31 check character.
import { type Check, fail, pass } from './result';

// The standard's 31-symbol alphabet leaves out I, O, S, V and Z to avoid confusion with digits.
const ALPHABET = '0123456789ABCDEFGHJKLMNPQRTUWXY';
const WEIGHTS = [1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28] as const;

export function usccCheckChar(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += ALPHABET.indexOf(first17[i] ?? '') * (WEIGHTS[i] ?? 0);
  return ALPHABET[(31 - (sum % 31)) % 31] ?? '';
}

export function validateUscc(value: string): Check {
  const v = value.trim().replace(/[\s-]/g, '').toUpperCase();
  if (v.length !== 18) return fail('A Unified Social Credit Code has exactly 18 characters.');
  if (![...v].every((c) => ALPHABET.includes(c))) {
    return fail('A Unified Social Credit Code uses digits and capital letters except I, O, S, V and Z.');
  }
  if (!/^\d{6}$/.test(v.slice(2, 8))) return fail('Characters 3-8 of a Unified Social Credit Code are a region code of 6 digits.');
  if (usccCheckChar(v.slice(0, 17)) !== v[17]) return fail('The Unified Social Credit Code check character does not match.');
  return pass(v);
}
