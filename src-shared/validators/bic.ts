// ISO 9362 business identifier code (BIC/SWIFT): bank, ISO 3166 country, location, optional branch.
import countries from 'i18n-iso-countries';
import { type Check, fail, pass } from './result';

export interface BicParts {
  institutionCode: string;
  countryCode: string;
  locationCode: string;
  /** 'XXX' when the BIC has 8 characters: that is how SWIFT names the primary office. */
  branchCode: string;
  isPrimaryOffice: boolean;
  /** ISO 9362 reserves '0' as the second location character for test and training BICs. */
  isTestBic: boolean;
}

export type BicResult = { ok: true; parts: BicParts } | { ok: false; reasons: string[] };

export function parseBic(value: string): BicResult {
  const v = value.trim().replace(/\s/g, '').toUpperCase();
  const reasons: string[] = [];
  if (v.length !== 8 && v.length !== 11) {
    return { ok: false, reasons: [`A BIC has 8 or 11 characters; this one has ${v.length}.`] };
  }
  const institutionCode = v.slice(0, 4);
  const countryCode = v.slice(4, 6);
  const locationCode = v.slice(6, 8);
  const branchCode = v.length === 11 ? v.slice(8, 11) : 'XXX';
  // Newer BICs may use digits in the institution code (ISO 9362:2014), but the bank codes we see are letters.
  if (!/^[A-Z]{4}$/.test(institutionCode)) reasons.push('The first 4 characters of a BIC (the bank) must be letters.');
  if (!/^[A-Z]{2}$/.test(countryCode) || !countries.isValid(countryCode)) {
    reasons.push(`Characters 5-6 of a BIC must be an ISO country code; ${countryCode} is not.`);
  }
  if (!/^[A-Z0-9]{2}$/.test(locationCode)) reasons.push('Characters 7-8 of a BIC (the location) must be letters or digits.');
  if (!/^[A-Z0-9]{3}$/.test(branchCode)) reasons.push('Characters 9-11 of a BIC (the branch) must be letters or digits.');
  if (reasons.length > 0) return { ok: false, reasons };
  return {
    ok: true,
    parts: {
      institutionCode,
      countryCode,
      locationCode,
      branchCode,
      isPrimaryOffice: branchCode === 'XXX',
      isTestBic: locationCode[1] === '0',
    },
  };
}

/** Validates a BIC and, when given, requires it to belong to the account's country. */
export function validateBic(value: string, expectedCountry?: string): Check {
  const parsed = parseBic(value);
  if (!parsed.ok) return fail(parsed.reasons.join(' '));
  const expected = expectedCountry?.toUpperCase();
  if (expected !== undefined && parsed.parts.countryCode !== expected) {
    return fail(`The BIC belongs to a bank in ${parsed.parts.countryCode}, not in ${expected}.`);
  }
  return pass(value.trim().replace(/\s/g, '').toUpperCase());
}
