// Bank account verification (interface §2.3): validation and result fields driven by the corridor table.
import { accountFormatFailure, accountRequestIssues, getCorridor } from '../../../src-shared/corridors';
import type { AccountRequest } from '../../../src-shared/schemas/verification';
import type { KindSpec } from './types';
import { serviceKey } from '../../../src-shared/services';

export const accountSpec: KindSpec<AccountRequest> = {
  kind: 'account',
  verificationType: () => 'ACCOUNT_NUMBER',
  identifier: (r) => r.accountNumber,
  country: (r) => r.country,
  supported: (r) => getCorridor(r.country) !== undefined,
  asyncAllowed: (r) => getCorridor(r.country)?.asyncAllowed ?? false,
  // The corridor table reports an unsupported country and async-on-sync-only too; the engine answers those
  // with their own codes (UNSUPPORTED_CORRIDOR, ASYNC_NOT_SUPPORTED), so they are left out here.
  issues: (r) => accountRequestIssues({ ...r, mode: undefined }).filter((i) => i.field !== 'country'),
  formatFailure: (r) => accountFormatFailure(r),
  serviceKey: (r) => serviceKey.account(r.country),
  baseFields: (r) => ({
    checkType: getCorridor(r.country)?.checkType ?? 'BANK_LOOKUP',
    accountNumber: r.accountNumber,
    ...(r.bankCode ? { bankCode: r.bankCode } : {}),
  }),
  answerFields: (r, a) => {
    const corridor = getCorridor(r.country);
    const out: { accountName?: string; bankName?: string } = {};
    if (a.fields?.bankName) out.bankName = a.fields.bankName;
    if (corridor?.checkType === 'BANK_LOOKUP') {
      // A bank lookup returns the holder's name on record.
      if (a.outcome === 'success' && a.fields?.accountName) out.accountName = a.fields.accountName;
    } else if (corridor?.checkType === 'NAME_MATCH' && a.outcome === 'success' && r.accountName) {
      // Name checks echo the submitted name only when it matched (interface §2.3 for GB and CN; applied to every
      // name-check corridor so no check discloses a holder's name to a caller who did not already know it). An
      // account-existence (TH) or format (PH) check compares no name, so it confirms none: the name is not echoed.
      out.accountName = r.accountName;
    }
    return out;
  },
};
