// The dashboard summary (issue 6): counts of one organization and environment since a point in time, computed in
// SQL over indexes (verifications_status, migration 24; webhooks_org + webhook_deliveries_hook_status, migration 23),
// never by loading rows into memory.
import type { DashboardSummary, DeliveryFailure, StatusCounts } from '../../../src-shared/schemas/dashboard';
import { isLowBalance } from '../../../src-shared/money';
import type { Environment } from '../../../src-shared/schemas/common';
import { VerificationStatusSchema } from '../../../src-shared/schemas/verification';
import { DeliveryStatusSchema } from '../../../src-shared/schemas/webhooks';
import { getWallet } from '../billing/billing';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { perEngine } from '../../store/pg/dialect';

const LAST_FAILURES = 5;
/** Every status a verification can have (VerificationStatusSchema), as SQL literals. */
const VERIFICATION_STATUSES = VerificationStatusSchema.options.map((s) => `'${s}'`).join(', ');
/** Every status a delivery can have (DeliveryStatusSchema), as SQL literals. */
const DELIVERY_STATUSES = DeliveryStatusSchema.options.map((s) => `'${s}'`).join(', ');
const DAY_MS = 86_400_000;

/** The start of the UTC day holding `ms`: the default period is "today" as the History date filters read it. */
export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** `since` as the service stores timestamps (ISO, UTC, milliseconds); a bare date is its UTC midnight. */
export function resolveSince(since: string | undefined, nowMs: number): string {
  if (!since) return iso(startOfUtcDay(nowMs));
  const ms = Date.parse(since);
  return iso(Number.isNaN(ms) ? startOfUtcDay(nowMs) : ms);
}

/**
 * Interface §9 rule 5: the success rate is over answered checks only (success + failed); errors are not answers
 * and are reported as their own rate over every finished check. Pending checks count in neither.
 */
export function rates(c: StatusCounts): { answered: number; successRate: number | null; errorRate: number | null } {
  const answered = c.success + c.failed;
  const finished = answered + c.error;
  return {
    answered,
    successRate: answered === 0 ? null : c.success / answered,
    errorRate: finished === 0 ? null : c.error / finished,
  };
}

const emptyCounts = (): StatusCounts => ({ pending: 0, success: 0, failed: 0, error: 0 });

async function verificationCounts(deps: CoreDeps, organizationId: string, environment: Environment, since: string) {
  // The period of each status in `verifications_status` (organization_id, environment, status, created_at, country, …;
  // migration 24): the index alone, no row read. Every status is named so that the range is one per status (without
  // the list SQLite walks verifications_list and reads each row for its status and country: 2.6× longer). Still every
  // check of the period (≈ 30 ms for 83,000, most of it the GROUP BY's sort), so off the event loop where the store
  // allows (deps.longReads).
  const rows = await (deps.longReads ?? deps.sql).all<{ country: string; status: keyof StatusCounts; n: number }>(
    `SELECT country, status, COUNT(*) AS n FROM verifications
      WHERE organization_id = ? AND environment = ? AND status IN (${VERIFICATION_STATUSES}) AND created_at >= ?
      GROUP BY country, status`,
    [organizationId, environment, since],
  );
  const byStatus = emptyCounts();
  const countries = new Map<string, StatusCounts & { country: string; total: number }>();
  for (const r of rows) {
    byStatus[r.status] += r.n;
    const c = countries.get(r.country) ?? { country: r.country, total: 0, ...emptyCounts() };
    c[r.status] += r.n;
    c.total += r.n;
    countries.set(r.country, c);
  }
  const byCountry = [...countries.values()].sort((a, b) => b.total - a.total || a.country.localeCompare(b.country));
  const total = byStatus.pending + byStatus.success + byStatus.failed + byStatus.error;
  return { total, byStatus, byCountry, ...rates(byStatus) };
}

/**
 * The latest failures of the period: the newest of each webhook (a walk of its failed range of
 * `webhook_deliveries_hook_status` backwards, LAST_FAILURES at most), then the newest of those — not every failure of
 * the period read and sorted (21 ms for 30 days with 8,800 failures). SQLite looks each one up by id from a correlated
 * list; PostgreSQL cannot make that a join (the list names `w`) and would read the whole table for it, so there it
 * is a LATERAL subquery (0.2 ms). Arguments: since, per-webhook limit, organization, environment, limit.
 */
