// Idempotency keys (interface §7.4, decisions §8): scope = organization + environment, fingerprint = method,
// path and canonical JSON of the body. The first request holds the key while it executes; a duplicate in
// flight gets 409 IDEMPOTENCY_IN_PROGRESS, a different body 409 IDEMPOTENCY_KEY_CONFLICT, a finished one a replay.
import { createHash } from 'node:crypto';
import { AppError } from '../../../src-shared/app-error';
import type { CoreDeps } from '../context';
import { faultPoint } from '../fault-points';
import type { SqlQueries } from '../../store/sql-port';

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

interface StoredKey {
  fingerprint: string;
  state: 'in_progress' | 'done';
  status_code: number | null;
  body: string | null;
  expires_at_ms: number;
}

// Requests in flight are held in memory: the service is one process, so a key is "in progress" exactly while
// its request runs here. Only the finished response is written, in the same commit as the request's effects, so
// each request costs one durable commit and a crash mid-request leaves nothing that could block its retry.
// Keyed by the store's port (begin and release are called with the port, never a transaction's handle).
const inFlight = new WeakMap<object, Map<string, string>>();
function flights(deps: Pick<CoreDeps, 'sql'>): Map<string, string> {
  let m = inFlight.get(deps.sql);
  if (!m) {
    m = new Map();
    inFlight.set(deps.sql, m);
  }
  return m;
}

/** What a stored, unexpired key answers (throws a conflict or in-progress); undefined when none is stored. */
function storedAnswer(row: StoredKey | undefined, fp: string, now: number): IdemBegin | undefined {
  if (!row || row.expires_at_ms <= now) return undefined;
  if (row.fingerprint !== fp) throw new AppError('IDEMPOTENCY_KEY_CONFLICT');
  if (row.state === 'in_progress') throw new AppError('IDEMPOTENCY_IN_PROGRESS');
  return { kind: 'replay', statusCode: row.status_code ?? 200, body: row.body ?? '' };
}

const READ_KEY = 'SELECT fingerprint, state, status_code, body, expires_at_ms FROM idempotency_keys WHERE scope = ? AND idem_key = ?';

export async function beginIdempotent(deps: CoreDeps, scope: string, key: string, fp: string): Promise<IdemBegin> {
  const now = deps.clock.now();
  const id = `${scope}\n${key}`;
  const m = flights(deps);
  const held = m.get(id);
  if (held === undefined) {
    // The key is claimed before the stored answer is read (the read waits on the store): a request finishing
    // meanwhile releases its claim only after its answer committed, so whoever checks the claims first and reads
    // the store second never misses both (and never executes a finished request again).
    m.set(id, fp);
    let stored: IdemBegin | undefined;
    try {
      stored = storedAnswer(await deps.sql.get<StoredKey>(READ_KEY, [scope, key]), fp, now);
    } catch (err) {
      m.delete(id);
      throw err;
    }
    if (stored) {
      m.delete(id);
      return stored;
    }
    return { kind: 'execute' };
  }
  // Held by a request still running: its answer may already be stored (an early response, stored with its
  // charge), which a duplicate replays.
  const stored = storedAnswer(await deps.sql.get<StoredKey>(READ_KEY, [scope, key]), fp, now);
  if (stored) return stored;
  if (held !== fp) throw new AppError('IDEMPOTENCY_KEY_CONFLICT');
  throw new AppError('IDEMPOTENCY_IN_PROGRESS');
}

const WRITE_KEY = `INSERT INTO idempotency_keys (scope, idem_key, fingerprint, state, owner, status_code, body, created_at_ms, expires_at_ms)
       VALUES (?, ?, ?, 'done', ?, ?, ?, ?, ?)
       ON CONFLICT (scope, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'done', owner = excluded.owner,
         status_code = excluded.status_code, body = excluded.body, created_at_ms = excluded.created_at_ms,
         expires_at_ms = excluded.expires_at_ms`;

async function storeResponse(q: SqlQueries, deps: Pick<CoreDeps, 'clock' | 'config'>, scope: string, key: string, fp: string, statusCode: number, body: string): Promise<void> {
  const now = deps.clock.now();
  await q.run(WRITE_KEY, [scope, key, fp, deps.config.bootId, statusCode, body, now, now + RETENTION_MS]);
}

/**
 * Stores the response of a request that reached execution. A write: `deps.sql` is the transaction that wrote the
 * request's effects (`{ ...deps, sql: tx }`) where possible; given the port itself, it runs in a transaction of its own.
 */
export async function completeIdempotent(deps: CoreDeps, scope: string, key: string, fp: string, statusCode: number, body: string): Promise<void> {
  if (deps.sql.inTransaction) return storeResponse(deps.sql, deps, scope, key, fp, statusCode, body);
  return deps.sql.transaction((tx) => storeResponse(tx, deps, scope, key, fp, statusCode, body));
}

/** Frees a key whose request did not reach a storable outcome (validation failure before execution, 5xx). */
export function releaseIdempotent(deps: CoreDeps, scope: string, key: string): void {
  flights(deps).delete(`${scope}\n${key}`);
}

/** On start: keys held by a process that died are released, so their retries execute; expired keys are purged. */
export async function recoverIdempotency(deps: CoreDeps): Promise<{ released: number; purged: number }> {
  const now = deps.clock.now();
  return deps.sql.transaction(async (tx) => {
    const released = (await tx.run("DELETE FROM idempotency_keys WHERE state = 'in_progress' AND owner <> ?", [deps.config.bootId])).changes;
    const purged = (await tx.run('DELETE FROM idempotency_keys WHERE expires_at_ms <= ?', [now])).changes;
    return { released, purged };
  });
}

export interface Executed {
  statusCode: number;
  body: unknown;
  /**
   * The request's writes, through `tx` only; run in one transaction with the stored response, so both or neither
   * survive a crash. Awaits nothing but the store (store/service-port.ts).
   */
  persist?: (tx: SqlQueries) => Promise<void>;
  /** JSON.stringify(body), when persist() has it already (read after persist). */
  bodyJson?: string;
}

/** Stores a request's final response early, inside a transaction (`tx`) that writes its effects. */
export type EarlyResponse = (tx: SqlQueries, statusCode: number, body: unknown) => Promise<void>;

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
  const begun = await beginIdempotent(deps, scope, key, fp);
  if (begun.kind === 'replay') return { statusCode: begun.statusCode, body: begun.body, replayed: true };
  let result: Executed;
  try {
    // The final answer stored before execution ends, inside a transaction of the request's own (it must be the
    // same statusCode and body that exec() then returns; the commit below rewrites the same row).
    result = await exec((tx, statusCode, body) => storeResponse(tx, deps, scope, key, fp, statusCode, JSON.stringify(body)));
  } catch (err) {
    releaseIdempotent(deps, scope, key);
    throw err;
  }
  let body = '';
  try {
    await deps.sql.transaction(async (tx) => {
      if (result.persist) await result.persist(tx);
      // Serialised after persist(): a write may complete the answer (a charge taken in this same transaction).
      body = result.bodyJson ?? JSON.stringify(result.body);
      await storeResponse(tx, deps, scope, key, fp, result.statusCode, body);
    });
  } finally {
    releaseIdempotent(deps, scope, key);
  }
  faultPoint('after-commit-before-response');
  return { statusCode: result.statusCode, body, replayed: false };
}
