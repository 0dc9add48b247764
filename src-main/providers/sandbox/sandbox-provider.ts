// The sandbox provider: deterministic answers from the fixture catalogue, no external queries, free of charge.
// An identifier that no fixture lists answers "not found" for its kind, always the same way (docs/sandbox.md).
import type { VerificationErrorCode } from '../../../src-shared/errors';
import { getCorridor } from '../../../src-shared/corridors';
import { normalizePhone } from '../../../src-shared/phone-markets';
import type { ProviderAnswer, ProviderContext, VerificationKind } from '../../core/verification/types';
import type { ProviderRegistry } from '../../core/verification/engine';
import { loadFixtures, norm, normName, OTHER_NETWORK_MESSAGE, WRONG_BANK_MESSAGE, type Fixture } from './fixtures';

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
  const sameNumber = fixtures.filter(
    (f) => f.kind === 'account' && f.country === country && norm(f.request['accountNumber']) === norm(req['accountNumber']),
  );
  // A fixture matches on every identifying field: the bank code too, when both the fixture and the request give one.
  const matches = sameNumber.filter((f) => f.request['bankCode'] === undefined || req['bankCode'] === undefined || norm(f.request['bankCode']) === norm(req['bankCode']));
  if (sameNumber.length > 0 && matches.length === 0 && corridor?.checkType !== 'FORMAT_CHECK') {
    return { outcome: 'failed', errorCode: 'ACCOUNT_NOT_FOUND', message: WRONG_BANK_MESSAGE };
  }
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

/** How a request of each other kind finds its fixture: the fields that identify the subject, normalised. */
const KEY_OF: Record<Exclude<VerificationKind, 'account'>, (req: Req) => string> = {
  // E.164, so local and international spellings of one number find the same fixture.
  phone: (r) => `${norm(r['country'])}|${normalizePhone({ country: String(r['country'] ?? ''), phoneNumber: String(r['phoneNumber'] ?? '') })}`,
  identity: (r) => `${norm(r['country'])}|${String(r['idType'] ?? '')}|${norm(r['idNumber'])}`,
  face: (r) => norm(r['idNumber']),
  address: (r) => `${norm(r['country'])}|${normName(r['addressLine1'])}|${norm(r['postalCode'])}`,
};

const NOT_FOUND: Record<Exclude<VerificationKind, 'account'>, { code: VerificationErrorCode; message: string }> = {
  phone: { code: 'SUBSCRIBER_NOT_FOUND', message: 'This number is not registered in the sandbox test data.' },
  identity: { code: 'IDENTIFIER_NOT_FOUND', message: 'This document number is not in the sandbox test data.' },
  face: { code: 'FACE_MATCH_FAILED', message: 'Facial verification did not match.' },
  address: { code: 'VERIFICATION_FAILED', message: 'This address could not be found in the sandbox test data.' },
};

/** Identity `validation` names and date of birth are matched against the holder on record. */
function identityMismatch(req: Req, fields: Record<string, unknown>): string | null {
  const v = (req['validation'] ?? {}) as Record<string, unknown>;
  const held = normName(fields['fullName'] ?? [fields['firstName'], fields['middleName'], fields['lastName']].filter(Boolean).join(' '));
  const words = new Set(held.split(' '));
  for (const key of ['firstName', 'lastName'] as const) {
    const given = normName(v[key]);
    if (given && !given.split(' ').every((w) => words.has(w))) return 'The names given do not match the document holder.';
  }
  if (typeof v['dateOfBirth'] === 'string' && typeof fields['dateOfBirth'] === 'string' && v['dateOfBirth'] !== fields['dateOfBirth']) {
    return "The date of birth given does not match the document holder's.";
  }
  return null;
}

export function answerByKey(fixtures: Fixture[], kind: Exclude<VerificationKind, 'account'>, req: Req): ProviderAnswer {
  const keyOf = KEY_OF[kind];
  const key = keyOf(req);
  const listed = fixtures.filter((f) => f.kind === kind && keyOf(f.request) === key);
  // A phone fixture matches on its network too, when both it and the request name one: a subscriber's number sent with
  // another network is not that subscriber (a number no carrier has, listed as not found, is not found on any).
  const network = kind === 'phone' ? norm(req['networkCode']) : '';
  const hit = listed.find((f) => !network || !f.request['networkCode'] || norm(f.request['networkCode']) === network);
  if (!hit && listed.some((f) => f.expected.errorCode !== 'SUBSCRIBER_NOT_FOUND')) return { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: OTHER_NETWORK_MESSAGE };
  if (!hit && listed[0]) return failedAnswer(listed[0]);
  if (!hit) return { outcome: 'failed', errorCode: NOT_FOUND[kind].code, message: NOT_FOUND[kind].message };
  if (hit.expected.status !== 'success') return failedAnswer(hit);
  const fields = fieldsOf(hit) ?? {};
  if (kind === 'identity') {
    const mismatch = identityMismatch(req, fields);
    if (mismatch) return { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: mismatch };
  }
  return { outcome: 'success', fields };
}

/** Codes decided by the local format checks (decisions §2 layer 2): their fixtures never reach a provider. */
const FORMAT_CODES = new Set(['INVALID_ACCOUNT_NUMBER', 'INVALID_BANK_CODE', 'INVALID_PHONE_NUMBER', 'INVALID_NETWORK_CODE', 'NETWORK_CODE_REQUIRED']);
const answeringCache = new WeakMap<Fixture[], Fixture[]>();

/** The fixtures a provider answers from: those documenting a format failure share numbers with real ones. */
function answering(all: Fixture[]): Fixture[] {
  let hit = answeringCache.get(all);
  if (!hit) {
    hit = all.filter((f) => !FORMAT_CODES.has(f.expected.errorCode ?? '') && !/format failure/i.test(f.description));
    answeringCache.set(all, hit);
  }
  return hit;
}

export function createSandboxProvider(resourcesDir: string): ProviderRegistry {
  return {
    async ask(kind: VerificationKind, request: unknown, _ctx: ProviderContext): Promise<ProviderAnswer> {
      const fixtures = answering(loadFixtures(resourcesDir));
      const req = request as Req;
      if (kind === 'account') return answerAccount(fixtures, req);
      return answerByKey(fixtures, kind, req);
    },
  };
}
