// The one flow every verification kind goes through: layer-1 validation (422), layer-2 format checks (recorded
// failure, never charged), billing gates and charge (live only), then the provider, synchronously or through the
// durable queue. Async completion writes the result, any reversal and its outbox event in one transaction.
import { AppError } from '../../../src-shared/app-error';
import { TRANSIENT_CODES, VERIFICATION_ERRORS, type VerificationErrorCode } from '../../../src-shared/errors';
import type { VerificationRecord } from '../../../src-shared/schemas/verification';
import { enqueue, JobHandOff } from '../../jobs/queue';
import { signalWork } from '../../store/group-commit';
import type { SqlQueries } from '../../store/sql-port';
import { iso } from '../clock';
import { faultPoint } from '../fault-points';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import type { Principal } from '../principal';
import { chargeQueue, chargeVerification, reverseCharge } from '../billing/billing';
import { provenanceOf } from './provenance';
import { getStored, insertVerification, updateVerification, updateVerificationIf, type StoredWithText } from './records';
import type { KindSpec, ProviderAnswer, ProviderContext, VerificationKind } from './types';
import { appendAudit } from '../audit/audit-log';
import { DeliveryHandOff, insertFannedOutEvent } from '../webhooks/deliveries';

export const VERIFICATION_JOB = 'verification.process';
/** Settles a charged live sync verification whose process died before the provider's answer was stored. */
export const SYNC_GUARD_JOB = 'verification.sync-guard';
/** How long a charged sync verification may stay pending before the guard reverses it (docs/billing.md). */
export const SYNC_GUARD_MS = 5 * 60_000;

/** Optional extras a kind may declare beyond KindSpec. */
export interface KindSpecExtras<Req> {
  /** The kind is always queued (address): the request needs no `mode`. */
  alwaysAsync?: boolean;
  /** What is stored as the request (e.g. a selfie replaced by its digest, so records stay small). */
  storedRequest?(req: Req): unknown;
}

function extras(spec: KindSpec<unknown>): KindSpecExtras<unknown> {
  return spec as KindSpec<unknown> & KindSpecExtras<unknown>;
}

export interface ProviderRegistry {
  ask(kind: VerificationKind, request: unknown, ctx: ProviderContext): Promise<ProviderAnswer>;
  /**
   * Throws (an AppError; or rejects) when no provider could answer this check, so it is refused before it is
   * charged. Called outside any transaction: it may read the store through the port.
   */
  ensureRoute?(kind: VerificationKind, request: unknown, ctx: ProviderContext): void | Promise<void>;
}

export interface VerificationRuntime {
  deps: CoreDeps;
  providers: ProviderRegistry;
  specs: Partial<Record<VerificationKind, KindSpec<unknown>>>;
  /** Nudges the queue worker after an enqueue commits. */
  wake(): void;
}

export interface Submitted {
  statusCode: 200 | 202;
  body: VerificationRecord;
  /** The submission's writes, through the caller's transaction `tx` (idempotency's Executed.persist). */
  persist: (tx: SqlQueries) => Promise<void>;
  /** Set by persist() when it stored the body as it is: its JSON text, so the answer is not serialised twice. */
  bodyJson?: string;
  /**
   * Called once the transaction that ran persist() has ended: committed and durable, or not (idempotency's
   * Executed.afterCommit). Whoever runs persist() must call it: a job handed to the worker (JobHandOff) holds one of
   * its slots until then.
   */
  afterCommit?: (committed: boolean) => void;
}

function specFor(rt: VerificationRuntime, kind: VerificationKind): KindSpec<unknown> {
  const spec = rt.specs[kind];
  if (!spec) throw new AppError('NOT_FOUND', { message: `Verification kind ${kind} is not available.` });
  return spec;
}

function messageFor(code: VerificationErrorCode, given?: string): string {
  const def = VERIFICATION_ERRORS[code] as { message: string; fixed?: boolean };
  // Six codes carry one fixed message whatever the provider said (interface §7.3 rule 1).
  if (def.fixed) return def.message;
  return given ?? def.message;
}

