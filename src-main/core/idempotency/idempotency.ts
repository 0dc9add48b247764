// Idempotency keys (interface §7.4, decisions §8): scope = organization + environment, fingerprint = method,
// path and canonical JSON of the body. The first request holds the key while it executes; a duplicate in
// flight gets 409 IDEMPOTENCY_IN_PROGRESS, a different body 409 IDEMPOTENCY_KEY_CONFLICT, a finished one a replay.
import { createHash } from 'node:crypto';
import { AppError } from '../../../src-shared/app-error';
import type { CoreDeps } from '../context';
import { faultPoint } from '../fault-points';

export const RETENTION_MS = 24 * 3600 * 1000;
const KEY_RE = /^[\x20-\x7e]{1,255}$/;

const FIELD = 'Idempotency-Key';

/** Why a key is refused, in words that say what to change (decisions §1: every 422 carries details). */
function keyProblem(raw: string): string | null {
  if (raw.length === 0) return 'is empty; send 1 to 255 printable ASCII characters';
  if (raw.length > 255) return `is ${raw.length} characters long; at most 255`;
  const bad = [...raw].findIndex((c) => c < '\x20' || c > '\x7e');
  if (bad >= 0) return `holds a character outside printable ASCII (0x20-0x7E) at position ${bad + 1}`;
  if (raw.trim() === '') return 'holds only spaces';
  return null;
}

export function validateIdempotencyKey(raw: string | string[] | undefined): string {
  if (raw === undefined) throw new AppError('IDEMPOTENCY_KEY_REQUIRED', { details: [{ field: FIELD, message: 'is required on this request; send a unique key per operation' }] });
  // Two headers arrive as an array (or a comma-joined string): ambiguous, so invalid.
  if (Array.isArray(raw)) throw new AppError('IDEMPOTENCY_KEY_INVALID', { message: 'Send exactly one Idempotency-Key header.', details: [{ field: FIELD, message: 'was sent more than once; send it exactly once' }] });
  const problem = KEY_RE.test(raw) && raw.trim() !== '' ? null : keyProblem(raw) ?? 'is not 1 to 255 printable ASCII characters';
  if (problem) throw new AppError('IDEMPOTENCY_KEY_INVALID', { details: [{ field: FIELD, message: problem }] });
  return raw;
}

/** JSON with object keys sorted, so that key order does not change the fingerprint. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Built by concatenation (no intermediate arrays): it runs on every idempotent request.
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + canonicalJson(v);
    first = false;
  }
  return `${out}}`;
}

export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${canonicalJson(body)}`).digest('hex');
}

export type IdemBegin = { kind: 'execute' } | { kind: 'replay'; statusCode: number; body: string };

// Requests in flight are held in memory: the service is one process, so a key is "in progress" exactly while
// its request runs here. Only the finished response is written, in the same commit as the request's effects, so
// each request costs one durable commit and a crash mid-request leaves nothing that could block its retry.
const inFlight = new WeakMap<object, Map<string, string>>();
function flights(deps: CoreDeps): Map<string, string> {
  let m = inFlight.get(deps.db);
  if (!m) {
    m = new Map();
    inFlight.set(deps.db, m);
  }
  return m;
}

export function beginIdempotent(deps: CoreDeps, scope: string, key: string, fp: string): IdemBegin {
  const now = deps.clock.now();
  const row = deps.db
    .prepare('SELECT fingerprint, state, status_code, body, expires_at_ms FROM idempotency_keys WHERE scope = ? AND idem_key = ?')
    .get(scope, key) as
    | { fingerprint: string; state: 'in_progress' | 'done'; status_code: number | null; body: string | null; expires_at_ms: number }
    | undefined;
  if (row && row.expires_at_ms > now) {
    if (row.fingerprint !== fp) throw new AppError('IDEMPOTENCY_KEY_CONFLICT');
    if (row.state === 'in_progress') throw new AppError('IDEMPOTENCY_IN_PROGRESS');
    return { kind: 'replay', statusCode: row.status_code ?? 200, body: row.body ?? '' };
  }
  const id = `${scope}\n${key}`;
  const held = flights(deps).get(id);
  if (held !== undefined) {
    if (held !== fp) throw new AppError('IDEMPOTENCY_KEY_CONFLICT');
    throw new AppError('IDEMPOTENCY_IN_PROGRESS');
  }
  flights(deps).set(id, fp);
  return { kind: 'execute' };
}

/** Stores the response of a request that reached execution; called inside the transaction that wrote its effects where possible. */
export function completeIdempotent(deps: CoreDeps, scope: string, key: string, fp: string, statusCode: number, body: string): void {
  const now = deps.clock.now();
  deps.db
    .prepare(
      `INSERT INTO idempotency_keys (scope, idem_key, fingerprint, state, owner, status_code, body, created_at_ms, expires_at_ms)
       VALUES (?, ?, ?, 'done', ?, ?, ?, ?, ?)
       ON CONFLICT (scope, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'done', owner = excluded.owner,
         status_code = excluded.status_code, body = excluded.body, created_at_ms = excluded.created_at_ms,
         expires_at_ms = excluded.expires_at_ms`,
    )
    .run(scope, key, fp, deps.config.bootId, statusCode, body, now, now + RETENTION_MS);
}

