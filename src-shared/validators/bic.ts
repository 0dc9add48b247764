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

// Batch files check hundreds of thousands of BICs: the country test is memoised (at most 26 * 26 entries, only
// two-letter codes reach it) and well-formed BICs are recognised by char codes before the regex path that words
// the reasons.
const countryValid = new Map<string, boolean>();

function isCountry(code: string): boolean {
  let ok = countryValid.get(code);
  if (ok === undefined) {
    ok = countries.isValid(code);
    countryValid.set(code, ok);
  }
  return ok;
}

const countryByCodes = new Int8Array(26 * 26).fill(-1);

/**
 * The country test by the char codes of two upper-case letters (65-90 each), for the batch engine's direct path,
 * which reads identifiers straight from the line without cutting a string first.
 */
export function isBicCountryCodes(a: number, b: number): boolean {
  if (a < 65 || a > 90 || b < 65 || b > 90) return false;
  const k = (a - 65) * 26 + (b - 65);
  let v = countryByCodes[k] as number;
  if (v === -1) {
    v = isCountry(String.fromCharCode(a, b)) ? 1 : 0;
    countryByCodes[k] = v;
  }
  return v === 1;
}

function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}

function isUpperOrDigit(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** Letters and digits only (nothing to trim or strip), in the upper-cased form `v`. */
function alnum(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57))) return false;
  }
  return true;
}

function wellFormed(v: string): boolean {
  for (let i = 0; i < 4; i++) if (!isUpper(v.charCodeAt(i))) return false;
  for (let i = 6; i < v.length; i++) if (!isUpperOrDigit(v.charCodeAt(i))) return false;
  return isUpper(v.charCodeAt(4)) && isUpper(v.charCodeAt(5)) && isCountry(v.slice(4, 6));
}

/**
 * ISO 9362 reserves an initial 'X' of the branch code for 'XXX' (the primary office): no branch code starts with X
 * otherwise. Shared with the batch engine's direct path (csv-batch.ts, plainBic) by `isReservedBranchStart`.
 */
export function isReservedBranchStart(c0: number, c1: number, c2: number): boolean {
  return c0 === 88 && !(c1 === 88 && c2 === 88);
}

function reservedBranchReason(branchCode: string): string {
  return `Characters 9-11 of a BIC (the branch) may start with X only as XXX (the primary office, ISO 9362); ${branchCode} is not a branch code.`;
}

export function parseBic(value: string): BicResult {
  const v = (value.length === 8 || value.length === 11) && alnum(value) ? value.toUpperCase() : value.trim().replace(/\s/g, '').toUpperCase();
  const reasons: string[] = [];
  if (v.length !== 8 && v.length !== 11) {
    return { ok: false, reasons: [`A BIC has 8 or 11 characters; this one has ${v.length}.`] };
  }
  const reservedBranch = v.length === 11 && isReservedBranchStart(v.charCodeAt(8), v.charCodeAt(9), v.charCodeAt(10));
  if (wellFormed(v) && !reservedBranch) {
    const locationCode = v.slice(6, 8);
    const branchCode = v.length === 11 ? v.slice(8, 11) : 'XXX';
    return {
      ok: true,
      parts: {
        institutionCode: v.slice(0, 4),
        countryCode: v.slice(4, 6),
        locationCode,
        branchCode,
        isPrimaryOffice: branchCode === 'XXX',
        isTestBic: locationCode[1] === '0',
      },
    };
  }
  const institutionCode = v.slice(0, 4);
  const countryCode = v.slice(4, 6);
  const locationCode = v.slice(6, 8);
  const branchCode = v.length === 11 ? v.slice(8, 11) : 'XXX';
  // Newer BICs may use digits in the institution code (ISO 9362:2014), but the bank codes we see are letters.
  if (!/^[A-Z]{4}$/.test(institutionCode)) reasons.push('The first 4 characters of a BIC (the bank) must be letters.');
  if (!/^[A-Z]{2}$/.test(countryCode) || !isCountry(countryCode)) {
    reasons.push(`Characters 5-6 of a BIC must be an ISO country code; ${countryCode} is not.`);
  }
  if (!/^[A-Z0-9]{2}$/.test(locationCode)) reasons.push('Characters 7-8 of a BIC (the location) must be letters or digits.');
  if (!/^[A-Z0-9]{3}$/.test(branchCode)) reasons.push('Characters 9-11 of a BIC (the branch) must be letters or digits.');
  else if (reservedBranch) reasons.push(reservedBranchReason(branchCode));
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