/** Applies a provider answer to a record: status, verified, error, result fields. */
export function applyAnswer(spec: KindSpec<unknown>, request: unknown, base: VerificationRecord, answer: ProviderAnswer, nowMs: number): VerificationRecord {
  const rec: VerificationRecord = { ...base, completedAt: iso(nowMs), source: answer.source ?? 'live' };
  if (answer.outcome === 'success') {
    rec.status = 'success';
    rec.verified = true;
    delete rec.error;
  } else {
    const code: VerificationErrorCode = answer.errorCode ?? (answer.outcome === 'error' ? 'VERIFICATION_ERROR' : 'VERIFICATION_FAILED');
    // INCONCLUSIVE and the transient codes are non-answers: status error (decisions doc, docs/api-decisions.md).
    rec.status = answer.outcome === 'error' || TRANSIENT_CODES.includes(code) || code === 'INCONCLUSIVE' ? 'error' : 'failed';
    rec.verified = false;
    rec.error = { code, message: messageFor(code, answer.message) };
  }
  Object.assign(rec, spec.answerFields(request, answer));
  return rec;
}

export async function submitVerification(
  rt: VerificationRuntime,
  p: Principal,
  kind: VerificationKind,
  request: unknown,
  opts: {
    async: boolean;
    /**
     * Stores the idempotent response inside the live charge's transaction (`tx`). Used for async live checks, whose
     * 202 is final at that point: a crash before the response is sent then leaves a key that replays it, never a
     * charged check that a retry would charge again.
     */
    respondWithCharge?: (tx: SqlQueries, statusCode: number, body: unknown) => Promise<void>;
  },
): Promise<Submitted> {
  const spec = specFor(rt, kind);
  const ext = extras(spec);
  const { deps } = rt;
  if (!spec.supported(request)) {
    throw new AppError('UNSUPPORTED_CORRIDOR', {
      details: [{ field: 'country', message: `${spec.country(request)} is not supported for ${kind} verification` }],
    });
  }
  const issues = spec.issues(request);
  if (issues.length > 0) throw new AppError('VALIDATION_ERROR', { details: issues });
  if (opts.async && !spec.asyncAllowed(request)) {
    throw new AppError('ASYNC_NOT_SUPPORTED', { details: [{ field: 'mode', message: 'this corridor is synchronous only' }] });
  }
  const isAsync = opts.async || ext.alwaysAsync === true;
  const now = deps.clock.now();
  const id = newId('ver');
  const base: VerificationRecord = {
    id,
    status: 'pending',
    verified: false,
    verificationType: spec.verificationType(request),
    identifier: spec.identifier(request),
    country: spec.country(request),
    ...spec.baseFields(request),
    environment: p.environment,
    mode: isAsync ? 'async' : 'sync',
    createdAt: iso(now),
    completedAt: null,
    charge: { amount: 0, currency: 'USD', status: 'not_charged' },
  };
  const stored = {
    kind,
    organizationId: p.organizationId,
    request: ext.storedRequest ? ext.storedRequest(request) : request,
    provenance: await provenanceOf(deps.sql, p),
  };
  // The pending record as its job's handler would read it back (getStored), for a job handed to this process's worker
  // (Job.local): `json` is the text stored. The handler copies the record before changing it (applyAnswer).
  const pendingAsStored = (record: VerificationRecord, json: string): StoredWithText => ({
    kind,
    organizationId: p.organizationId,
    environment: record.environment,
    request: stored.request,
    record,
    resultJson: json,
  });

  const format = spec.formatFailure(request);
  if (format) {
    const rec: VerificationRecord = {
      ...base,
      status: 'failed',
      verified: false,
      completedAt: iso(now),
      source: 'live',
      error: { code: format.code, message: messageFor(format.code, format.message) },
    };
    return {
      statusCode: 200,
      body: rec,
      persist: async (tx) => {
        const json = await insertVerification(tx, { ...stored, record: rec });
        // An async submission that ends at once still tells its webhooks (docs/api-decisions.md): integrations that
        // wait only for events must finish too.
        if (isAsync) await insertOutboxEvent(tx, p.organizationId, rec, now, json);
      },
    };
  }

  const live = p.environment === 'live';
  const pendingBody = {
    id: base.id,
    status: base.status,
    verificationType: base.verificationType,
    identifier: base.identifier,
    country: base.country,
    environment: base.environment,
    mode: base.mode,
    createdAt: base.createdAt,
  } as VerificationRecord;
  const ctx: ProviderContext = { environment: p.environment, verificationId: id, organizationId: p.organizationId, country: spec.country(request) };
  if (live) {
    // Billing (decisions §9): gates, debit and the pending record commit together BEFORE the provider is asked,
    // in one transaction, so concurrent requests serialise on the balance (on PostgreSQL they queue: chargeQueue). A
    // sync request also leaves a guard job behind: if this process dies before the answer is stored, the guard
    // reverses the charge.
    // Whether a provider could answer is asked before (it may read the store, which a transaction's callback must
    // not do but through its `tx`); its refusal is thrown after the billing gates (their order is decisions §9),
    // inside the transaction, so a gate's refusal still comes first and a route's refusal rolls the charge back.
    let noRoute: unknown = null;
    try {
      const checked = rt.providers.ensureRoute?.(kind, request, ctx);
      if (checked) await checked;
    } catch (err) {
      noRoute = err ?? new Error('no provider route');
    }
    // An async check's job is leased for this process's worker as it is written, and runs once the charge's
    // transaction is durable (JobHandOff).
    const jobs = isAsync ? new JobHandOff(deps.sql) : null;
    await deps.sql.transaction(async (tx) => {
      // A body run again (PostgreSQL, after a serialization failure): the previous run's leases were rolled back.
      jobs?.reset();
      base.charge = await chargeVerification(tx, { organizationId: p.organizationId, service: spec.serviceKey(request), verificationId: id, nowMs: now });
      if (noRoute !== null) throw noRoute;
      const json = await insertVerification(tx, { ...stored, record: base });
      // Every live check is in the audit trail (a summary; docs/audit.md), in the transaction of its charge.
      await appendAudit({ ...deps, sql: tx }, p.organizationId, {
        action: 'verification.live_check',
        target: { type: 'verification', id },
        detail: { kind, country: base.country, verificationType: base.verificationType, mode: base.mode, charge: { amount: base.charge.amount, currency: base.charge.currency } },
      });
      if (jobs) {
        await jobs.enqueue(tx, now, VERIFICATION_JOB, { verificationId: id }, { id: `job_${id}`, maxAttempts: 20, local: pendingAsStored(base, json) });
        await opts.respondWithCharge?.(tx, 202, pendingBody);
      } else await enqueue(tx, now, SYNC_GUARD_JOB, { verificationId: id }, { id: `guard_${id}`, runAtMs: now + SYNC_GUARD_MS, maxAttempts: 20 });
      // Queued behind the organization's other charges (PostgreSQL): each writes the wallet's row and the audit chain's
      // head, and run side by side they failed each other until one ran out of retries.
    }, { queue: chargeQueue(p.organizationId) }).catch((err: unknown) => {
      jobs?.reset();
      throw err;
    });
    jobs?.start(rt.wake);
    faultPoint('after-charge');
  }

  if (isAsync) {
    // Live: the job was written with the charge, above.
    if (live) return { statusCode: 202, body: pendingBody, persist: async () => undefined };
    // The job is leased for this process's worker as it is written, and runs once the submission is durable: no
    // claim and no wake-up (JobHandOff). Without a free slot it is written queued, and the worker is woken for it.
    const jobs = new JobHandOff(deps.sql);
    return {
      statusCode: 202,
      body: pendingBody,
      persist: async (tx) => {
        // A body run again (PostgreSQL, after a serialization failure): the previous run's leases were rolled back.
        jobs.reset();
        const json = await insertVerification(tx, { ...stored, record: base });
        await jobs.enqueue(tx, now, VERIFICATION_JOB, { verificationId: id }, { id: `job_${id}`, maxAttempts: 20, local: pendingAsStored(base, json) });
      },
      afterCommit: (committed) => (committed ? jobs.start(rt.wake) : jobs.reset()),
    };
  }

  const answer = await askSafely(rt, kind, request, ctx);
  if (!live) {
    const rec = applyAnswer(spec, request, base, answer, deps.clock.now());
    const out: Submitted = {
      statusCode: 200,
      body: rec,
      persist: async (tx) => {
        out.bodyJson = await insertVerification(tx, { ...stored, record: rec });
      },
    };
    return out;
  }
  const doneAt = deps.clock.now();
  const rec = withChargeOutcome(applyAnswer(spec, request, base, answer, doneAt));
  // Settled together with the stored idempotent response; if the guard already settled it (the answer came after
  // SYNC_GUARD_MS), the conditional update changes nothing and the reversal cannot repeat — and the caller gets
  // what is stored (the guard's reversed error), not the late answer: the body is serialised after persist().
  return {
    statusCode: 200,
    body: rec,
    persist: async (tx) => {
      const outcome = await settle(rt, tx, id, () => rec, doneAt, false);
      if (outcome.applied || !outcome.record) return;
      for (const k of Object.keys(rec)) delete (rec as unknown as Record<string, unknown>)[k];
      Object.assign(rec, outcome.record);
    },
  };
}

