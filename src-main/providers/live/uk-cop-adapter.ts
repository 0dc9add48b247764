// Pay.UK Confirmation of Payee (GB name checks, docs/providers.md): the Open Banking account-name-check with sort
// code + account number and the expected name. Matched → success; each ReasonCode maps to failed (charged), or
// to INCONCLUSIVE where the check was not possible. A close match's returned Name is never passed on (§2.3).
import type { ProviderAnswer } from '../../core/verification/types';
import { compactId, isObject, mapped, str, type LiveAdapter } from './adapter';
import { requestIdFor } from './epc-vop-adapter';

const NO_MATCH = 'The account name does not match the name held by the bank.';
const CLOSE = 'The account name is a close match to, but not the same as, the name held by the bank.';

export const COP_REASONS: Record<string, ProviderAnswer> = {
  ANNM: { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: NO_MATCH },
  MBAM: { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: CLOSE },
  BANM: { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: 'The name matches, but the account is a business account, not a personal one.' },
  PANM: { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: 'The name matches, but the account is a personal account, not a business one.' },
  BAMM: { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: 'The name is a close match, and the account is a business account, not a personal one.' },
  PAMM: { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: 'The name is a close match, and the account is a personal account, not a business one.' },
  AC01: { outcome: 'failed', errorCode: 'ACCOUNT_NOT_FOUND', message: 'The account does not exist at the bank.' },
  IVCR: { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: 'The secondary reference (roll number) is not valid for this account.' },
  CASS: { outcome: 'failed', errorCode: 'ACCOUNT_INACTIVE', message: 'The account was found but is inactive, dormant or blocked: it has been switched to another bank.' },
  // The responder cannot check this account: no definitive result, never charged.
  ACNS: { outcome: 'error', errorCode: 'INCONCLUSIVE' },
  OPTO: { outcome: 'error', errorCode: 'INCONCLUSIVE' },
  SCNS: { outcome: 'error', errorCode: 'INCONCLUSIVE' },
};

export const ukCopAdapter: LiveAdapter = {
  name: 'uk-cop',
  kinds: ['account'],
  build(_kind, request, verificationId) {
    const sortCode = compactId(request['bankCode']);
    const account = compactId(request['accountNumber']);
    return {
      path: '/open-banking/v3.1/pisp/account-name-check',
      headers: { 'x-idempotency-key': verificationId, 'x-fapi-interaction-id': requestIdFor(verificationId) },
      idempotencyKey: verificationId,
      body: {
        Data: {
          SchemeName: 'SortCodeAccountNumber',
          AccountType: request['accountHolderType'] === 'BUSINESS' ? 'Business' : 'Personal',
          Identification: `${sortCode}${account}`,
          Name: String(request['accountName'] ?? ''),
        },
      },
    };
  },
  read(_kind, _request, json, mapping) {
    if (!isObject(json) || !isObject(json['Data']) || !isObject(json['Data']['VerificationReport'])) return null;
    const report = json['Data']['VerificationReport'];
    if (typeof report['Matched'] !== 'boolean') return null;
    const reason = str(report['ReasonCode']);
    const key = report['Matched'] ? 'MATCHED' : (reason ?? 'NOT_MATCHED');
    const fallback: ProviderAnswer | undefined = report['Matched']
      ? { outcome: 'success' }
      : reason
        ? COP_REASONS[reason]
        : { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: NO_MATCH };
    const row = mapping?.[key];
    if (!fallback && !row) return null;
    return mapped(row, fallback ?? { outcome: 'error', errorCode: 'VERIFICATION_ERROR' });
  },
};
