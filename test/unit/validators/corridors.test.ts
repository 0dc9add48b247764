import { describe, it, expect } from 'vitest';
import {
  CORRIDORS,
  SUPPORTED_ACCOUNT_COUNTRIES,
  accountFormatFailure,
  accountRequestIssues,
  getCorridor,
  type AccountRequestLike,
} from '../../../src-shared/corridors';

// Interface §2.3 rows plus ET (decisions §2).
const EXPECTED_COUNTRIES = [
  'NG', 'GB', 'CN',
  'AT', 'BE', 'BG', 'HR', 'CY', 'EE', 'FI', 'FR', 'DE', 'GR', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PT', 'SK', 'SI', 'ES',
  'AE', 'AU', 'US',
  'BR', 'MX', 'AR', 'PE',
  'UY', 'CL', 'CO', 'EC',
  'IN',
  'ID', 'VN', 'NP', 'PK', 'KR', 'BD', 'MY',
  'TH', 'PH',
  'CI', 'SN', 'CM', 'BF', 'ML', 'BJ', 'TG', 'TZ',
  'ET',
];

// NG is "allowed" in §2.3; decisions §2 adds the francophone markets, TZ and ET.
const ASYNC_ALLOWED = ['NG', 'ET', 'CI', 'SN', 'CM', 'BF', 'ML', 'BJ', 'TG', 'TZ'];

function sampleRequest(country: string): AccountRequestLike {
  const c = getCorridor(country);
  if (!c) throw new Error(`no corridor ${country}`);
  return { country, ...c.sample };
}

describe('corridor table', () => {
  it('has exactly the corridors of the interface plus ET, once each', () => {
    expect([...SUPPORTED_ACCOUNT_COUNTRIES].sort()).toEqual([...EXPECTED_COUNTRIES].sort());
    expect(new Set(SUPPORTED_ACCOUNT_COUNTRIES).size).toBe(CORRIDORS.length);
  });

  it('allows async exactly for NG, ET, the francophone markets and TZ', () => {
    expect(CORRIDORS.filter((c) => c.asyncAllowed).map((c) => c.country).sort()).toEqual([...ASYNC_ALLOWED].sort());
  });

  it('carries the currencies of §8 and no others', () => {
    expect(getCorridor('FR')?.currency).toBe('EUR');
    expect(getCorridor('AE')?.currency).toBe('AED');
    expect(getCorridor('AU')?.currency).toBe('AUD');
    expect(getCorridor('US')?.currency).toBe('USD');
    expect(CORRIDORS.filter((c) => c.currency !== null)).toHaveLength(24);
  });

  it('finds corridors case-insensitively', () => {
    expect(getCorridor('gb')?.country).toBe('GB');
    expect(getCorridor('XX')).toBeUndefined();
  });

  it.each(EXPECTED_COUNTRIES)('the %s sample passes both layers', (country) => {
    const req = sampleRequest(country);
    expect(accountRequestIssues(req)).toEqual([]);
    expect(accountFormatFailure(req)).toBeNull();
  });
});

