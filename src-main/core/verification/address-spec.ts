// Address verification jobs (decisions §4): always queued (202 pending, then a webhook event), verificationType
// ADDRESS, offered in every country the product verifies anything else in.
import { SUPPORTED_ACCOUNT_COUNTRIES } from '../../../src-shared/corridors';
import { SUPPORTED_IDENTITY_COUNTRIES } from '../../../src-shared/identity-rules';
import { SUPPORTED_PHONE_COUNTRIES } from '../../../src-shared/phone-markets';
import type { AddressRequest } from '../../../src-shared/schemas/verification-more';
import type { KindSpecExtras } from './engine';
import type { FieldIssue, KindSpec } from './types';
import { serviceKey } from '../../../src-shared/services';

export const ADDRESS_COUNTRIES: readonly string[] = Object.freeze(
  [...new Set([...SUPPORTED_ACCOUNT_COUNTRIES, ...SUPPORTED_PHONE_COUNTRIES, ...SUPPORTED_IDENTITY_COUNTRIES])].sort(),
);

/** Countries whose postal service needs the postcode to place an address at all. */
const POSTCODE_REQUIRED = new Set(['GB', 'US', 'CA', 'AU', 'NL', 'IE', 'BR', 'IN']);

function submitted(r: AddressRequest): Record<string, unknown> {
  const out: Record<string, unknown> = { addressLine1: r.addressLine1 };
  if (r.addressLine2) out['addressLine2'] = r.addressLine2;
  out['city'] = r.city;
  if (r.region) out['region'] = r.region;
  if (r.postalCode) out['postalCode'] = r.postalCode;
  out['country'] = r.country;
  return out;
}

export const addressSpec: KindSpec<AddressRequest> & KindSpecExtras<AddressRequest> = {
  kind: 'address',
  alwaysAsync: true,
  verificationType: () => 'ADDRESS',
  identifier: (r) => [r.addressLine1, r.city, r.postalCode].filter(Boolean).join(', '),
  country: (r) => r.country,
  supported: (r) => ADDRESS_COUNTRIES.includes(r.country),
  asyncAllowed: () => true,
  issues: (r) => {
    const issues: FieldIssue[] = [];
    if (POSTCODE_REQUIRED.has(r.country) && !r.postalCode) {
      issues.push({ field: 'postalCode', message: `postalCode is required for addresses in ${r.country}.` });
    }
    return issues;
  },
  formatFailure: () => null,
  serviceKey: () => serviceKey.address,
  baseFields: () => ({}),
  answerFields: (r, a) => {
    if (a.outcome !== 'success') return {};
    // The provider's standardised form of the address when it gives one, else the address as submitted.
    return { address: (a.fields?.address as Record<string, unknown> | undefined) ?? submitted(r) };
  },
};
