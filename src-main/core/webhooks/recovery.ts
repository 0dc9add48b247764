// Recovery (docs/webhooks.md "Recovery"; an extension beyond interface §3.2, which keeps events of a failed
// period from being redelivered automatically): on request, every event of a chosen period is redelivered to one
// webhook as a NEW delivery linked to its original event, signed fresh at each attempt, on the normal retry
// schedule. The rows are written in one transaction and the dispatcher delivers them like any other, so a
// restart in the middle resumes where it stopped and each event of the period is delivered once.
import { AppError } from '../../../src-shared/app-error';
import type { RecoveryPreview, RecoveryRequest, RecoveryResult } from '../../../src-shared/schemas/webhooks';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import type { CoreRuntime } from '../runtime';
import { signalWork } from '../../store/group-commit';
import { fanOut } from './deliveries';
import { countEventsInPeriod, lastFailureStartMs, resolveWebhookFailure } from './failures';
import { getRow, toWebhook, type Scope, type WebhookRow } from './webhooks-service';
import { appendAudit } from '../audit/audit-log';
import { perEngine } from '../../store/pg/dialect';

/**
 * Most events one recovery queues. Its rows are written in one transaction (what makes "once each" hold), which
 * takes about 1 s per 10,000 events here and holds the store's write lock meanwhile; a longer period is split.
 */
export const MAX_RECOVERY_EVENTS = 50_000;

interface Period {
  sinceMs: number;
  untilMs: number;
}

function parseInstant(field: 'since' | 'until', raw: string): number {
  const t = Date.parse(raw);
  // Date.parse accepts much more than ISO 8601; a date or date-time with an explicit form is what we document.
  if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(raw)) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field, message: 'must be an ISO 8601 date or date-time, e.g. 2026-11-24T09:00:00Z' }] });
  }
  return t;
}

/** The period a request names: since defaults to the start of the last failure, until to (and at most) now. */
async function periodOf(deps: CoreDeps, hook: WebhookRow, req: RecoveryRequest): Promise<Period> {
  const nowMs = deps.clock.now();
  let sinceMs: number;
  if (req.since !== undefined) sinceMs = parseInstant('since', req.since);
  else {
    const start = await lastFailureStartMs(deps, hook.id);
    if (start === null) {
      throw new AppError('VALIDATION_ERROR', { details: [{ field: 'since', message: 'this webhook never failed: give the start of the period' }] });
    }
    sinceMs = start;
  }
  // Events after now reach an active webhook by the normal path; a recovery never reaches into the future.
  const untilMs = Math.min(req.until !== undefined ? parseInstant('until', req.until) : nowMs + 1, nowMs + 1);
  if (sinceMs > nowMs) {
    // The start is what is wrong here, whatever until says: name it, so the console shows the error under "From".
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'since', message: 'is in the future: a recovery redelivers events already sent' }] });
  }
  if (untilMs <= sinceMs) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'until', message: 'the period is empty: until must be after since' }] });
  }
  return { sinceMs, untilMs };
}

// An event counts as taken care of when this webhook acknowledged it (2xx on its original delivery or on an earlier
// recovery's) or still has a pending delivery for it; everything else in the period is sent again.
// Two EXISTS rather than one with OR, so that each probes its own index ((webhook_id, event_id) and
// (webhook_id, original_event_id)): the check stays linear in the period's events, not events × deliveries.
const HANDLED = `(EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = @webhookId AND d.event_id = e.id AND d.status IN ('success','pending'))
  OR EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = @webhookId AND d.original_event_id = e.id AND d.status IN ('success','pending')))`;
const PERIOD = perEngine(
  (d) => `e.organization_id = @org AND e.environment = @env AND e.created_at >= @since AND e.created_at < @until
  AND e.event_type IN ${d.jsonArrayValues('@events')}`,
);
const SKIPPED = perEngine((d) => `SELECT count(*) AS n FROM outbox_events e WHERE ${PERIOD[d.engine]} AND ${HANDLED}`);
const TODO = perEngine(
  (d) => `SELECT e.id, e.event_type, e.verification_id, e.payload FROM outbox_events e WHERE ${PERIOD[d.engine]} AND NOT ${HANDLED}
       ORDER BY e.created_at, ${d.insertionOrder('e')}`,
);

function params(hook: WebhookRow, p: Period) {
  return { webhookId: hook.id, org: hook.organization_id, env: hook.environment, since: iso(p.sinceMs), until: iso(p.untilMs), events: hook.events };
}

function checkRecoverable(hook: WebhookRow): void {
  if (hook.status === 'inactive') {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'status', message: 'the webhook is paused (inactive): resume it before recovering events' }] });
  }
}

