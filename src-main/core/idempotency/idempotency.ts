// Idempotency keys (interface §7.4, decisions §8): scope = organization + environment, fingerprint = method,
// path and canonical JSON of the body. The first request holds the key while it executes; a duplicate in
// flight gets 409 IDEMPOTENCY_IN_PROGRESS, a different body 409 IDEMPOTENCY_KEY_CONFLICT, a finished one a replay.
//
// Two ways to hold a key, by store:
// - SQLite (one process per data folder): in memory; only the finished answer is written, with the effects.
// - PostgreSQL (a team server: any number of instances on one database): a claim row in the database, renewed
//   while the request runs; the answer is written over it with the effects (docs/team-server.md, "Idempotency and
//   rate limits across instances").
import { createHash } from 'node:crypto';
import { AppError } from '../../../src-shared/app-error';
import type { CoreDeps } from '../context';
import { faultPoint } from '../fault-points';
import type { SqlQueries, TransactionOptions } from '../../store/sql-port';

export const RETENTION_MS = 24 * 3600 * 1000;
/**
 * Shared store: how long a claim holds its key without being renewed. The instance that runs the request renews it
 * every CLAIM_RENEW_MS, so a request of any length keeps it; a claim of an instance that died (or lost the
 * database for this long) expires, and the next retry of the key executes.
 */
export const CLAIM_LEASE_MS = 60_000;
export const CLAIM_RENEW_MS = 20_000;
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
  /** Options of the transaction that runs persist() (a charge names its organization's queue: billing.chargeQueue). */
  persistOptions?: TransactionOptions;
  /** JSON.stringify(body), when persist() has it already (read after persist). */
  bodyJson?: string;
  /**
   * Called once the transaction that ran persist() has ended, before the answer is returned: `committed` (and
   * durable) or not (it failed, or never ran). What persist() set up for after its commit (a job handed to this
   * process's worker, JobHandOff) starts or is given back here.
   */
  afterCommit?: (committed: boolean) => void;
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
  if (storeIsShared(deps)) return runClaimed(deps, scope, key, fp, exec);
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
  let body: string;
  try {
    body = await commitAnswer(deps, result, (tx, text) => storeResponse(tx, deps, scope, key, fp, result.statusCode, text));
  } finally {
    releaseIdempotent(deps, scope, key);
  }
  faultPoint('after-commit-before-response');
  return { statusCode: result.statusCode, body, replayed: false };
}

/**
 * The request's writes (persist) and its stored answer (`store`, given the answer's text) in one transaction; then
 * `afterCommit`, committed or not. Returns the answer's text.
 */
async function commitAnswer(deps: Pick<CoreDeps, 'sql'>, result: Executed, store: (tx: SqlQueries, body: string) => Promise<void>): Promise<string> {
  let body = '';
  let committed = false;
  try {
    await deps.sql.transaction(async (tx) => {
      if (result.persist) await result.persist(tx);
      // Serialised after persist(): a write may complete the answer (a charge taken in this same transaction).
      body = result.bodyJson ?? JSON.stringify(result.body);
      await store(tx, body);
    }, result.persistOptions);
    committed = true;
  } finally {
    result.afterCommit?.(committed);
  }
  return body;
}

// ---------------------------------------------------------------------------------------------------------------
// A store shared by several processes (PostgreSQL: a team server's instances). A key in flight must be seen by
// every instance, so it is a row: the request that inserts the `in_progress` row (its owner: this instance's boot id
// and a number of its own) executes; a duplicate on any instance reads the row and is answered from it. The answer
// overwrites the claim — on condition that this request still owns it — in the transaction of the request's
// effects, so effects and answer commit together as on SQLite, and a transaction run again after a serialization
// failure writes the same row again. A request that must not be stored deletes its claim. A claim is a lease,
// renewed while its request runs; one whose instance died expires, and then a retry may take it over.

/** PostgreSQL stores are shared: other instances may be serving from the same database at this moment. */
function storeIsShared(deps: Pick<CoreDeps, 'sql'>): boolean {
  return deps.sql.engine === 'postgres';
}

/** Claims of this process, numbered: with the boot id, each request's claim has an owner of its own. */
let claimSeq = 0;

// The claim: inserted unless a row exists. Read committed, so an insert that meets a row another transaction is
// inserting waits for it and, if it committed, does nothing (and the read that follows sees it).
const CLAIM = `INSERT INTO idempotency_keys (scope, idem_key, fingerprint, state, owner, status_code, body, created_at_ms, expires_at_ms)
       VALUES (?, ?, ?, 'in_progress', ?, NULL, NULL, ?, ?)
       ON CONFLICT (scope, idem_key) DO NOTHING`;
// An expired row (an answer past its retention, or the claim of an instance that stopped renewing it) is taken over
// by exactly one request: the condition is checked again on the row's latest version.
const TAKE_OVER = `UPDATE idempotency_keys SET fingerprint = ?, state = 'in_progress', owner = ?, status_code = NULL, body = NULL,
         created_at_ms = ?, expires_at_ms = ?
       WHERE scope = ? AND idem_key = ? AND expires_at_ms <= ?`;
const ANSWER_OVER_CLAIM = `UPDATE idempotency_keys SET state = 'done', status_code = ?, body = ?, created_at_ms = ?, expires_at_ms = ?
       WHERE scope = ? AND idem_key = ? AND owner = ?`;