/** A provider that throws is a non-answer, not a 500: the record still ends, and a live charge is reversed. */
async function askSafely(rt: VerificationRuntime, kind: VerificationKind, request: unknown, ctx: ProviderContext): Promise<ProviderAnswer> {
  let answer: ProviderAnswer;
  try {
    answer = await rt.providers.ask(kind, request, ctx);
  } catch (err) {
    rt.deps.log.warn({ err, verificationId: ctx.verificationId }, 'provider failed');
    return { outcome: 'error', errorCode: 'VERIFICATION_ERROR' };
  }
  faultPoint('after-upstream');
  return answer;
}

/** The record's charge after the outcome: a non-answer (status error) is reversed (interface §1.6). */
function withChargeOutcome(rec: VerificationRecord): VerificationRecord {
  if (rec.status === 'error' && rec.charge.status === 'charged') return { ...rec, charge: { ...rec.charge, status: 'reversed' } };
  return rec;
}

/** A record as read before its transaction: reused when the stored text has not changed since. */
interface ReadBefore {
  resultJson: string;
  record: VerificationRecord;
  request: unknown;
  organizationId: string;
}

/**
 * Writes the final record of a still-pending verification, reversing its charge when the outcome is a non-answer,
 * and (async) its outbox event — all in one transaction: the caller's when `q` is a transaction's handle, else one
 * of its own. Does nothing when the record is no longer pending, so the queue's at-least-once delivery, the sync
 * guard and a late answer can all call it safely. `before`: the record as the caller read it; the update is then
 * conditional on its stored text being unchanged (updateVerificationIf), and only if it changed is it read again.
 */
