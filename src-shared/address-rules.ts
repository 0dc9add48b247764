// Address verification rules (decisions §4), shared by the service's validation and the console's form: where
// address jobs are offered, and which countries need a postcode to place an address at all.
import { SUPPORTED_ACCOUNT_COUNTRIES } from './corridors';
import { SUPPORTED_IDENTITY_COUNTRIES } from './identity-rules';
import { SUPPORTED_PHONE_COUNTRIES } from './phone-markets';

/** Every country the product verifies anything in (accounts, phones, documents). */
export const SUPPORTED_COUNTRIES: readonly string[] = Object.freeze(
  [...new Set([...SUPPORTED_ACCOUNT_COUNTRIES, ...SUPPORTED_PHONE_COUNTRIES, ...SUPPORTED_IDENTITY_COUNTRIES])].sort(),
);

/** Address jobs are offered wherever anything else is verified. */
export const ADDRESS_COUNTRIES = SUPPORTED_COUNTRIES;

export const POSTCODE_REQUIRED: ReadonlySet<string> = new Set(['GB', 'US', 'CA', 'AU', 'NL', 'IE', 'BR', 'IN']);

export interface AddressRequestLike {
  country: string;
  postalCode?: string | undefined;
}

/** Layer-1 issues beyond the schema (422 VALIDATION_ERROR). */
export function addressRequestIssues(r: AddressRequestLike): { field: string; message: string }[] {
  if (POSTCODE_REQUIRED.has(r.country) && !r.postalCode?.trim()) {
    return [{ field: 'postalCode', message: `postalCode is required for addresses in ${r.country}.` }];
  }
  return [];
}