describe('layer 1: accountRequestIssues', () => {
  it('reports an unknown country on the country field only', () => {
    const issues = accountRequestIssues({ country: 'ZZ', accountNumber: '123' });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.field).toBe('country');
  });

  it('requires accountName for GB', () => {
    const { accountName: _omit, ...req } = sampleRequest('GB');
    expect(accountRequestIssues(req).map((i) => i.field)).toEqual(['accountName']);
  });

  it("says why accountName is required: the name to match where it is matched, the upstream's rule in TH and PH", () => {
    const missing = (country: string) => {
      const { accountName: _omit, ...req } = sampleRequest(country);
      return accountRequestIssues(req).find((i) => i.field === 'accountName')?.message ?? '';
    };
    expect(missing('GB')).toContain('it is the name to match');
    for (const country of ['TH', 'PH']) {
      expect(missing(country), country).toContain('required');
      expect(missing(country), country).not.toContain('the name to match');
    }
  });

  it('requires the bank code where the corridor needs one', () => {
    const { bankCode: _omit, ...req } = sampleRequest('US');
    expect(accountRequestIssues(req).map((i) => i.field)).toEqual(['bankCode']);
    const { bankCode: _omit2, ...sepa } = sampleRequest('DE');
    expect(accountRequestIssues(sepa)).toEqual([]);
  });

  it('requires accountHolderType for CN, and identifier + BIC for CN BUSINESS', () => {
    const { accountHolderType: _omit, ...req } = sampleRequest('CN');
    expect(accountRequestIssues(req).map((i) => i.field)).toEqual(['accountHolderType']);
    const business: AccountRequestLike = { country: 'CN', accountNumber: '11001234567890', accountName: 'Acme Ltd', accountHolderType: 'BUSINESS' };
    expect(accountRequestIssues(business).map((i) => i.field).sort()).toEqual(['bankCode', 'identifiers']);
    const complete = {
      ...business,
      bankCode: 'BKCHCNBJ',
      identifiers: [{ type: 'BUSINESS_REGISTRATION', value: '91110000600037341L' }],
    };
    expect(accountRequestIssues(complete)).toEqual([]);
    expect(accountFormatFailure(complete)).toBeNull();
  });

  it('requires the national identifier for BR, CL, CO and EC', () => {
    for (const country of ['BR', 'CL', 'CO', 'EC']) {
      const req = { ...sampleRequest(country), identifiers: [] };
      expect(accountRequestIssues(req).map((i) => i.field)).toEqual(['identifiers']);
    }
    // An identifier of another type does not satisfy BR.
    const wrongType = { ...sampleRequest('BR'), identifiers: [{ type: 'RUT', value: '76086428-5' }] };
    expect(accountRequestIssues(wrongType).map((i) => i.field)).toEqual(['identifiers']);
  });

  it('rejects a currency that differs from the corridor currency', () => {
    expect(accountRequestIssues({ ...sampleRequest('DE'), currency: 'USD' }).map((i) => i.field)).toEqual(['currency']);
    expect(accountRequestIssues({ ...sampleRequest('DE'), currency: 'eur' })).toEqual([]);
    expect(accountRequestIssues({ ...sampleRequest('AU'), currency: 'AUD' })).toEqual([]);
  });

  it('reports async on a sync-only corridor on the mode field', () => {
    expect(accountRequestIssues({ ...sampleRequest('GB'), mode: 'async' }).map((i) => i.field)).toEqual(['mode']);
    expect(accountRequestIssues({ ...sampleRequest('NG'), mode: 'async' })).toEqual([]);
    expect(accountRequestIssues({ ...sampleRequest('ET'), mode: 'async' })).toEqual([]);
  });
});

