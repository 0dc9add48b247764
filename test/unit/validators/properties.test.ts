import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { composeIBAN } from 'ibantools';
import { validateIban } from '../../../src-shared/validators/iban';
import { abaChecksumValid, validateAba } from '../../../src-shared/validators/aba';
import { luhnCheckDigit, luhnValid } from '../../../src-shared/validators/luhn';
import { clabeCheckDigit, validateClabe } from '../../../src-shared/validators/clabe';

const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((a) => a.join(''));

/** Replaces the digit at `index` with a different digit. */
function changeDigit(value: string, index: number, delta: number): string {
  const d = (Number(value[index]) + delta) % 10;
  return value.slice(0, index) + String(d) + value.slice(index + 1);
}

describe('check-digit properties', () => {
  it('IBAN: a composed DE IBAN is valid; any single changed digit makes it invalid', () => {
    fc.assert(
      fc.property(digits(18, 18), fc.integer({ min: 4, max: 21 }), fc.integer({ min: 1, max: 9 }), (bban, pos, delta) => {
        const iban = composeIBAN({ countryCode: 'DE', bban });
        expect(iban).toBeTruthy();
        if (!iban) return;
        expect(validateIban(iban, 'DE')).toEqual({ ok: true, iban });
        // mod-97 detects every single-digit substitution.
        expect(validateIban(changeDigit(iban, pos, delta)).ok).toBe(false);
      }),
    );
  });

  it('ABA: completing 8 digits with the 3-7-1 check digit is valid; changing one digit is not', () => {
    const weights = [3, 7, 1, 3, 7, 1, 3, 7];
    fc.assert(
      fc.property(fc.constantFrom('01', '05', '12', '21', '32', '61', '72'), digits(6, 6), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 9 }), (prefix, rest, pos, delta) => {
        const body = prefix + rest;
        const sum = [...body].reduce((s, c, i) => s + Number(c) * (weights[i] ?? 0), 0);
        const routing = body + String((10 - (sum % 10)) % 10);
        expect(validateAba(routing).ok).toBe(true);
        // Weights 3, 7 and 1 are coprime to 10, so every single-digit change breaks the sum.
        expect(abaChecksumValid(changeDigit(routing, pos, delta))).toBe(false);
      }),
    );
  });

  it('Luhn: appending the computed check digit is valid; changing one digit is not', () => {
    fc.assert(
      fc.property(digits(1, 25), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 9 }), (body, rawPos, delta) => {
        const full = body + String(luhnCheckDigit(body));
        expect(luhnValid(full)).toBe(true);
        expect(luhnValid(changeDigit(full, rawPos % full.length, delta))).toBe(false);
      }),
    );
  });

  it('CLABE: appending the computed check digit is valid; changing one digit is not', () => {
    fc.assert(
      fc.property(digits(17, 17), fc.integer({ min: 0, max: 17 }), fc.integer({ min: 1, max: 9 }), (body, pos, delta) => {
        const clabe = body + String(clabeCheckDigit(body));
        expect(validateClabe(clabe).ok).toBe(true);
        // Products are taken mod 10 first, so with weight 3/7/1 every single substitution changes the sum.
        expect(validateClabe(changeDigit(clabe, pos, delta)).ok).toBe(false);
      }),
    );
  });
});