const RENEW_CLAIM = "UPDATE idempotency_keys SET expires_at_ms = ? WHERE scope = ? AND idem_key = ? AND owner = ? AND state = 'in_progress'";
const RELEASE_CLAIM = "DELETE FROM idempotency_keys WHERE scope = ? AND idem_key = ? AND owner = ? AND state = 'in_progress'";

/**
 * A claim's own short transactions (claim, renewal, release): read committed, and committed without waiting for the
 * WAL flush. Losing one in a database crash is harmless: the WAL is written in order, so any durable effect of the
 * request (its charge, its record, its answer: synchronous commits) makes its earlier claim durable too; a claim lost
 * with nothing after it only lets a retry execute, which is right, and a lost release expires with its lease.
 */
function shortWrite<T>(deps: Pick<CoreDeps, 'sql'>, fn: (tx: SqlQueries) => Promise<T>): Promise<T> {
  return deps.sql.transaction(async (tx) => {
    await tx.exec('SET LOCAL synchronous_commit = off');
    return fn(tx);
  }, { isolation: 'read committed' });
}

/** Claims the key for this request (its owner string), or answers from the stored row (a replay, or throws). */
async function claimKey(deps: CoreDeps, scope: string, key: string, fp: string): Promise<{ owner: string } | IdempotentResponse> {
  const owner = `${deps.config.bootId}.${++claimSeq}`;
  // A row can vanish between the insert that met it and the read (its request failed and released it): try again.
  for (let attempt = 1; attempt <= 5; attempt++) {
    const now = deps.clock.now();
    const seen = await shortWrite(deps, async (tx): Promise<'claimed' | StoredKey | undefined> => {
      if ((await tx.run(CLAIM, [scope, key, fp, owner, now, now + CLAIM_LEASE_MS])).changes === 1) return 'claimed';
      const row = await tx.get<StoredKey>(READ_KEY, [scope, key]);
      if (!row || row.expires_at_ms > now) return row;
      const took = await tx.run(TAKE_OVER, [fp, owner, now, now + CLAIM_LEASE_MS, scope, key, now]);
      return took.changes === 1 ? 'claimed' : undefined;
    });
    if (seen === 'claimed') return { owner };
    // Unexpired (read at `now`): a replay, a conflict or in progress.
    const answer = seen && storedAnswer(seen, fp, now);
    if (answer?.kind === 'replay') return { statusCode: answer.statusCode, body: answer.body, replayed: true };
  }
  throw new AppError('IDEMPOTENCY_IN_PROGRESS');
}

/**
 * Writes the answer over this request's claim, in the transaction `tx` of its effects. A claim this request no
 * longer owns (its lease expired and another request took the key over) fails the transaction: its effects roll
 * back, and the client is told to retry with the same key (it then gets the other request's answer).
 */
async function answerOverClaim(tx: SqlQueries, deps: Pick<CoreDeps, 'clock'>, scope: string, key: string, owner: string, statusCode: number, body: string): Promise<void> {
  const now = deps.clock.now();
  const { changes } = await tx.run(ANSWER_OVER_CLAIM, [statusCode, body, now, now + RETENTION_MS, scope, key, owner]);
  if (changes !== 1) {
    throw new AppError('IDEMPOTENCY_IN_PROGRESS', { message: 'Another request took over this Idempotency-Key while this one ran. Retry shortly with the same key.' });
  }
}

/** Deletes this request's claim (it reached no storable answer); an answer already stored stays. */
async function releaseClaim(deps: CoreDeps, scope: string, key: string, owner: string): Promise<void> {
  try {
    await shortWrite(deps, (tx) => tx.run(RELEASE_CLAIM, [scope, key, owner]));
  } catch (err) {
    // The claim then expires with its lease.
    deps.log.warn({ err: (err as Error).message }, 'could not release an Idempotency-Key claim; it expires with its lease');
  }
}

/** Keeps the claim's lease while its request runs. */
function renewWhileRunning(deps: CoreDeps, scope: string, key: string, owner: string): () => void {
  const timer = setInterval(() => {
    const now = deps.clock.now();
    shortWrite(deps, (tx) => tx.run(RENEW_CLAIM, [now + CLAIM_LEASE_MS, scope, key, owner])).catch((err: unknown) => {
      deps.log.warn({ err: (err as Error).message }, 'could not renew an Idempotency-Key claim');
    });
  }, CLAIM_RENEW_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** runIdempotent on a shared store. */
async function runClaimed(deps: CoreDeps, scope: string, key: string, fp: string, exec: (early: EarlyResponse) => Promise<Executed>): Promise<IdempotentResponse> {
  const claimed = await claimKey(deps, scope, key, fp);
  if (!('owner' in claimed)) return claimed;
  const { owner } = claimed;
  const stopRenewing = renewWhileRunning(deps, scope, key, owner);
  let body: string;
  let statusCode: number;
  try {
    const result = await exec((tx, code, early) => answerOverClaim(tx, deps, scope, key, owner, code, JSON.stringify(early)));
    statusCode = result.statusCode;
    body = await commitAnswer(deps, result, (tx, text) => answerOverClaim(tx, deps, scope, key, owner, result.statusCode, text));
  } catch (err) {
    // Nothing storable (a refusal, a 5xx, a failed commit): the key is free again. An answer committed early (a
    // live async check's 202, with its charge) is not a claim any more and stays.
    stopRenewing();
    await releaseClaim(deps, scope, key, owner);
    throw err;
  }
  stopRenewing();
  faultPoint('after-commit-before-response');
  return { statusCode, body, replayed: false };
}