function settle(
  rt: VerificationRuntime,
  q: SqlQueries,
  verificationId: string,
  finish: (pending: VerificationRecord, request: unknown) => VerificationRecord,
  nowMs: number,
  emitEvent: boolean,
  before?: ReadBefore,
  /** The event's deliveries are leased for this process's dispatcher (processVerification starts them). */
  handOff: DeliveryHandOff | null = null,
): Promise<Settled> {
  // Inside the caller's transaction no savepoint of its own: a failure here fails the caller's whole write.
  if (q.inTransaction) return settleIn(rt, q, verificationId, finish, nowMs, emitEvent, before, handOff);
  return q.transaction((tx) => settleIn(rt, tx, verificationId, finish, nowMs, emitEvent, before, handOff));
}

interface Settled {
  applied: boolean;
  record: VerificationRecord | null;
}

async function settleIn(
  rt: VerificationRuntime,
  tx: SqlQueries,
  verificationId: string,
  finish: (pending: VerificationRecord, request: unknown) => VerificationRecord,
  nowMs: number,
  emitEvent: boolean,
  before: ReadBefore | undefined,
  handOff: DeliveryHandOff | null,
): Promise<Settled> {
  if (before && before.record.status === 'pending') {
    // The record as read before, if its stored text has not changed since: the update checks it itself, so the
    // common case reads nothing here.
    const rec = withChargeOutcome(finish(before.record, before.request));
    const json = JSON.stringify(rec);
    if (await updateVerificationIf(tx, rec, json, before.resultJson)) return applied(tx, verificationId, rec, json, before.organizationId, nowMs, emitEvent, handOff);
  }
  const fresh = await getStored(tx, verificationId);
  if (!fresh || fresh.record.status !== 'pending') return { applied: false, record: fresh?.record ?? null };
  const rec = withChargeOutcome(finish(fresh.record, fresh.request));
  const json = JSON.stringify(rec);
  await updateVerification(tx, rec, json);
  return applied(tx, verificationId, rec, json, fresh.organizationId, nowMs, emitEvent, handOff);
}

/** After the final record is written: the charge's reversal if it is one, and (async) the event. */
async function applied(
  tx: SqlQueries,
  verificationId: string,
  rec: VerificationRecord,
  json: string,
  organizationId: string,
  nowMs: number,
  emitEvent: boolean,
  handOff: DeliveryHandOff | null,
): Promise<Settled> {
  if (rec.charge.status === 'reversed') await reverseCharge(tx, verificationId, nowMs);
  if (emitEvent) await insertOutboxEvent(tx, organizationId, rec, nowMs, json, handOff);
  return { applied: true, record: rec };
}

/**
 * The verification's event (interface §6) into the outbox, with its webhook deliveries, in the caller's transaction
 * `tx` (insertFannedOutEvent: the dispatcher then only claims them). `recJson`: JSON.stringify(rec).
 */
