// What a live upstream adapter is: how to phrase one check as an HTTP exchange and how to read the upstream's
// answer back into ours. Transport, limits and retries are the same for every adapter (live-provider.ts).
import type { ResultMapping } from '../../../src-shared/schemas/providers';
import type { ProviderAnswer, VerificationKind } from '../../core/verification/types';

export type Req = Record<string, unknown>;

export interface UpstreamExchange {
  /** Appended to the provider's base URL. */
  path: string;
  body: unknown;
  /** Extra headers (the idempotency key under the scheme's header name, request ids). */
  headers: Record<string, string>;
  /** The value the upstream deduplicates on; equal for every attempt of one verification. */
  idempotencyKey: string;
}

export interface LiveAdapter {
  readonly name: 'generic' | 'epc-vop' | 'uk-cop';
  /** Kinds this adapter can answer; a route to any other kind answers VERIFICATION_ERROR. */
  readonly kinds: readonly VerificationKind[];
  /** `nowMs` (the service clock) stamps schemes that want a request time (EPC X-Request-Timestamp). */
  build(kind: VerificationKind, request: Req, verificationId: string, nowMs?: number): UpstreamExchange;
  /** The answer of a 2xx response; null when the body does not have the scheme's shape (malformed). */
  read(kind: VerificationKind, request: Req, json: unknown, mapping: Record<string, ResultMapping> | null): ProviderAnswer | null;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * An account number, IBAN, sort code or BIC without the separators the service's format checks accept in them
 * (src-shared/validators: spaces and dashes, e.g. `DE89-3704-…`, `5577-9911`, `20-00-00`): the form an upstream
 * scheme expects.
 */
export function compactId(v: unknown): string {
  return String(v ?? '').replace(/[\s-]/g, '');
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** Applies a configured mapping row on top of the adapter's default answer for one upstream result value. */
export function mapped(row: ResultMapping | undefined, fallback: ProviderAnswer): ProviderAnswer {
  if (!row) return fallback;
  const out: ProviderAnswer = { outcome: row.outcome };
  if (row.code) out.errorCode = row.code;
  if (row.message) out.message = row.message;
  if (row.outcome === 'success' && fallback.fields) out.fields = fallback.fields;
  return out;
}