/** Frees a key whose request did not reach a storable outcome (validation failure before execution, 5xx). */
export function releaseIdempotent(deps: CoreDeps, scope: string, key: string): void {
  flights(deps).delete(`${scope}\n${key}`);
}

/** On start: keys held by a process that died are released, so their retries execute; expired keys are purged. */
export function recoverIdempotency(deps: CoreDeps): { released: number; purged: number } {
  const released = deps.db
    .prepare("DELETE FROM idempotency_keys WHERE state = 'in_progress' AND owner <> ?")
    .run(deps.config.bootId).changes;
  const purged = deps.db.prepare('DELETE FROM idempotency_keys WHERE expires_at_ms <= ?').run(deps.clock.now()).changes;
  return { released, purged };
}

export interface Executed {
  statusCode: number;
  body: unknown;
  /** The request's writes; run in one transaction with the stored response, so both or neither survive a crash. */
  persist?: () => void;
  /** JSON.stringify(body), when persist() has it already (read after persist). */
  bodyJson?: string;
}

/** Stores a request's final response early, inside a transaction that writes its effects. */
export type EarlyResponse = (statusCode: number, body: unknown) => void;

export interface IdempotentResponse {
  statusCode: number;
  body: string;
  replayed: boolean;
}

/** The scope of a caller's keys (decisions §8): organization + environment. */
export function idempotencyScope(p: { organizationId: string; environment: string }): string {
  return `${p.organizationId}:${p.environment}`;
}

/** runIdempotent for a caller and a request: scope and fingerprint follow decisions §8. */
export function runIdempotentRequest(
  deps: CoreDeps,
  p: { organizationId: string; environment: string },
  key: string,
  request: { method: string; path: string; body: unknown },
  exec: (early: EarlyResponse) => Promise<Executed>,
): Promise<IdempotentResponse> {
  return runIdempotent(deps, idempotencyScope(p), key, fingerprint(request.method, request.path, request.body), exec);
}

export async function runIdempotent(
  deps: CoreDeps,
  scope: string,
  key: string,
  fp: string,
  exec: (early: EarlyResponse) => Promise<Executed>,
): Promise<IdempotentResponse> {
  const begun = beginIdempotent(deps, scope, key, fp);
  if (begun.kind === 'replay') return { statusCode: begun.statusCode, body: begun.body, replayed: true };
  let result: Executed;
  try {
    // The final answer stored before execution ends, inside a transaction of the request's own (it must be the
    // same statusCode and body that exec() then returns; the commit below rewrites the same row).
    result = await exec((statusCode, body) => completeIdempotent(deps, scope, key, fp, statusCode, JSON.stringify(body)));
  } catch (err) {
    releaseIdempotent(deps, scope, key);
    throw err;
  }
  let body = '';
  try {
    await deps.commit(() => {
      result.persist?.();
      // Serialised after persist(): a write may complete the answer (a charge taken in this same transaction).
      body = result.bodyJson ?? JSON.stringify(result.body);
      completeIdempotent(deps, scope, key, fp, result.statusCode, body);
    });
  } finally {
    releaseIdempotent(deps, scope, key);
  }
  faultPoint('after-commit-before-response');
  return { statusCode: result.statusCode, body, replayed: false };
}
