// Phone verification (interface §2.4, decisions §4): validation from the phone-market table; results carry the
// subscriber's fullName and dateOfBirth where the market returns them, never split name components.
import { canonicalNetworkCode, getPhoneMarket, normalizePhone, phoneFormatFailure, phoneRequestIssues } from '../../../src-shared/phone-markets';
import type { PhoneRequest } from '../../../src-shared/schemas/verification-more';
import type { KindSpec, ResultFields } from './types';
import { serviceKey } from '../../../src-shared/services';

export const phoneSpec: KindSpec<PhoneRequest> = {
  kind: 'phone',
  verificationType: () => 'PHONE_NUMBER',
  identifier: (r) => r.phoneNumber,
  country: (r) => r.country,
  supported: (r) => getPhoneMarket(r.country) !== undefined,
  asyncAllowed: (r) => getPhoneMarket(r.country)?.asyncAllowed ?? false,
  issues: (r) => phoneRequestIssues({ ...r, mode: undefined }).filter((i) => i.field !== 'country'),
  formatFailure: (r) => phoneFormatFailure(r),
  serviceKey: (r) => serviceKey.phone(r.country),
  baseFields: (r) => {
    const out: ResultFields = { phoneNumber: normalizePhone(r) };
    const network = r.networkCode ? canonicalNetworkCode(r.country, r.networkCode) : null;
    if (network) out.networkCode = network;
    return out;
  },
  answerFields: (_r, a) => {
    if (a.outcome !== 'success') return {};
    // Interface §2.4: Kenya gives fullName and dateOfBirth only; other markets likewise report a combined name.
    const out: ResultFields = {};
    if (a.fields?.fullName) out.fullName = a.fields.fullName;
    if (a.fields?.dateOfBirth) out.dateOfBirth = a.fields.dateOfBirth;
    return out;
  },
};
