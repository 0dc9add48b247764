import { describe, it, expect } from 'vitest';
import { validateSortCode } from '../../../src-shared/validators/sort-code';
import { validateUkAccountNumber } from '../../../src-shared/validators/uk-account';
import { abaChecksumValid, federalReserveDistrict, validateAba } from '../../../src-shared/validators/aba';
import { validateBsb } from '../../../src-shared/validators/bsb';
import { validateIfsc } from '../../../src-shared/validators/ifsc';
import { parseBic, validateBic } from '../../../src-shared/validators/bic';

describe('UK sort code and account number', () => {
  // Sort code 60-16-13 and account 31926819 are the parts of the SWIFT registry example GB29NWBK60161331926819.
  it('accepts 6 digits with or without dashes', () => {
    expect(validateSortCode('60-16-13')).toEqual({ ok: true, value: '601613' });
    expect(validateSortCode('601613')).toEqual({ ok: true, value: '601613' });
    expect(validateSortCode('60 16 13')).toEqual({ ok: true, value: '601613' });
  });
  it('rejects other shapes', () => {
    for (const bad of ['60-1613', '6016134', '60-16-1', 'AB-CD-EF', '']) expect(validateSortCode(bad).ok).toBe(false);
  });
  it('requires exactly 8 account digits', () => {
    expect(validateUkAccountNumber('31926819')).toEqual({ ok: true, value: '31926819' });
    expect(validateUkAccountNumber('3192681').ok).toBe(false);
    expect(validateUkAccountNumber('319268190').ok).toBe(false);
    expect(validateUkAccountNumber('3192681A').ok).toBe(false);
  });
});

describe('ABA routing number', () => {
  // 111000025 is Wikipedia's worked example ("ABA routing transit number", Check digit section);
  // 011000015 is the Federal Reserve Bank of Boston and 021000021 JPMorgan Chase, both published in the
  // Federal Reserve E-Payments Routing Directory.
  it.each(['111000025', '011000015', '021000021'])('accepts %s', (n) => {
    expect(validateAba(n)).toEqual({ ok: true, value: n });
    expect(abaChecksumValid(n)).toBe(true);
  });
  it('rejects a wrong check digit', () => {
    expect(abaChecksumValid('111000024')).toBe(false);
    expect(validateAba('021000022').ok).toBe(false);
  });
  it('rejects prefixes outside 00-12, 21-32, 61-72, 80', () => {
    // 130000006 and 500000005 satisfy 3-7-1 but use unassigned prefixes.
    expect(abaChecksumValid('130000006')).toBe(true);
    expect(validateAba('130000006').ok).toBe(false);
    expect(abaChecksumValid('500000005')).toBe(true);
    expect(validateAba('500000005').ok).toBe(false);
  });
  it('rejects wrong lengths and letters', () => {
    expect(validateAba('11100002').ok).toBe(false);
    expect(validateAba('1110000250').ok).toBe(false);
    expect(validateAba('11100002X').ok).toBe(false);
  });
  it('derives the Federal Reserve district', () => {
    expect(federalReserveDistrict('011000015')).toBe(1);
    expect(federalReserveDistrict('121000358')).toBe(12);
    expect(federalReserveDistrict('211000000')).toBe(1);
    expect(federalReserveDistrict('322271627')).toBe(12);
    expect(federalReserveDistrict('611000000')).toBe(1);
    expect(federalReserveDistrict('000000000')).toBeNull();
    expect(federalReserveDistrict('800000000')).toBeNull();
  });
});

describe('BSB', () => {
  // 062-000 is a Commonwealth Bank BSB from the APCA BSB directory.
  it('accepts 6 digits with or without the dash', () => {
    expect(validateBsb('062-000')).toEqual({ ok: true, value: '062000' });
    expect(validateBsb('062000')).toEqual({ ok: true, value: '062000' });
  });
  it('rejects other shapes', () => {
    for (const bad of ['06200', '0620000', '06-2000', 'ABC-DEF']) expect(validateBsb(bad).ok).toBe(false);
  });
});

describe('IFSC', () => {
  // SBIN0000691 (State Bank of India, New Delhi main branch) and HDFC0000001 from the RBI IFSC list.
  it.each(['SBIN0000691', 'HDFC0000001', 'sbin0000691'])('accepts %s', (code) => {
    expect(validateIfsc(code)).toEqual({ ok: true, value: code.toUpperCase() });
  });
  it('requires the fifth character to be 0 and 11 characters in all', () => {
    expect(validateIfsc('SBIN1000691').ok).toBe(false);
    expect(validateIfsc('SBIN000069').ok).toBe(false);
    expect(validateIfsc('SB1N0000691').ok).toBe(false);
  });
});

describe('BIC', () => {
  // Examples from Wikipedia "ISO 9362": DEUTDEFF (Deutsche Bank), DEUTDEFF500, NEDSZAJJXXX, UNCRITMM.
  it('parses an 8-character BIC as the primary office', () => {
    expect(parseBic('DEUTDEFF')).toEqual({
      ok: true,
      parts: {
        institutionCode: 'DEUT',
        countryCode: 'DE',
        locationCode: 'FF',
        branchCode: 'XXX',
        isPrimaryOffice: true,
        isTestBic: false,
      },
    });
  });
  it('parses branch codes', () => {
    const r = parseBic('DEUTDEFF500');
    expect(r.ok && r.parts.branchCode).toBe('500');
    expect(r.ok && r.parts.isPrimaryOffice).toBe(false);
    const z = parseBic('NEDSZAJJXXX');
    expect(z.ok && z.parts.isPrimaryOffice).toBe(true);
    expect(z.ok && z.parts.countryCode).toBe('ZA');
  });
  it('refuses a branch code that starts with X other than XXX (ISO 9362 reserves X for the primary office)', () => {
    for (const bic of ['DEUTDEFFX12', 'deutdeffxab', 'BARCGB22XYZ', 'DEUTDEFFXXA']) {
      const r = parseBic(bic);
      expect(r.ok, bic).toBe(false);
      if (!r.ok) expect(r.reasons).toEqual([expect.stringMatching(/may start with X only as XXX/)]);
    }
    expect(parseBic('DEUTDEFFXXX').ok).toBe(true);
    expect(parseBic('DEUTDEFF1X2').ok).toBe(true);
  });
  it('flags test BICs (second location character 0)', () => {
    const r = parseBic('DEUTDEF0');
    expect(r.ok && r.parts.isTestBic).toBe(true);
  });
  it('rejects an unknown country code and bad lengths with reasons', () => {
    const r = parseBic('DEUTQQFF');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reasons.join(' ')).toMatch(/QQ/);
    expect(parseBic('DEUTDEF').ok).toBe(false);
    expect(parseBic('DEUTDEFF50').ok).toBe(false);
    expect(parseBic('D3UTDEFF').ok).toBe(false);
    expect(parseBic('DEUTDEF!').ok).toBe(false);
  });
  it('can require the BIC to be in the account country', () => {
    expect(validateBic('UNCRITMM', 'IT').ok).toBe(true);
    expect(validateBic('UNCRITMM', 'DE').ok).toBe(false);
  });
});
