// The sandbox provider: deterministic answers from the fixture catalogue, no external queries, free of charge.
// An identifier that no fixture lists answers "not found" for its kind, always the same way.
import type { VerificationErrorCode } from '../../../src-shared/errors';
import { getCorridor } from '../../../src-shared/corridors';
import type { ProviderAnswer, ProviderContext, VerificationKind } from '../../core/verification/types';
import type { ProviderRegistry } from '../../core/verification/engine';
import { loadFixtures, norm, normName, type Fixture } from './fixtures';

type Req = Record<string, unknown>;

function failedAnswer(f: Fixture): ProviderAnswer {
  const code = f.expected.errorCode as VerificationErrorCode | undefined;
  const message = typeof f.expected.fields?.['message'] === 'string' ? (f.expected.fields['message'] as string) : undefined;
  return { outcome: f.expected.status === 'error' ? 'error' : 'failed', ...(code ? { errorCode: code } : {}), ...(message ? { message } : {}) };
}

function fieldsOf(f: Fixture): ProviderAnswer['fields'] {
  const { message: _m, ...rest } = (f.expected.fields ?? {}) as Record<string, unknown>;
  return rest as ProviderAnswer['fields'];
}

export function answerAccount(fixtures: Fixture[], req: Req): ProviderAnswer {
  const country = String(req['country'] ?? '');
  const corridor = getCorridor(country);
  const matches = fixtures.filter(
    (f) => f.kind === 'account' && f.country === country && norm(f.request['accountNumber']) === norm(req['accountNumber']),
  );
  // An account-level outcome (not found, inactive, outage, ...) answers whatever name was given.
  const accountLevel = matches.find((f) => f.expected.status !== 'success' && f.expected.errorCode !== 'VERIFICATION_FAILED');
  if (accountLevel) return failedAnswer(accountLevel);
  const holder = matches.find((f) => f.expected.status === 'success');
  if (corridor?.checkType === 'FORMAT_CHECK') return { outcome: 'success', fields: holder ? fieldsOf(holder) : {} };
  if (!holder) {
    return { outcome: 'failed', errorCode: 'ACCOUNT_NOT_FOUND', message: 'No account with this number exists in the sandbox test data.' };
  }
  const fields = fieldsOf(holder) ?? {};
  if (corridor?.checkType === 'NAME_MATCH') {
    const onRecord = holder.request['accountName'] ?? fields.accountName;
    if (normName(onRecord) !== normName(req['accountName'])) {
      const mismatch = matches.find((f) => f.expected.errorCode === 'VERIFICATION_FAILED');
      return {
        outcome: 'failed',
        errorCode: 'VERIFICATION_FAILED',
        message:
          (mismatch?.expected.fields?.['message'] as string | undefined) ??
          'The account name does not match the name held by the bank.',
        fields: { bankName: fields.bankName },
      };
    }
  }
  return { outcome: 'success', fields };
}

/** Answers for the other kinds are keyed by their identifying fields; see answerByKey. */
const KEY_FIELDS: Record<Exclude<VerificationKind, 'account'>, string[]> = {
  phone: ['country', 'phoneNumber'],
  identity: ['country', 'idType', 'idNumber'],
  face: ['idNumber'],
  address: ['country', 'addressLine1', 'postalCode'],
};

const NOT_FOUND: Record<Exclude<VerificationKind, 'account'>, { code: VerificationErrorCode; message: string }> = {
  phone: { code: 'SUBSCRIBER_NOT_FOUND', message: 'This number is not registered in the sandbox test data.' },
  identity: { code: 'IDENTIFIER_NOT_FOUND', message: 'This document number is not in the sandbox test data.' },
  face: { code: 'FACE_MATCH_FAILED', message: 'Facial verification did not match.' },
  address: { code: 'VERIFICATION_FAILED', message: 'This address is not in the sandbox test data.' },
};

export function answerByKey(fixtures: Fixture[], kind: Exclude<VerificationKind, 'account'>, req: Req, keyNorm: (field: string, v: unknown) => string = (_f, v) => norm(v)): ProviderAnswer {
  const fields = KEY_FIELDS[kind];
  const hit = fixtures.find((f) => f.kind === kind && fields.every((k) => keyNorm(k, f.request[k]) === keyNorm(k, req[k])));
  if (!hit) return { outcome: 'failed', errorCode: NOT_FOUND[kind].code, message: NOT_FOUND[kind].message };
  if (hit.expected.status === 'success') return { outcome: 'success', fields: fieldsOf(hit) };
  return failedAnswer(hit);
}

export function createSandboxProvider(resourcesDir: string, opts: { keyNorm?: (field: string, v: unknown) => string } = {}): ProviderRegistry {
  return {
    async ask(kind: VerificationKind, request: unknown, _ctx: ProviderContext): Promise<ProviderAnswer> {
      const fixtures = loadFixtures(resourcesDir);
      const req = request as Req;
      if (kind === 'account') return answerAccount(fixtures, req);
      return answerByKey(fixtures, kind, req, opts.keyNorm);
    },
  };
}
