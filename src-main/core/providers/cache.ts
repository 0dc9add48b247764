// The cache of definitive live answers (success / failed): keyed by a hash of organization, kind and the normalised
// query, kept for the kind's time to live. Transient answers and INCONCLUSIVE never enter it.
import { createHash } from 'node:crypto';
import { TRANSIENT_CODES } from '../../../src-shared/errors';
import type { FaceRequest, PhoneRequest } from '../../../src-shared/schemas/verification-more';
import type { CoreDeps } from '../context';
import { faceSpec } from '../verification/face-spec';
import { phoneSpec } from '../verification/phone-spec';
import type { ProviderAnswer } from '../verification/types';

/** Request fields that change how a check runs, not what it asks. */
const NOT_PART_OF_QUERY = new Set(['mode']);

/** Case, spacing and key order do not make a different question. */
export function normaliseQuery(v: unknown): unknown {
  if (typeof v === 'string') return v.normalize('NFKC').trim().replace(/\s+/g, ' ').toUpperCase();
  if (Array.isArray(v)) return v.map(normaliseQuery);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      if (NOT_PART_OF_QUERY.has(k)) continue;
      const val = (v as Record<string, unknown>)[k];
      if (val === undefined || val === null || val === '') continue;
      out[k] = normaliseQuery(val);
    }
    return out;
  }
  return v;
}

/**
 * The question a request asks, as the upstream is asked it: a phone number in the service's normalised E.164 form
 * (phone-spec.ts, as the adapters send it), so +254712345678, 254712345678 and 0712345678 are one entry; a selfie
 * as its SHA-256 (face-spec.ts), not as base64 text, which the normalisation would upper-case (two images differing
 * only in the case of their base64 were one entry).
 */
function questionOf(kind: string, request: unknown): unknown {
  if (!request || typeof request !== 'object') return request;
  const r = request as Record<string, unknown>;
  if (kind === 'phone' && typeof r['phoneNumber'] === 'string' && typeof r['country'] === 'string') {
    return { ...r, ...phoneSpec.baseFields(r as unknown as PhoneRequest) };
  }
  if (kind === 'face' && typeof r['selfieImage'] === 'string') {
    const { selfieImage: _image, ...rest } = r;
    const { selfieSha256 } = faceSpec.storedRequest!(r as unknown as FaceRequest) as { selfieSha256: string };
    return { ...rest, selfieSha256: selfieSha256.toLowerCase() };
  }
  return request;
}

export function cacheKey(organizationId: string, kind: string, request: unknown): string {
  return createHash('sha256').update(JSON.stringify([organizationId, kind, normaliseQuery(questionOf(kind, request))])).digest('hex');
}

export function isCacheable(a: ProviderAnswer): boolean {
  if (a.outcome === 'success') return true;
  if (a.outcome !== 'failed') return false;
  const code = a.errorCode ?? 'VERIFICATION_FAILED';
  // The engine turns these into status error even when labelled failed: non-answers are never stored.
  return code !== 'INCONCLUSIVE' && !TRANSIENT_CODES.includes(code);
}

export async function readCache(deps: CoreDeps, key: string): Promise<ProviderAnswer | null> {
  const row = await deps.sql.get<{ answer: string; expires_at_ms: number }>('SELECT answer, expires_at_ms FROM verification_cache WHERE key = ?', [key]);
  if (!row || row.expires_at_ms <= deps.clock.now()) return null;
  return { ...(JSON.parse(row.answer) as ProviderAnswer), source: 'cache' };
}

export async function writeCache(
  deps: CoreDeps,
  key: string,
  organizationId: string,
  kind: string,
  answer: ProviderAnswer,
  ttlSeconds: number,
): Promise<void> {
  if (ttlSeconds <= 0 || !isCacheable(answer)) return;
  const now = deps.clock.now();
  const { source: _s, ...stored } = answer;
  const json = JSON.stringify(stored);
  await deps.sql.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO verification_cache (key, organization_id, kind, answer, stored_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET answer = excluded.answer, stored_at_ms = excluded.stored_at_ms, expires_at_ms = excluded.expires_at_ms`,
      [key, organizationId, kind, json, now, now + ttlSeconds * 1000],
    );
    // Expired rows are dropped as new ones arrive, so the table stays bounded by what is live.
    await tx.run('DELETE FROM verification_cache WHERE expires_at_ms <= ?', [now]);
  });
}
