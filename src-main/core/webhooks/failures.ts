// Failure of a webhook that nobody misses (docs/webhooks.md "When an endpoint fails"): each time an endpoint turns
// `failed` a durable row records when, the last error and what was dropped; the console's alerts read the open
// ones, and one in-process domain event, `webhook.failed`, tells other parts (the desktop notification and tray,
// the audit trail) once the failure is committed.
import type { WebhookAlert } from '../../../src-shared/schemas/webhooks';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import type { Scope } from './webhooks-service';
import { perEngine } from '../../store/pg/dialect';
import type { LongReads } from '../../store/reader-thread';

/** The `webhook.failed` domain event: emitted once per failure, after the transaction that recorded it commits. */
export interface WebhookFailedEvent {
  type: 'webhook.failed';
  failureId: string;
  webhookId: string;
  organizationId: string;
  environment: 'sandbox' | 'live';
  url: string;
  description: string | null;
  failedAt: string;
  deliveryId: string;
  lastStatusCode: number | null;
  lastError: string | null;
  droppedDeliveries: number;
}

export type WebhookFailedListener = (event: WebhookFailedEvent) => void;

// Keyed by the store's port (CoreDeps.sql, never a transaction's handle): every door of one core shares it, and two
// cores in one test process stay apart.
const listeners = new WeakMap<object, Set<WebhookFailedListener>>();

