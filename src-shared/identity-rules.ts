// Identity document types (interface §2.5, decisions §4) as data, with the request checks of decisions §2.
// Pure: shared by the service and the console.
import type { FieldIssue } from './corridors';
import { FACE_MATCH_MESSAGES } from './errors';

export type IdType = 'national_id' | 'passport' | 'drivers_license' | 'ghana_card';
export type IdentityVerificationType = 'KE_NATIONAL_ID' | 'KE_PASSPORT' | 'KE_DRIVERS_LICENSE' | 'GH_CARD';

export interface IdentityType {
  idType: IdType;
  country: string;
  verificationType: IdentityVerificationType;
  label: string;
  hint: string;
  /** Regular expression source the upper-cased, trimmed idNumber must match. */
  pattern: string;
  /** validation.firstName and validation.lastName are required (driver's licence). */
  namesRequired: boolean;
  asyncAllowed: boolean;
  sample: { idNumber: string; validation?: { firstName: string; lastName: string } };
}

/** The countries whose registries answer identity checks, as the console names them. */
export const IDENTITY_COUNTRIES: Readonly<Record<string, { name: string; registry: string }>> = Object.freeze({
  KE: { name: 'Kenya', registry: 'Kenyan' },
  GH: { name: 'Ghana', registry: 'Ghanaian' },
});

export const IDENTITY_TYPES: readonly IdentityType[] = Object.freeze([
  {
    idType: 'national_id',
    country: 'KE',
    verificationType: 'KE_NATIONAL_ID',
    label: 'Kenyan national ID',
    hint: 'Up to 9 digits.',
    pattern: '^[0-9]{1,9}$',
    namesRequired: false,
    asyncAllowed: true,
    sample: { idNumber: '12345678' },
  },
  {
    idType: 'passport',
    country: 'KE',
    verificationType: 'KE_PASSPORT',
    label: 'Kenyan passport',
    hint: '6 to 12 letters or digits.',
    pattern: '^[A-Z0-9]{6,12}$',
    namesRequired: false,
    asyncAllowed: true,
    sample: { idNumber: 'AK0123456' },
  },
  {
    idType: 'drivers_license',
    country: 'KE',
    verificationType: 'KE_DRIVERS_LICENSE',
    label: "Kenyan driver's licence",
    hint: '1 to 20 letters or digits; first and last name required.',
    pattern: '^[A-Z0-9]{1,20}$',
    namesRequired: true,
    asyncAllowed: true,
    sample: { idNumber: 'DL1234567', validation: { firstName: 'Wanjiru', lastName: 'Kamau' } },
  },
  {
    idType: 'ghana_card',
    country: 'GH',
    verificationType: 'GH_CARD',
    label: 'Ghana Card',
    hint: 'GHA- then 9 digits, a dash and 1 digit, e.g. GHA-123456789-0.',
    pattern: '^GHA-[0-9]{9}-[0-9]$',
    namesRequired: false,
    asyncAllowed: true,
    sample: { idNumber: 'GHA-123456789-0' },
  },
] satisfies IdentityType[]);

export function getIdentityType(idType: string): IdentityType | undefined {
  return IDENTITY_TYPES.find((t) => t.idType === idType);
}

export const SUPPORTED_IDENTITY_COUNTRIES: readonly string[] = Object.freeze([...new Set(IDENTITY_TYPES.map((t) => t.country))]);

export interface IdentityRequestLike {
  country: string;
  idType: string;
  idNumber: string;
  validation?: { firstName?: string; lastName?: string; dateOfBirth?: string };
  mode?: 'async';
}

function blank(value: string | undefined): boolean {
  return value === undefined || value.trim() === '';
}

/**
 * Layer 1 (HTTP 422). An issue on field 'country' means the country has no identity checks at all
 * (UNSUPPORTED_CORRIDOR); a type offered only in another country is a VALIDATION_ERROR on idType.
 */
export function identityRequestIssues(req: IdentityRequestLike): FieldIssue[] {
  const country = typeof req.country === 'string' ? req.country.trim().toUpperCase() : '';
  if (!SUPPORTED_IDENTITY_COUNTRIES.includes(country)) {
    return [
      {
        field: 'country',
        message: country === '' ? 'country is required.' : `Identity verification is not available for country ${country}.`,
      },
    ];
  }
  const type = getIdentityType(req.idType);
  if (type === undefined) {
    const offered = IDENTITY_TYPES.filter((t) => t.country === country).map((t) => t.idType);
    return [{ field: 'idType', message: `idType must be one of ${offered.join(', ')} for ${country}.` }];
  }
  const issues: FieldIssue[] = [];
  if (type.country !== country) {
    issues.push({ field: 'idType', message: `${type.idType} is a ${type.country} document; it cannot be verified for ${country}.` });
  }
  if (typeof req.idNumber !== 'string' || blank(req.idNumber)) {
    issues.push({ field: 'idNumber', message: 'idNumber is required.' });
  }
  if (type.namesRequired) {
    if (blank(req.validation?.firstName)) {
      issues.push({ field: 'validation.firstName', message: `validation.firstName is required for ${type.idType}.` });
    }
    if (blank(req.validation?.lastName)) {
      issues.push({ field: 'validation.lastName', message: `validation.lastName is required for ${type.idType}.` });
    }
  }
  return issues;
}

/** The document number as the provider expects it (trimmed, upper-case). */
export function normalizeIdNumber(idNumber: string): string {
  return idNumber.trim().toUpperCase();
}

/**
 * Layer 2 (HTTP 200, recorded as `failed`, never charged). §7.3 has no dedicated code for a malformed
 * document number, so this is VERIFICATION_FAILED with a message naming the document and its format.
 */
export function identityFormatFailure(req: IdentityRequestLike): { code: 'VERIFICATION_FAILED'; message: string } | null {
  const type = getIdentityType(req.idType);
  if (type === undefined) return null;
  if (!new RegExp(type.pattern).test(normalizeIdNumber(req.idNumber ?? ''))) {
    return { code: 'VERIFICATION_FAILED', message: `The ${type.label} number is not in the expected format: ${type.hint}` };
  }
  return null;
}

/**
 * Layer 2 of a facial check: a Ghana Card number that is not well formed. Every failed facial check is
 * `FACE_MATCH_FAILED` with one of the six messages of interface §7.3 rule 4 (decisions §4), so this one is "check could
 * not complete" (never charged); the console names the card number's format under its field before sending.
 */
export function faceFormatFailure(idNumber: string): { code: 'FACE_MATCH_FAILED'; message: string } | null {
  return identityFormatFailure({ country: 'GH', idType: 'ghana_card', idNumber }) ? { code: 'FACE_MATCH_FAILED', message: FACE_MATCH_MESSAGES[5] } : null;
}
