// Identity document verification (interface §2.5, decisions §4): KE national ID returns split names and date of
// birth; passport, driver's licence and Ghana Card return a combined fullName.
import {
  getIdentityType,
  identityFormatFailure,
  identityRequestIssues,
  normalizeIdNumber,
  SUPPORTED_IDENTITY_COUNTRIES,
} from '../../../src-shared/identity-rules';
import type { IdentityRequest } from '../../../src-shared/schemas/verification-more';
import type { KindSpec, ResultFields } from './types';
import { serviceKey } from '../../../src-shared/services';

export const identitySpec: KindSpec<IdentityRequest> = {
  kind: 'identity',
  verificationType: (r) => getIdentityType(r.idType)?.verificationType ?? 'KE_NATIONAL_ID',
  identifier: (r) => normalizeIdNumber(r.idNumber),
  country: (r) => r.country,
  supported: (r) => SUPPORTED_IDENTITY_COUNTRIES.includes(r.country),
  asyncAllowed: (r) => getIdentityType(r.idType)?.asyncAllowed ?? false,
  issues: (r) => identityRequestIssues({ ...r, mode: undefined }).filter((i) => i.field !== 'country'),
  formatFailure: (r) => identityFormatFailure(r),
  serviceKey: (r) => serviceKey.identity(r.idType),
  baseFields: () => ({}),
  answerFields: (r, a) => {
    if (a.outcome !== 'success' || !a.fields) return {};
    const f = a.fields;
    const out: ResultFields = {};
    if (r.idType === 'national_id') {
      if (f.firstName) out.firstName = f.firstName;
      if (f.middleName) out.middleName = f.middleName;
      if (f.lastName) out.lastName = f.lastName;
    } else if (f.fullName) {
      out.fullName = f.fullName;
    }
    if (f.dateOfBirth) out.dateOfBirth = f.dateOfBirth;
    return out;
  },
};
