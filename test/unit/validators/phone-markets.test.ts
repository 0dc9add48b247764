import { describe, it, expect } from 'vitest';
import { PHONE_MARKETS, getPhoneMarket, normalizePhone, phoneFormatFailure, phoneRequestIssues } from '../../../src-shared/phone-markets';

const MARKETS = ['NG', 'GH', 'KE', 'CI', 'SN', 'CM', 'BF', 'ML', 'BJ', 'TG', 'TZ'];

describe('phone markets', () => {
  it('lists the markets of §2.4, all async-capable', () => {
    expect(PHONE_MARKETS.map((m) => m.country).sort()).toEqual([...MARKETS].sort());
    expect(PHONE_MARKETS.every((m) => m.asyncAllowed)).toBe(true);
  });

  it('requires network codes except in NG and KE', () => {
    expect(PHONE_MARKETS.filter((m) => !m.networkCodeRequired).map((m) => m.country).sort()).toEqual(['KE', 'NG']);
    expect(getPhoneMarket('gh')?.networkCodes).toEqual(['MTN', 'Vodafone', 'AirtelTigo']);
    expect(getPhoneMarket('TZ')?.networkCodes).toEqual(['VODACOM', 'AIRTEL', 'YAS', 'HALOTEL', 'TTCL']);
  });

  // Samples are Google libphonenumber's example mobile numbers for each region.
  it.each(MARKETS)('the %s sample passes both layers', (country) => {
    const m = getPhoneMarket(country);
    const req = { country, ...m?.sample } as { country: string; phoneNumber: string; networkCode?: string };
    expect(phoneRequestIssues(req)).toEqual([]);
    expect(phoneFormatFailure(req)).toBeNull();
    expect(normalizePhone(req)).toMatch(/^\+\d{8,15}$/);
  });
});

describe('phone layers', () => {
  it('layer 1 reports an unknown country and a missing number', () => {
    expect(phoneRequestIssues({ country: 'GB', phoneNumber: '+447911123456' }).map((i) => i.field)).toEqual(['country']);
    expect(phoneRequestIssues({ country: 'NG', phoneNumber: ' ' }).map((i) => i.field)).toEqual(['phoneNumber']);
  });

  it('Ghana without networkCode is NETWORK_CODE_REQUIRED', () => {
    expect(phoneFormatFailure({ country: 'GH', phoneNumber: '0231234567' })?.code).toBe('NETWORK_CODE_REQUIRED');
  });

  it('matches network codes case-insensitively and rejects unknown ones', () => {
    expect(phoneFormatFailure({ country: 'GH', phoneNumber: '0231234567', networkCode: 'airteltigo' })).toBeNull();
    expect(phoneFormatFailure({ country: 'CI', phoneNumber: '0123456789', networkCode: 'Orange' })).toBeNull();
    expect(phoneFormatFailure({ country: 'GH', phoneNumber: '0231234567', networkCode: 'GLO' })?.code).toBe('INVALID_NETWORK_CODE');
    expect(phoneFormatFailure({ country: 'TG', phoneNumber: '90112345', networkCode: 'ORANGE' })?.code).toBe('INVALID_NETWORK_CODE');
  });

  it('rejects invalid numbers and numbers of another country', () => {
    expect(phoneFormatFailure({ country: 'NG', phoneNumber: '12' })?.code).toBe('INVALID_PHONE_NUMBER');
    expect(phoneFormatFailure({ country: 'NG', phoneNumber: '+233231234567' })?.code).toBe('INVALID_PHONE_NUMBER');
    expect(phoneFormatFailure({ country: 'NG', phoneNumber: 'call 08021234567' })?.code).toBe('INVALID_PHONE_NUMBER');
  });

  it('accepts Kenyan E.164 digits with or without +, and normalises to E.164', () => {
    for (const n of ['254712123456', '+254712123456', '0712 123456']) {
      const req = { country: 'KE', phoneNumber: n };
      expect(phoneFormatFailure(req)).toBeNull();
      expect(normalizePhone(req)).toBe('+254712123456');
    }
  });

  it('normalises a Nigerian local number', () => {
    expect(normalizePhone({ country: 'NG', phoneNumber: '0802 123 4567' })).toBe('+2348021234567');
  });
});
