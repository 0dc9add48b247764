// The one flow every verification kind goes through: layer-1 validation (422), layer-2 format checks (recorded
// failure, never charged), billing gates and charge (live only), then the provider, synchronously or through the
// durable queue. Async completion writes the result, any reversal and its outbox event in one transaction.
import { AppError } from '../../../src-shared/app-error';
import { TRANSIENT_CODES, VERIFICATION_ERRORS, type VerificationErrorCode } from '../../../src-shared/errors';
import type { VerificationRecord } from '../../../src-shared/schemas/verification';
import { enqueue } from '../../jobs/queue';
import { signalWork } from '../../store/group-commit';
import { iso } from '../clock';
import { faultPoint } from '../fault-points';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import type { Principal } from '../principal';
import { chargeVerification, reverseCharge } from '../billing/billing';
import { provenanceOf } from './provenance';
import { getResultJson, getStored, insertVerification, updateVerification } from './records';
import type { KindSpec, ProviderAnswer, ProviderContext, VerificationKind } from './types';
import { appendAudit } from '../audit/audit-log';

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
  /** Throws (an AppError) when no provider could answer this check, so it is refused before it is charged. */
  ensureRoute?(kind: VerificationKind, request: unknown, ctx: ProviderContext): void;
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
  persist: () => void;
  /** Set by persist() when it stored the body as it is: its JSON text, so the answer is not serialised twice. */
  bodyJson?: string;
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
     * Stores the idempotent response inside the live charge's transaction. Used for async live checks, whose 202 is
     * final at that point: a crash before the response is sent then leaves a key that replays it, never a charged
     * check that a retry would charge again.
     */
    respondWithCharge?: (statusCode: number, body: unknown) => void;
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
    provenance: provenanceOf(deps.db, p),
  };

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
      persist: () => {
        const json = insertVerification(deps.db, { ...stored, record: rec });
        // An async submission that ends at once still tells its webhooks (docs/api-decisions.md): integrations that
        // wait only for events must finish too.
        if (isAsync) insertOutboxEvent(deps, p.organizationId, rec, now, json);
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
    // in an immediate transaction so concurrent requests serialise on the balance. A sync request also leaves a
    // guard job behind: if this process dies before the answer is stored, the guard reverses the charge.
    deps.db
      .transaction(() => {
        base.charge = chargeVerification(deps.db, { organizationId: p.organizationId, service: spec.serviceKey(request), verificationId: id, nowMs: now });
        // After the billing gates (their order is decisions §9), inside the transaction: a refusal rolls the charge back.
        rt.providers.ensureRoute?.(kind, request, ctx);
        insertVerification(deps.db, { ...stored, record: base });
        // Every live check is in the audit trail (a summary; docs/audit.md), in the transaction of its charge.
        appendAudit(deps, p.organizationId, {
          action: 'verification.live_check',
          target: { type: 'verification', id },
          detail: { kind, country: base.country, verificationType: base.verificationType, mode: base.mode, charge: { amount: base.charge.amount, currency: base.charge.currency } },
        });
        if (isAsync) {
          enqueue(deps.db, now, VERIFICATION_JOB, { verificationId: id }, { id: `job_${id}`, maxAttempts: 20 });
          opts.respondWithCharge?.(202, pendingBody);
        } else enqueue(deps.db, now, SYNC_GUARD_JOB, { verificationId: id }, { id: `guard_${id}`, runAtMs: now + SYNC_GUARD_MS, maxAttempts: 20 });
      })
      .immediate();
    faultPoint('after-charge');
  }

  if (isAsync) {
    return {
      statusCode: 202,
      body: pendingBody,
      persist: () => {
        if (!live) {
          insertVerification(deps.db, { ...stored, record: base });
          enqueue(deps.db, now, VERIFICATION_JOB, { verificationId: id }, { id: `job_${id}`, maxAttempts: 20 });
        }
        queueMicrotask(() => rt.wake());
      },
    };
  }

  const answer = await askSafely(rt, kind, request, ctx);
  if (!live) {
    const rec = applyAnswer(spec, request, base, answer, deps.clock.now());
    const out: Submitted = {
      statusCode: 200,
      body: rec,
      persist: () => {
        out.bodyJson = insertVerification(deps.db, { ...stored, record: rec });
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
    persist: () => {
      const outcome = settle(rt, id, () => rec, doneAt, false);
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
 * and (async) its outbox event — all in one transaction. Does nothing when the record is no longer pending, so
 * the queue's at-least-once delivery, the sync guard and a late answer can all call it safely. `before`: the
 * record as the caller read it; inside the transaction only its stored text is read again, and parsed again only
 * if it changed.
 */
function settle(
  rt: VerificationRuntime,
  verificationId: string,
  finish: (pending: VerificationRecord, request: unknown) => VerificationRecord,
  nowMs: number,
  emitEvent: boolean,
  before?: ReadBefore,
): Settled {
  // One transaction wrapper per store: better-sqlite3 builds a new one (four functions) on every transaction() call.
  let tx = settleTx.get(rt.deps.db);
  if (!tx) {
    tx = rt.deps.db.transaction(settleIn).immediate as typeof settleIn;
    settleTx.set(rt.deps.db, tx);
  }
  return tx(rt, verificationId, finish, nowMs, emitEvent, before);
}

interface Settled {
  applied: boolean;
  record: VerificationRecord | null;
}

const settleTx = new WeakMap<object, typeof settleIn>();

function settleIn(
  rt: VerificationRuntime,
  verificationId: string,
  finish: (pending: VerificationRecord, request: unknown) => VerificationRecord,
  nowMs: number,
  emitEvent: boolean,
  before: ReadBefore | undefined,
): Settled {
  const { deps } = rt;
  let fresh: Pick<ReadBefore, 'record' | 'request' | 'organizationId'> | null = null;
  if (before) {
    const now = getResultJson(deps.db, verificationId);
    if (now === before.resultJson) fresh = before;
    else if (now !== null) fresh = getStored(deps.db, verificationId);
  } else fresh = getStored(deps.db, verificationId);
  if (!fresh || fresh.record.status !== 'pending') return { applied: false, record: fresh?.record ?? null };
  const rec = withChargeOutcome(finish(fresh.record, fresh.request));
  if (rec.charge.status === 'reversed') reverseCharge(deps.db, verificationId, nowMs);
  const json = JSON.stringify(rec);
  updateVerification(deps.db, rec, json);
  if (!emitEvent) return { applied: true, record: rec };
  insertOutboxEvent(deps, fresh.organizationId, rec, nowMs, json);
  return { applied: true, record: rec };
}

/** The verification's event (interface §6) into the outbox, in the caller's transaction. `recJson`: JSON.stringify(rec). */
function insertOutboxEvent(deps: CoreDeps, organizationId: string, rec: VerificationRecord, nowMs: number, recJson: string = JSON.stringify(rec)): void {
  const event = rec.status === 'success' ? 'verification.completed' : 'verification.failed';
  const at = iso(nowMs);
  // JSON.stringify({ event, verificationId, organizationId, timestamp, data: rec }), with the record's text reused.
  const payload = `{"event":${JSON.stringify(event)},"verificationId":${JSON.stringify(rec.id)},"organizationId":${JSON.stringify(organizationId)},"timestamp":${JSON.stringify(at)},"data":${recJson}}`;
  deps.db
    .prepare(
      `INSERT INTO outbox_events (id, organization_id, environment, event_type, verification_id, payload, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(newId('evt'), organizationId, rec.environment, event, rec.id, payload, at);
  // Wakes the webhook dispatcher once this transaction has committed, instead of it polling the outbox.
  signalWork(deps.db, 'outbox');
}

/**
 * Completes a pending async verification; safe to run twice (at-least-once queue). `completeWith`: the queue's
 * wrapper that completes the job in the same transaction as the result (Job.completeWith).
 */
export async function processVerification(
  rt: VerificationRuntime,
  verificationId: string,
  completeWith: (write: () => void) => () => void = (write) => write,
): Promise<void> {
  const { deps } = rt;
  const stored = getStored(deps.db, verificationId);
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
  // Through the group commit: concurrent completions share one fsync (settle's own transaction becomes a savepoint),
  // and the job's completion rides the same write.
  await deps.commit(
    completeWith(() => {
      settle(rt, verificationId, (pending, request) => applyAnswer(spec, request, pending, answer, now), now, true, stored);
    }),
  );
}

/**
 * The sync guard (SYNC_GUARD_JOB): a charged sync verification still pending SYNC_GUARD_MS after submission
 * belongs to a request whose process died (or whose provider never answered). It ends as `error`
 * VERIFICATION_ERROR and its charge is reversed exactly once. No event: sync requests have none.
 */
export async function resolveStaleSync(rt: VerificationRuntime, verificationId: string): Promise<void> {
  const stored = getStored(rt.deps.db, verificationId);
  if (!stored || stored.record.status !== 'pending' || stored.record.mode !== 'sync') return;
  const spec = specFor(rt, stored.kind);
  const now = rt.deps.clock.now();
  settle(rt, verificationId, (pending, request) => applyAnswer(spec, request, pending, { outcome: 'error', errorCode: 'VERIFICATION_ERROR' }, now), now, false);
}