describe('layer 2: accountFormatFailure', () => {
  it('gives INVALID_ACCOUNT_NUMBER for a bad IBAN check digit', () => {
    const f = accountFormatFailure({ ...sampleRequest('DE'), accountNumber: 'DE88370400440532013000' });
    expect(f?.code).toBe('INVALID_ACCOUNT_NUMBER');
    expect(f?.message).toMatch(/check digits/);
  });

  it('gives INVALID_ACCOUNT_NUMBER for an IBAN of another country', () => {
    const f = accountFormatFailure({ ...sampleRequest('DE'), accountNumber: 'FR1420041010050500013M02606' });
    expect(f?.code).toBe('INVALID_ACCOUNT_NUMBER');
  });

  it('gives INVALID_BANK_CODE for a bad sort code', () => {
    const f = accountFormatFailure({ ...sampleRequest('GB'), bankCode: '60-16' });
    expect(f?.code).toBe('INVALID_BANK_CODE');
  });

  it('gives INVALID_BANK_CODE for a bad ABA, IFSC, BSB and BIC', () => {
    expect(accountFormatFailure({ ...sampleRequest('US'), bankCode: '021000022' })?.code).toBe('INVALID_BANK_CODE');
    expect(accountFormatFailure({ ...sampleRequest('IN'), bankCode: 'SBIN1000691' })?.code).toBe('INVALID_BANK_CODE');
    expect(accountFormatFailure({ ...sampleRequest('AU'), bankCode: '06200' })?.code).toBe('INVALID_BANK_CODE');
    expect(accountFormatFailure({ ...sampleRequest('TH'), bankCode: 'BKKBXXBK' })?.code).toBe('INVALID_BANK_CODE');
    // A valid BIC of another country is not the bank of a Thai account.
    expect(accountFormatFailure({ ...sampleRequest('TH'), bankCode: 'DEUTDEFF' })?.code).toBe('INVALID_BANK_CODE');
  });

  it('accepts a BIC or a clearing code where either is allowed', () => {
    expect(accountFormatFailure({ ...sampleRequest('CL'), bankCode: 'BCHICLRM' })).toBeNull();
    expect(accountFormatFailure({ ...sampleRequest('CL'), bankCode: '001' })).toBeNull();
    expect(accountFormatFailure({ ...sampleRequest('CL'), bankCode: '1' })?.code).toBe('INVALID_BANK_CODE');
  });

  it('gives INVALID_ACCOUNT_NUMBER for NUBAN, CLABE, CBU, UnionPay and length failures', () => {
    expect(accountFormatFailure({ ...sampleRequest('NG'), accountNumber: '123456789' })?.code).toBe('INVALID_ACCOUNT_NUMBER');
    expect(accountFormatFailure({ ...sampleRequest('MX'), accountNumber: '002010077777777772' })?.code).toBe('INVALID_ACCOUNT_NUMBER');
    expect(accountFormatFailure({ ...sampleRequest('AR'), accountNumber: '2850590940090418135202' })?.code).toBe('INVALID_ACCOUNT_NUMBER');
    expect(accountFormatFailure({ ...sampleRequest('CN'), accountNumber: '6200000000000006' })?.code).toBe('INVALID_ACCOUNT_NUMBER');
    expect(accountFormatFailure({ ...sampleRequest('GB'), accountNumber: '3192681' })?.code).toBe('INVALID_ACCOUNT_NUMBER');
    expect(accountFormatFailure({ ...sampleRequest('US'), accountNumber: '123' })?.code).toBe('INVALID_ACCOUNT_NUMBER');
    expect(accountFormatFailure({ ...sampleRequest('IN'), accountNumber: '12345678' })?.code).toBe('INVALID_ACCOUNT_NUMBER');
    expect(accountFormatFailure({ ...sampleRequest('CI'), accountNumber: 'ABC$123' })?.code).toBe('INVALID_ACCOUNT_NUMBER');
  });

  it('gives VERIFICATION_FAILED naming the identifier when its checksum fails', () => {
    const cpf = accountFormatFailure({ ...sampleRequest('BR'), identifiers: [{ type: 'CPF', value: '390.533.447-06' }] });
    expect(cpf).toEqual({ code: 'VERIFICATION_FAILED', message: expect.stringContaining('CPF') });
    const rut = accountFormatFailure({ ...sampleRequest('CL'), identifiers: [{ type: 'RUT', value: '12531909-3' }] });
    expect(rut?.code).toBe('VERIFICATION_FAILED');
    expect(rut?.message).toContain('RUT');
    const nit = accountFormatFailure({ ...sampleRequest('CO'), identifiers: [{ type: 'NIT', value: '800.197.268-5' }] });
    expect(nit?.message).toContain('NIT');
    const ec = accountFormatFailure({ ...sampleRequest('EC'), identifiers: [{ type: 'CC', value: '1714307104' }] });
    expect(ec?.message).toContain('cédula');
    const uscc = accountFormatFailure({
      country: 'CN',
      accountNumber: '11001234567890',
      accountName: 'Acme Ltd',
      accountHolderType: 'BUSINESS',
      bankCode: 'BKCHCNBJ',
      identifiers: [{ type: 'BUSINESS_REGISTRATION', value: '91110000600037341M' }],
    });
    expect(uscc?.code).toBe('VERIFICATION_FAILED');
    expect(uscc?.message).toContain('Unified Social Credit Code');
  });
});