/** What a recovery of the period would do, without doing it (the console's preview count). */
export async function previewRecovery(deps: CoreDeps, scope: Scope, webhookId: string, req: RecoveryRequest = {}): Promise<RecoveryPreview> {
  const hook = await getRow(deps, scope, webhookId);
  const p = await periodOf(deps, hook, req);
  // Both read every event of the period (and its deliveries): off the event loop where the store allows.
  const reads = deps.longReads ?? deps.sql;
  const events = await countEventsInPeriod(deps, hook, p.sinceMs, p.untilMs, reads);
  const skipped = (await reads.get<{ n: number }>(SKIPPED[deps.sql.engine], params(hook, p)))?.n ?? 0;
  return {
    webhookId,
    since: iso(p.sinceMs),
    until: iso(p.untilMs),
    events,
    skipped,
    toDeliver: events - skipped,
    reenables: hook.status === 'failed',
  };
}

/**
 * Queues the recovery of a period: a `failed` webhook is re-enabled first (in the same transaction), then one new
 * pending delivery per event of the period not yet handled. `requestedBy` is recorded with the recovery.
 */
export async function recoverWebhook(
  rt: CoreRuntime,
  scope: Scope,
  webhookId: string,
  req: RecoveryRequest,
  requestedBy: string,
  /** The demo loader narrates a recovery that re-enables its webhook with nothing left to send (docs/demo.md). */
  opts: { allowNothing?: boolean } = {},
): Promise<RecoveryResult> {
  const { deps } = rt;
  return deps.sql.transaction(async (tx): Promise<RecoveryResult> => {
    const t: CoreDeps = { ...deps, sql: tx };
    // Events written but not fanned out yet get their ordinary deliveries first, so they count as handled.
    while ((await fanOut(t)) > 0) {
      /* up to 100 events per round */
    }
    const hook = await getRow(t, scope, webhookId);
    checkRecoverable(hook);
    const p = await periodOf(t, hook, req);
    const nowMs = deps.clock.now();
    const now = iso(nowMs);
    const reenabled = hook.status === 'failed';
    if (reenabled) {
      await tx.run(`UPDATE webhooks SET status = 'active', active_since_ms = ?, updated_at = ? WHERE id = ?`, [nowMs, now, hook.id]);
      await resolveWebhookFailure(t, hook.id, 'reenabled');
    }
    const recoveryId = newId('rcv');
    const events = await countEventsInPeriod(t, hook, p.sinceMs, p.untilMs);
    const todo = await tx.all<{ id: string; event_type: string; verification_id: string; payload: string }>(
      TODO[tx.engine],
      params(hook, p),
    );
    // A recovery of nothing is refused rather than recorded (an empty recovery row and a webhook.recovered entry
    // that redelivered nothing); the transaction rolls back, so a failed webhook is not re-enabled by it either.
    if (todo.length === 0 && !opts.allowNothing) {
      const why = events === 0 ? 'the period holds no event for this webhook' : `each of the period's ${events} event${events === 1 ? '' : 's'} was delivered or is pending`;
      throw new AppError('VALIDATION_ERROR', {
        details: [{ field: 'period', message: `nothing to redeliver: ${why}${reenabled ? '; re-enable the webhook without a recovery instead' : ''}` }],
      });
    }
    if (todo.length > MAX_RECOVERY_EVENTS) {
      throw new AppError('VALIDATION_ERROR', {
        details: [{ field: 'until', message: `the period holds ${todo.length} events to redeliver; at most ${MAX_RECOVERY_EVENTS} per recovery: recover it in parts` }],
      });
    }
    for (const e of todo) {
      // event_id must be unique per webhook; the recovery's id keeps it so while original_event_id links back.
      await tx.run(
        `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type, verification_id, payload,
           status, attempts, next_attempt_at_ms, created_at_ms, created_at, updated_at, origin, original_event_id, recovery_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, 'recovery', ?, ?)`,
        [newId('del'), hook.id, hook.organization_id, hook.environment, `${recoveryId}:${e.id}`, e.event_type, e.verification_id, e.payload, nowMs, nowMs, now, now, e.id, recoveryId],
      );
    }
    await tx.run(
      `INSERT INTO webhook_recoveries (id, webhook_id, organization_id, environment, since_ms, until_ms, queued, skipped, reenabled,
         requested_by, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [recoveryId, hook.id, hook.organization_id, hook.environment, p.sinceMs, p.untilMs, todo.length, events - todo.length, reenabled ? 1 : 0, requestedBy, nowMs],
    );
    if (reenabled) {
      await appendAudit(t, hook.organization_id, { action: 'webhook.reenabled', target: { type: 'webhook', id: hook.id }, detail: { from: 'failed', to: 'active', by: 'recovery' } });
    }
    await appendAudit(t, hook.organization_id, {
      action: 'webhook.recovered',
      target: { type: 'webhook', id: hook.id },
      detail: { recoveryId, since: iso(p.sinceMs), until: iso(p.untilMs), queued: todo.length, skipped: events - todo.length },
    });
    signalWork(tx, 'outbox');
    deps.log.info({ webhookId: hook.id, recoveryId, queued: todo.length, requestedBy }, 'webhook recovery queued');
    return {
      recoveryId,
      webhookId: hook.id,
      since: iso(p.sinceMs),
      until: iso(p.untilMs),
      queued: todo.length,
      skipped: events - todo.length,
      reenabled,
      webhook: toWebhook(await getRow(t, scope, webhookId), nowMs),
    };
  });
}
