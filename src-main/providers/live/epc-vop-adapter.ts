// EPC Verification of Payee (SEPA name checks, docs/providers.md): POST {baseUrl}/payee-verifications in the EPC
// inter-PSP API shape (party.name, partyAccount.iban; answer partyNameMatch). MTCH → success, CMTC / NMTC → failed
// (the matched name of a close match is never returned: interface §2.3 echoes a name only when it matched),
// NOAP → INCONCLUSIVE (not charged).
import { createHash } from 'node:crypto';
import type { ProviderAnswer } from '../../core/verification/types';
import { compactId, isObject, mapped, str, type LiveAdapter } from './adapter';

/** A stable UUID (version 8, RFC 9562 custom) from our verification id: every attempt carries the same one. */
export function requestIdFor(verificationId: string): string {
  const h = createHash('sha256').update(`vop:${verificationId}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

export const VOP_ANSWERS: Record<string, ProviderAnswer> = {
  MTCH: { outcome: 'success' },
  CMTC: { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: 'The account name is a close match to, but not the same as, the name held by the bank.' },
  NMTC: { outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: 'The account name does not match the name held by the bank.' },
  NOAP: { outcome: 'error', errorCode: 'INCONCLUSIVE' },
};

/** BIC (ISO 9362): 8 or 11 characters; only then is `bankCode` the payee's agent. */
const BIC = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

export const epcVopAdapter: LiveAdapter = {
  name: 'epc-vop',
  kinds: ['account'],
  build(_kind, request, verificationId, nowMs = Date.now()) {
    const requestId = requestIdFor(verificationId);
    const name = String(request['accountName'] ?? '');
    const iban = compactId(request['accountNumber']).toUpperCase();
    const bic = compactId(request['bankCode']).toUpperCase();
    return {
      path: '/payee-verifications',
      // EPC inter-PSP API: the requester's reference (UUID) and the request time, ISO 8601 UTC with milliseconds.
      headers: { 'x-request-id': requestId, 'x-request-timestamp': new Date(nowMs).toISOString() },
      idempotencyKey: requestId,
      // Only the EPC shape: a strict responder may refuse fields it does not know. `requestingAgent` (our own BIC)
      // is not ours to know; a routing and verification mechanism (RVM) in front of the banks adds it.
      body: { party: { name }, partyAccount: { iban }, ...(BIC.test(bic) ? { partyAgent: { financialInstitutionId: { bicfi: bic } } } : {}) },
    };
  },
  read(_kind, _request, json, mapping) {
    if (!isObject(json)) return null;
    // partyNameMatch is the EPC API's field; verificationResult the earlier in-house protocol's, still read.
    const code = str(json['partyNameMatch']) ?? str(json['verificationResult']);
    if (!code) return null;
    const fallback = VOP_ANSWERS[code];
    const row = mapping?.[code];
    if (!fallback && !row) return null;
    return mapped(row, fallback ?? { outcome: 'error', errorCode: 'VERIFICATION_ERROR' });
  },
};