// A dropped delivery's last_error holds the drop's text ("webhook failed: retries exhausted on another delivery"),
// not what its endpoint answered: its last answer is read from its own last attempt (replays and forwards aside),
// and dropReason says it was dropped, which the console shows as docs/webhooks.md asks.
const LAST_OWN_ATTEMPT = `FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.kind IN ('scheduled', 'manual') ORDER BY a.seq DESC LIMIT 1`;
const FAILURE_COLUMNS = `d.id AS id, d.webhook_id AS "webhookId", w.url AS url, d.event_type AS "eventType", d.attempts AS attempts,
            CASE WHEN d.dropped_reason IS NULL THEN d.last_status_code ELSE (SELECT a.status_code ${LAST_OWN_ATTEMPT}) END AS "lastStatusCode",
            CASE WHEN d.dropped_reason IS NULL THEN d.last_error ELSE (SELECT a.error ${LAST_OWN_ATTEMPT}) END AS "lastError",
            d.dropped_reason AS "dropReason", COALESCE(d.last_attempt_at, d.updated_at) AS at`;
const NEWEST_FAILED_OF_W = `x.webhook_id = w.id AND x.status = 'failed' AND x.created_at_ms >= ? ORDER BY x.created_at_ms DESC, x.id DESC LIMIT ?`;
const LAST_FAILURES_SQL = perEngine(
  (d) =>
    `SELECT ${FAILURE_COLUMNS} FROM webhooks w ` +
    (d.engine === 'postgres'
      ? `CROSS JOIN LATERAL (SELECT x.* FROM webhook_deliveries x WHERE ${NEWEST_FAILED_OF_W}) d `
      : `JOIN webhook_deliveries d ON d.id IN (SELECT x.id FROM webhook_deliveries x WHERE ${NEWEST_FAILED_OF_W}) `) +
    'WHERE w.organization_id = ? AND w.environment = ? ORDER BY d.created_at_ms DESC, d.id DESC LIMIT ?',
);

async function webhookHealth(deps: CoreDeps, organizationId: string, environment: Environment, sinceMs: number) {
  const endpoints = { active: 0, inactive: 0, failed: 0 };
  const hooks = await deps.sql.all<{ status: keyof typeof endpoints; n: number }>(
    `SELECT status, COUNT(*) AS n FROM webhooks
      WHERE organization_id = ? AND environment = ? AND deleted_at IS NULL GROUP BY status`,
    [organizationId, environment],
  );
  for (const h of hooks) endpoints[h.status] += h.n;

  // Deliveries are reached through their webhook, each status's range of `webhook_deliveries_hook_status (webhook_id,
  // status, created_at_ms)` counted from the index alone (the status list lets the engine seek each; through the list
  // index every delivery of the period was read: 480 ms for 30 days of 270,000). Deleted webhooks stay in the join
  // because their past deliveries are still part of the period's health.
  const deliveries = { success: 0, failed: 0, pending: 0 };
  const counts = await (deps.longReads ?? deps.sql).all<{ status: keyof typeof deliveries; n: number }>(
    `SELECT d.status AS status, COUNT(*) AS n FROM webhooks w
       JOIN webhook_deliveries d ON d.webhook_id = w.id AND d.status IN (${DELIVERY_STATUSES}) AND d.created_at_ms >= ?
      WHERE w.organization_id = ? AND w.environment = ? GROUP BY d.status`,
    [sinceMs, organizationId, environment],
  );
  for (const c of counts) deliveries[c.status] += c.n;

  const lastFailures = await deps.sql.all<DeliveryFailure>(LAST_FAILURES_SQL[deps.sql.engine], [sinceMs, LAST_FAILURES, organizationId, environment, LAST_FAILURES]);
  return { endpoints, deliveries, lastFailures };
}

export async function dashboardSummary(deps: CoreDeps, organizationId: string, environment: Environment, sinceInput?: string): Promise<DashboardSummary> {
  const now = deps.clock.now();
  const since = resolveSince(sinceInput, now);
  // Reads only, outside any transaction: they may run side by side.
  const [wallet, verifications, webhooks] = await Promise.all([
    getWallet(deps, organizationId),
    verificationCounts(deps, organizationId, environment, since),
    webhookHealth(deps, organizationId, environment, Date.parse(since)),
  ]);
  return {
    environment,
    since,
    generatedAt: iso(now),
    verifications,
    webhooks,
    // Billing is organization-wide and live-only (decisions §9), so the wallet is the same in either environment.
    wallet: { balance: wallet.balance, currency: wallet.currency, status: wallet.status, low: isLowBalance(wallet.balance, wallet.currency) },
  };
}