async function insertOutboxEvent(
  tx: SqlQueries,
  organizationId: string,
  rec: VerificationRecord,
  nowMs: number,
  recJson: string = JSON.stringify(rec),
  handOff: DeliveryHandOff | null = null,
): Promise<void> {
  const event = rec.status === 'success' ? 'verification.completed' : 'verification.failed';
  const at = iso(nowMs);
  // JSON.stringify({ event, verificationId, organizationId, timestamp, data: rec }), with the record's text reused.
  const payload = `{"event":${JSON.stringify(event)},"verificationId":${JSON.stringify(rec.id)},"organizationId":${JSON.stringify(organizationId)},"timestamp":${JSON.stringify(at)},"data":${recJson}}`;
  const { made, leased, ownSlot } = await insertFannedOutEvent(
    tx,
    { id: newId('evt'), organization_id: organizationId, environment: rec.environment, event_type: event, verification_id: rec.id, payload, created_at: at },
    nowMs,
    handOff,
  );
  // Wakes the webhook dispatcher once this transaction has committed, for the deliveries it is to claim — except on
  // SQLite for those its own webhook's slots will claim (FannedOut.ownSlot): a signal makes it claim across every
  // webhook, which reads past that webhook's whole backlog to find none of another's. On PostgreSQL the signal also
  // reaches the other instances, which cap themselves and may have room.
  if (made > leased + (tx.engine === 'postgres' ? 0 : ownSlot)) signalWork(tx, 'outbox');
}

/**
 * Completes a pending async verification; safe to run twice (at-least-once queue). The provider is asked outside
 * any transaction; the result is written in one. `completeWith`: the queue's wrapper that completes the job in the
 * same transaction as the result (Job.completeWith).
 */
export async function processVerification(
  rt: VerificationRuntime,
  verificationId: string,
  completeWith: (write: (tx: SqlQueries) => Promise<void>) => (tx: SqlQueries) => Promise<void> = (write) => write,
  /**
   * The pending record as its submission wrote it, for a job handed over as it was written (Job.local): not read
   * back. Its result is written only if the stored text is still this one (updateVerificationIf), else read again.
   */
  known?: StoredWithText,
): Promise<void> {
  const { deps } = rt;
  const stored = known ?? (await getStored(deps.sql, verificationId));
  if (!stored || stored.record.status !== 'pending' || stored.record.mode !== 'async') return;
  const spec = specFor(rt, stored.kind);
  const answer = await askSafely(rt, stored.kind, stored.request, {
    environment: stored.record.environment,
    verificationId,
    organizationId: stored.organizationId,
    country: stored.record.country,
  });
  // Our own cancellation (the service is stopping) is no answer for a queued check: the job stays queued and
  // asks again after restart, with the same upstream idempotency key (docs/providers.md).
  // (A provider that answers VERIFICATION_CANCELLED itself, e.g. a sandbox fixture, is a final answer.)
  if (answer.interrupted) throw new Error('upstream call cancelled: the service is stopping');
  const now = deps.clock.now();
  // Through the group commit: concurrent completions share one fsync, and the job's completion rides the same write.
  // The event's deliveries are leased for this process's dispatcher as they are written, and start once the write is
  // durable: they need no claim (DeliveryHandOff).
  const handOff = new DeliveryHandOff(deps);
  try {
    await deps.sql.transaction(
      completeWith(async (tx) => {
        // A body run again (PostgreSQL, after a serialization failure): the previous run's leases were rolled back.
        handOff.reset();
        await settle(rt, tx, verificationId, (pending, request) => applyAnswer(spec, request, pending, answer, now), now, true, stored, handOff);
      }),
    );
  } catch (err) {
    handOff.reset();
    throw err;
  }
  handOff.start();
}

/**
 * The sync guard (SYNC_GUARD_JOB): a charged sync verification still pending SYNC_GUARD_MS after submission
 * belongs to a request whose process died (or whose provider never answered). It ends as `error`
 * VERIFICATION_ERROR and its charge is reversed exactly once. No event: sync requests have none.
 */
export async function resolveStaleSync(rt: VerificationRuntime, verificationId: string): Promise<void> {
  const stored = await getStored(rt.deps.sql, verificationId);
  if (!stored || stored.record.status !== 'pending' || stored.record.mode !== 'sync') return;
  const spec = specFor(rt, stored.kind);
  const now = rt.deps.clock.now();
  await settle(rt, rt.deps.sql, verificationId, (pending, request) => applyAnswer(spec, request, pending, { outcome: 'error', errorCode: 'VERIFICATION_ERROR' }, now), now, false);
}
