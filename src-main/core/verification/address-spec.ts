// Address verification jobs (decisions §4): always queued (202 pending, then a webhook event), verificationType
// ADDRESS, offered in every country the product verifies anything else in.
import { ADDRESS_COUNTRIES, addressRequestIssues } from '../../../src-shared/address-rules';
import type { AddressRequest } from '../../../src-shared/schemas/verification-more';
import type { KindSpecExtras } from './engine';
import type { KindSpec } from './types';
import { serviceKey } from '../../../src-shared/services';


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
  issues: (r) => addressRequestIssues(r),
  formatFailure: () => null,
  serviceKey: () => serviceKey.address,
  baseFields: () => ({}),
  answerFields: (r, a) => {
    if (a.outcome !== 'success') return {};
    // The provider's standardised form of the address when it gives one, else the address as submitted.
    return { address: (a.fields?.address as Record<string, unknown> | undefined) ?? submitted(r) };
  },
};
