import { describe, it, expect } from 'vitest';
import { usccCheckChar, validateUscc } from '../../../src-shared/validators/uscc';
import { luhnCheckDigit, luhnValid, validateUnionPay } from '../../../src-shared/validators/luhn';
import { nubanCheckDigit, nubanCheckDigitValid, validateNuban } from '../../../src-shared/validators/nuban';

describe('Unified Social Credit Code (China)', () => {
  // python-stdnum stdnum/cn/uscc.py: 91110000600037341L valid.
  it('accepts 91110000600037341L', () => {
    expect(validateUscc('91110000600037341L')).toEqual({ ok: true, value: '91110000600037341L' });
    expect(validateUscc('9 1 110000 600037341l').ok).toBe(true);
    expect(usccCheckChar('91110000600037341')).toBe('L');
  });
  it('rejects a wrong check character, excluded letters and wrong lengths', () => {
    expect(validateUscc('91110000600037341M').ok).toBe(false);
    expect(validateUscc('91110000600037341O').ok).toBe(false);
    expect(validateUscc('9111000060003734').ok).toBe(false);
    expect(validateUscc('911A0000600037341L').ok).toBe(false);
  });
});

describe('Luhn and UnionPay', () => {
  // 79927398713 is the worked example of Wikipedia "Luhn algorithm".
  it('validates the Wikipedia example', () => {
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
    expect(luhnCheckDigit('7992739871')).toBe(3);
  });
  // Stripe's documented UnionPay test cards (docs.stripe.com/testing): 6200000000000005 (16 digits),
  // 6205500000000000004 (19 digits).
  it.each(['6200000000000005', '6205500000000000004', '6200 0000 0000 0005'])('accepts UnionPay %s', (n) => {
    expect(validateUnionPay(n).ok).toBe(true);
  });
  it('rejects bad UnionPay numbers', () => {
    expect(validateUnionPay('6200000000000006').ok).toBe(false); // Luhn
    expect(validateUnionPay('4242424242424242').ok).toBe(false); // Visa prefix
    expect(validateUnionPay('620000000000004').ok).toBe(false); // 15 digits
  });
});

describe('NUBAN (Nigeria)', () => {
  // CBN "Proposals on NUBAN" (2010) worked example: bank 011, serial 000001457 → check digit 9.
  it('computes the CBN worked example', () => {
    expect(nubanCheckDigit('011', '000001457')).toBe(9);
    expect(nubanCheckDigitValid('011', '0000014579')).toBe(true);
    expect(nubanCheckDigitValid('011', '0000014578')).toBe(false);
    expect(nubanCheckDigitValid('058', '0000014579')).toBe(false);
  });
  it('treats a 3-digit code as the 6-digit 000-padded code of the 2020 revision', () => {
    expect(nubanCheckDigit('000011', '000001457')).toBe(9);
    expect(nubanCheckDigit('01', '000001457')).toBeNull();
  });
  it('checks only the 10-digit shape without a bank code', () => {
    expect(validateNuban('0000014578').ok).toBe(true);
    expect(validateNuban('000001457').ok).toBe(false);
    expect(validateNuban('00000145790').ok).toBe(false);
  });
});
