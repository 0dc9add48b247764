// Major/minor unit conversions of the wallet page. Minor-unit exponents are those of the ISO 4217 list
// (https://www.six-group.com/en/products-services/financial-information/data-standards.html): USD 2, JPY 0, KWD 3.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { currencyDigits, isLowBalance, minorToMajor, parseMajorAmount } from '../../../src-shared/money';

describe('currencyDigits', () => {
  it('follows ISO 4217 minor units', () => {
    expect(currencyDigits('USD')).toBe(2);
    expect(currencyDigits('NGN')).toBe(2);
    expect(currencyDigits('JPY')).toBe(0);
    expect(currencyDigits('KWD')).toBe(3);
    expect(currencyDigits('BHD')).toBe(3);
  });

  it('is ISO 4217\'s exponent where Intl shows fewer digits (found by the money review: IDR 1000 was stored as 1000 minor units, Rp 10.00 to a client)', () => {
    for (const [code, digits] of [['IDR', 2], ['PKR', 2], ['COP', 2], ['HUF', 2], ['IQD', 3], ['XCG', 2]] as const) expect(currencyDigits(code), code).toBe(digits);
    expect(parseMajorAmount('1000.50', 'IDR')).toEqual({ ok: true, minor: 100050 });
    expect(parseMajorAmount('1', 'IQD')).toEqual({ ok: true, minor: 1000 });
    expect(minorToMajor(100050, 'IDR')).toBe('1000.50');
    // A code outside the list (an older wallet's) keeps Intl's digits.
    expect(currencyDigits('HRK')).toBe(2);
  });
});

describe('parseMajorAmount', () => {
  it('converts without float error', () => {
    expect(parseMajorAmount('19.99', 'USD')).toEqual({ ok: true, minor: 1999 });
    expect(parseMajorAmount('0.29', 'USD')).toEqual({ ok: true, minor: 29 });
    expect(parseMajorAmount('25', 'USD')).toEqual({ ok: true, minor: 2500 });
    expect(parseMajorAmount('25.5', 'USD')).toEqual({ ok: true, minor: 2550 });
    expect(parseMajorAmount(' 1,000.00 ', 'USD')).toEqual({ ok: true, minor: 100000 });
    expect(parseMajorAmount('1500', 'JPY')).toEqual({ ok: true, minor: 1500 });
    expect(parseMajorAmount('1.234', 'KWD')).toEqual({ ok: true, minor: 1234 });
  });
  it('refuses what it would have to guess', () => {
    for (const bad of ['', 'abc', '-5', '1,5', '1.2.3', '12,34.00', '1e3', '.5x']) expect(parseMajorAmount(bad, 'USD').ok).toBe(false);
    expect(parseMajorAmount('1.999', 'USD').ok).toBe(false);
    expect(parseMajorAmount('10.5', 'JPY').ok).toBe(false);
    expect(parseMajorAmount('99999999999999999999', 'USD').ok).toBe(false);
  });
  it('round-trips with minorToMajor', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.constantFrom('USD', 'JPY', 'KWD'), (minor, cur) => {
        const r = parseMajorAmount(minorToMajor(minor, cur), cur);
        expect(r).toEqual({ ok: true, minor });
      }),
    );
  });
});

describe('minorToMajor', () => {
  it('formats signed minor units', () => {
    expect(minorToMajor(-550, 'USD')).toBe('-5.50');
    expect(minorToMajor(5, 'USD')).toBe('0.05');
    expect(minorToMajor(0, 'USD')).toBe('0.00');
    expect(minorToMajor(1500, 'JPY')).toBe('1500');
    expect(minorToMajor(1, 'KWD')).toBe('0.001');
  });
});

describe('isLowBalance', () => {
  it('warns below 10 major units', () => {
    expect(isLowBalance(999, 'USD')).toBe(true);
    expect(isLowBalance(1000, 'USD')).toBe(false);
    expect(isLowBalance(9, 'JPY')).toBe(true);
    expect(isLowBalance(10, 'JPY')).toBe(false);
  });
});