/** Subscribes to `webhook.failed`; returns the unsubscribe function. */
export function onWebhookFailed(deps: Pick<CoreDeps, 'sql'>, fn: WebhookFailedListener): () => void {
  let set = listeners.get(deps.sql);
  if (!set) listeners.set(deps.sql, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

/** Called after commit. A throwing listener is logged and never reaches the dispatcher. */
export function emitWebhookFailed(deps: Pick<CoreDeps, 'sql' | 'log'>, event: WebhookFailedEvent): void {
  for (const fn of listeners.get(deps.sql) ?? []) {
    try {
      fn(event);
    } catch (err) {
      deps.log.error({ err: String(err), webhookId: event.webhookId }, 'webhook.failed listener threw');
    }
  }
}

interface FailureRow {
  id: string;
  webhook_id: string;
  organization_id: string;
  environment: 'sandbox' | 'live';
  failed_at_ms: number;
  delivery_id: string;
  last_status_code: number | null;
  last_error: string | null;
  dropped_deliveries: number;
  resolved_at_ms: number | null;
}

/**
 * Inside the transaction that turns the webhook `failed`, before its pending deliveries are dropped: when the earliest
 * event among them was made (null when none is pending). Read by `webhook_deliveries_pending_hook`, so it costs what
 * is about to be dropped, not the webhook's whole history.
 */
export async function earliestPendingEventAt(deps: CoreDeps, webhookId: string): Promise<string | null> {
  const row = await deps.sql.get<{ t: string | null }>(
    `SELECT min(e.created_at) AS t FROM webhook_deliveries d JOIN outbox_events e ON e.id = coalesce(d.original_event_id, d.event_id)
     WHERE d.webhook_id = ? AND d.status = 'pending'`,
    [webhookId],
  );
  return row?.t ?? null;
}

/**
 * Inside the transaction that turned the webhook `failed`: the durable record, returned as the event to emit.
 * `droppedSince`: earliestPendingEventAt, read before the pending deliveries were dropped.
 */
export async function recordWebhookFailure(
  deps: CoreDeps,
  hook: { id: string; organization_id: string; environment: 'sandbox' | 'live'; url: string; description: string | null },
  cause: { deliveryId: string; statusCode: number | null; error: string | null },
  droppedDeliveries: number,
  droppedSince: string | null,
): Promise<WebhookFailedEvent> {
  const nowMs = deps.clock.now();
  const id = newId('whf');
  // The earliest event this failure left undelivered: the one whose attempts ran out, or an older dropped one.
  // A recovery's default period starts there, so "since it failed" loses none of them. (Found among the dropped
  // ones by their drop time and reason, this read every delivery the webhook ever had: 90 ms at 50,000.)
  const causeAt = await deps.sql.get<{ t: string | null }>(
    `SELECT e.created_at AS t FROM webhook_deliveries d JOIN outbox_events e ON e.id = coalesce(d.original_event_id, d.event_id) WHERE d.id = ?`,
    [cause.deliveryId],
  );
  const times = [causeAt?.t, droppedSince].filter((t): t is string => typeof t === 'string').map((t) => Date.parse(t));
  const undeliveredSinceMs = Math.min(nowMs, ...times);
  await deps.sql.run(
    `INSERT INTO webhook_failures (id, webhook_id, organization_id, environment, failed_at_ms, delivery_id, last_status_code,
       last_error, dropped_deliveries, undelivered_since_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [id, hook.id, hook.organization_id, hook.environment, nowMs, cause.deliveryId, cause.statusCode, cause.error, droppedDeliveries, undeliveredSinceMs],
  );
  return {
    type: 'webhook.failed',
    failureId: id,
    webhookId: hook.id,
    organizationId: hook.organization_id,
    environment: hook.environment,
    url: hook.url,
    description: hook.description,
    failedAt: iso(nowMs),
    deliveryId: cause.deliveryId,
    lastStatusCode: cause.statusCode,
    lastError: cause.error,
    droppedDeliveries,
  };
}

/** The webhook left `failed` (re-enabled, paused or deleted): its alert closes. */
export async function resolveWebhookFailure(deps: CoreDeps, webhookId: string, resolution: 'reenabled' | 'paused' | 'deleted'): Promise<void> {
  await deps.sql.run(`UPDATE webhook_failures SET resolved_at_ms = ?, resolution = ? WHERE webhook_id = ? AND resolved_at_ms IS NULL`, [
    deps.clock.now(),
    resolution,
    webhookId,
  ]);
}

const LAST_FAILURE = perEngine(
  (d) => `SELECT undelivered_since_ms AS t FROM webhook_failures WHERE webhook_id = ? ORDER BY failed_at_ms DESC, ${d.insertionOrder()} DESC LIMIT 1`,
);
const EVENTS_IN_PERIOD = perEngine(
  (d) => `SELECT count(*) AS n FROM outbox_events WHERE organization_id = ? AND environment = ? AND created_at >= ? AND created_at < ?
       AND event_type IN ${d.jsonArrayValues()}`,
);

/** Where "since it failed" starts for the webhook's latest failure (its earliest undelivered event); null if it never failed. */
export async function lastFailureStartMs(deps: CoreDeps, webhookId: string): Promise<number | null> {
  const row = await deps.sql.get<{ t: number }>(LAST_FAILURE[deps.sql.engine], [webhookId]);
  return row?.t ?? null;
}

/**
 * Events of the webhook's subscribed types in [sinceMs, untilMs) of its organization and environment. It reads every
 * event of the period (a failure days old in a busy organization: hundreds of thousands), so outside a transaction it
 * is counted off the event loop where the store allows (`reads`: CoreDeps.longReads; docs/performance.md).
 */
export async function countEventsInPeriod(
  deps: CoreDeps,
  hook: { organization_id: string; environment: string; events: string },
  sinceMs: number,
  untilMs: number,
  reads: LongReads = deps.sql,
): Promise<number> {
  const row = await reads.get<{ n: number }>(EVENTS_IN_PERIOD[deps.sql.engine], [hook.organization_id, hook.environment, iso(sinceMs), iso(untilMs), hook.events]);
  return row?.n ?? 0;
}

/** Open failures of one scope (or of every scope: the desktop tray), newest first. */
export async function listWebhookAlerts(deps: CoreDeps, scope: Scope | null): Promise<WebhookAlert[]> {
  const where = scope ? 'AND f.organization_id = ? AND f.environment = ?' : '';
  const rows = await deps.sql.all<FailureRow & { url: string; description: string | null; events: string }>(
    `SELECT f.*, w.url, w.description, w.events FROM webhook_failures f JOIN webhooks w ON w.id = f.webhook_id
     WHERE f.resolved_at_ms IS NULL AND w.status = 'failed' AND w.deleted_at IS NULL ${where}
     ORDER BY f.failed_at_ms DESC`,
    scope ? [scope.organizationId, scope.environment] : [],
  );
  const nowMs = deps.clock.now();
  // Reads outside any transaction: side by side.
  const notSent = await Promise.all(rows.map((r) => countEventsInPeriod(deps, r, r.failed_at_ms, nowMs + 1, deps.longReads)));
  return rows.map((r, i) => ({
    failureId: r.id,
    webhookId: r.webhook_id,
    url: r.url,
    description: r.description,
    environment: r.environment,
    failedAt: iso(r.failed_at_ms),
    deliveryId: r.delivery_id,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    droppedDeliveries: r.dropped_deliveries,
    eventsNotSent: notSent[i]!,
  }));
}
