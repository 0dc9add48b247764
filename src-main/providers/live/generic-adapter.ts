// The generic HTTPS/JSON upstream (docs/providers.md): POST {baseUrl}/v1/checks/{kind} with our verification id as
// Idempotency-Key, answered by MATCH / NO_MATCH / NOT_FOUND / INCONCLUSIVE / INVALID, mapped by a table that each
// provider may override.
import { FACE_MATCH_MESSAGES, type VerificationErrorCode } from '../../../src-shared/errors';
import type { ProviderAnswer, VerificationKind } from '../../core/verification/types';
import type { FaceRequest, PhoneRequest } from '../../../src-shared/schemas/verification-more';
import { faceSpec } from '../../core/verification/face-spec';
import { phoneSpec } from '../../core/verification/phone-spec';
import { compactId, isObject, mapped, str, type LiveAdapter, type Req } from './adapter';

/** SHA-256 (hex) of the decoded selfie: the same digest the record keeps as `selfieSha256`. */
function selfieDigest(r: Req): string {
  return (faceSpec.storedRequest!(r as unknown as FaceRequest) as { selfieSha256: string }).selfieSha256;
}

export const GENERIC_RESULTS = ['MATCH', 'NO_MATCH', 'NOT_FOUND', 'INCONCLUSIVE', 'INVALID'] as const;

const NOT_FOUND: Record<VerificationKind, VerificationErrorCode> = {
  account: 'ACCOUNT_NOT_FOUND',
  phone: 'SUBSCRIBER_NOT_FOUND',
  identity: 'IDENTIFIER_NOT_FOUND',
  face: 'FACE_MATCH_FAILED',
  address: 'VERIFICATION_FAILED',
};

const INVALID: Record<VerificationKind, VerificationErrorCode> = {
  account: 'INVALID_ACCOUNT_NUMBER',
  phone: 'INVALID_PHONE_NUMBER',
  identity: 'VERIFICATION_FAILED',
  face: 'FACE_MATCH_FAILED',
  address: 'VERIFICATION_FAILED',
};

const NOT_FOUND_MESSAGE: Partial<Record<VerificationKind, string>> = {
  address: 'The address could not be found.',
};

type FaceMessage = (typeof FACE_MATCH_MESSAGES)[number];
const FACE_DID_NOT_MATCH: FaceMessage = 'Facial verification did not match.';
const FACE_NOT_COMPLETED: FaceMessage = 'Facial verification failed (check could not complete).';

/** An upstream's reason for a failed facial check, read as one of the six messages (interface §7.3 rule 4). */
const FACE_REASONS: [RegExp, FaceMessage][] = [
  [/liveness|spoof/i, 'Liveness check failed.'],
  [/multiple faces|more than one face/i, 'Multiple faces detected.'],
  [/no face (detected|found)|face not (detected|found)/i, 'No face detected.'],
  [/quality|blurr?y?|too dark|resolution/i, 'Photo quality too low.'],
];

function faceMessage(text: string | undefined): FaceMessage | undefined {
  if (!text) return undefined;
  const exact = FACE_MATCH_MESSAGES.find((m) => m.toLowerCase() === text.trim().toLowerCase());
  return exact ?? FACE_REASONS.find(([re]) => re.test(text))?.[1];
}

/**
 * Every failed facial check is FACE_MATCH_FAILED with one of six messages (interface §7.3, decisions §4), whatever
 * the result value or a mapping row said: the message the row gives or the upstream's reason when it reads as one
 * of them; otherwise "did not match" for a NO_MATCH, "could not complete" for the rest.
 */
function faceAnswer(result: string, answer: ProviderAnswer, reason: string | undefined): ProviderAnswer {
  if (answer.outcome !== 'failed') return answer;
  const { fields: _fields, ...rest } = answer;
  const fallback = result === 'NO_MATCH' ? FACE_DID_NOT_MATCH : FACE_NOT_COMPLETED;
  return { ...rest, errorCode: 'FACE_MATCH_FAILED', message: faceMessage(answer.message) ?? faceMessage(reason) ?? fallback };
}

