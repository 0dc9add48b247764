import { describe, it, expect } from 'vitest';
import { IDENTITY_TYPES, identityFormatFailure, identityRequestIssues } from '../../../src-shared/identity-rules';

describe('identity types', () => {
  it('maps each idType to its verificationType (decisions §3, §4)', () => {
    expect(Object.fromEntries(IDENTITY_TYPES.map((t) => [t.idType, [t.country, t.verificationType]]))).toEqual({
      national_id: ['KE', 'KE_NATIONAL_ID'],
      passport: ['KE', 'KE_PASSPORT'],
      drivers_license: ['KE', 'KE_DRIVERS_LICENSE'],
      ghana_card: ['GH', 'GH_CARD'],
    });
  });

  it.each(IDENTITY_TYPES.map((t) => t.idType))('the %s sample passes both layers', (idType) => {
    const t = IDENTITY_TYPES.find((x) => x.idType === idType);
    const req = { country: t?.country ?? '', idType, ...t?.sample } as Parameters<typeof identityRequestIssues>[0];
    expect(identityRequestIssues(req)).toEqual([]);
    expect(identityFormatFailure(req)).toBeNull();
  });
});

describe('identity layer 1', () => {
  it('rejects an unsupported country and a type from another country', () => {
    expect(identityRequestIssues({ country: 'NG', idType: 'national_id', idNumber: '1' }).map((i) => i.field)).toEqual(['country']);
    expect(identityRequestIssues({ country: 'GH', idType: 'passport', idNumber: 'AK123456' }).map((i) => i.field)).toEqual(['idType']);
    expect(identityRequestIssues({ country: 'KE', idType: 'ghana_card', idNumber: 'GHA-123456789-0' }).map((i) => i.field)).toEqual(['idType']);
    expect(identityRequestIssues({ country: 'KE', idType: 'voter_card', idNumber: '1' }).map((i) => i.field)).toEqual(['idType']);
  });

  it("requires both names for a driver's licence", () => {
    const issues = identityRequestIssues({ country: 'KE', idType: 'drivers_license', idNumber: 'DL1234567', validation: { firstName: 'Wanjiru' } });
    expect(issues.map((i) => i.field)).toEqual(['validation.lastName']);
    expect(identityRequestIssues({ country: 'KE', idType: 'drivers_license', idNumber: 'DL1' }).map((i) => i.field)).toEqual([
      'validation.firstName',
      'validation.lastName',
    ]);
    expect(identityRequestIssues({ country: 'KE', idType: 'national_id', idNumber: '12345678' })).toEqual([]);
  });
});

describe('identity layer 2', () => {
  const fails = (idType: string, idNumber: string) =>
    identityFormatFailure({ country: idType === 'ghana_card' ? 'GH' : 'KE', idType, idNumber })?.code;

  it('checks national ID: up to 9 digits', () => {
    expect(fails('national_id', '123456789')).toBeUndefined();
    expect(fails('national_id', '1234567890')).toBe('VERIFICATION_FAILED');
    expect(fails('national_id', '12345A')).toBe('VERIFICATION_FAILED');
  });

  it('checks passport: 6 to 12 alphanumerics', () => {
    expect(fails('passport', 'AK123456')).toBeUndefined();
    expect(fails('passport', 'AK123')).toBe('VERIFICATION_FAILED');
    expect(fails('passport', 'AK12345678901')).toBe('VERIFICATION_FAILED');
    expect(fails('passport', 'AK-12345')).toBe('VERIFICATION_FAILED');
  });

  it('checks Ghana Card: GHA- + 9 digits + - + 1 digit', () => {
    expect(fails('ghana_card', 'GHA-123456789-0')).toBeUndefined();
    expect(fails('ghana_card', 'gha-123456789-0')).toBeUndefined();
    expect(fails('ghana_card', 'GHA-12345678-0')).toBe('VERIFICATION_FAILED');
    expect(fails('ghana_card', 'GHA1234567890')).toBe('VERIFICATION_FAILED');
  });
});