/** Which request fields each kind sends as `query` (the protocol's list; nothing else leaves the service). */
function queryOf(kind: VerificationKind, r: Req): Record<string, unknown> {
  const pick = (...names: string[]) => Object.fromEntries(names.filter((n) => r[n] !== undefined && r[n] !== null).map((n) => [n, r[n]]));
  switch (kind) {
    case 'account': {
      const q = pick('accountNumber', 'bankCode', 'accountName', 'accountHolderType', 'identifiers');
      const country = String(r['country'] ?? '');
      if (country === 'GB' && typeof r['bankCode'] === 'string') q['sortCode'] = compactId(r['bankCode']);
      if (typeof r['accountNumber'] === 'string' && /^[A-Z]{2}\d{2}/i.test(compactId(r['accountNumber']))) {
        q['iban'] = compactId(r['accountNumber']).toUpperCase();
      }
      return q;
    }
    case 'phone':
      // The number as the service normalised it (E.164, phone-spec.ts), not as typed: one subscriber, one question.
      return { ...pick('phoneNumber', 'networkCode'), ...phoneSpec.baseFields(r as unknown as PhoneRequest) };
    case 'identity': {
      const v = isObject(r['validation']) ? r['validation'] : {};
      return { ...pick('idType', 'idNumber'), ...Object.fromEntries(['firstName', 'lastName', 'dateOfBirth'].filter((k) => v[k] !== undefined).map((k) => [k, v[k]])) };
    }
    case 'face':
      // The selfie never leaves the service: its digest, computed as the stored record's (face-spec.ts).
      return { ...pick('idNumber'), imageSha256: typeof r['selfieImage'] === 'string' ? selfieDigest(r) : null };
    case 'address':
      return pick('addressLine1', 'addressLine2', 'city', 'region', 'postalCode', 'subject');
  }
}

function fieldsOf(data: unknown): ProviderAnswer['fields'] {
  if (!isObject(data)) return {};
  const out: NonNullable<ProviderAnswer['fields']> = {};
  for (const k of ['accountName', 'bankName', 'fullName', 'firstName', 'lastName', 'middleName', 'dateOfBirth'] as const) {
    const v = str(data[k]);
    if (v !== undefined) out[k] = v;
  }
  if (data['address'] !== undefined) (out as Record<string, unknown>)['address'] = data['address'];
  return out;
}

export function defaultGenericAnswer(kind: VerificationKind, request: Req, result: string, reason: string | undefined, data: unknown): ProviderAnswer | null {
  switch (result) {
    case 'MATCH':
      return { outcome: 'success', fields: fieldsOf(data) };
    case 'NO_MATCH': {
      const namedCheck = kind === 'account' && typeof request['accountName'] === 'string';
      const bankName = isObject(data) ? str(data['bankName']) : undefined;
      return {
        outcome: 'failed',
        errorCode: 'VERIFICATION_FAILED',
        message: namedCheck ? 'The account name does not match the name held by the bank.' : (reason ?? 'The details do not match the record.'),
        ...(bankName ? { fields: { bankName } } : {}),
      };
    }
    case 'NOT_FOUND':
      return { outcome: 'failed', errorCode: NOT_FOUND[kind], ...(NOT_FOUND_MESSAGE[kind] ? { message: NOT_FOUND_MESSAGE[kind] } : {}) };
    case 'INCONCLUSIVE':
      return { outcome: 'error', errorCode: 'INCONCLUSIVE' };
    case 'INVALID':
      return { outcome: 'failed', errorCode: INVALID[kind], ...(reason && INVALID[kind] === 'VERIFICATION_FAILED' ? { message: reason.slice(0, 300) } : {}) };
    default:
      return null;
  }
}

export const genericAdapter: LiveAdapter = {
  name: 'generic',
  kinds: ['account', 'phone', 'identity', 'face', 'address'],
  build(kind, request, verificationId) {
    return {
      path: `/v1/checks/${kind}`,
      headers: { 'idempotency-key': verificationId },
      idempotencyKey: verificationId,
      body: { reference: verificationId, kind, country: String(request['country'] ?? ''), query: queryOf(kind, request) },
    };
  },
  read(kind, request, json, mapping) {
    if (!isObject(json) || typeof json['result'] !== 'string') return null;
    const result = json['result'];
    const reason = str(json['reason']);
    const fallback = defaultGenericAnswer(kind, request, result, reason, json['data']);
    const row = mapping?.[result];
    if (!fallback && !row) return null;
    const answer = mapped(row, fallback ?? { outcome: 'error', errorCode: 'VERIFICATION_ERROR' });
    return kind === 'face' ? faceAnswer(result, answer, reason) : answer;
  },
};
