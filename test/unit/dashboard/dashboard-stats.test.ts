// The dashboard summary: counts by status and country over the period, the rates of interface §9 rule 5
// (success over answered checks only, errors reported separately), webhook delivery health and the wallet.
import { describe, expect, it } from 'vitest';
import { topUp } from '../../../src-main/core/billing/billing';
import { ManualClock } from '../../../src-main/core/clock';
import type { CoreDeps } from '../../../src-main/core/context';
import { dashboardSummary, rates, resolveSince } from '../../../src-main/core/dashboard/dashboard-stats';
import { DashboardSummarySchema } from '../../../src-shared/schemas/dashboard';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src-main/store/database';
import { ReaderThread } from '../../../src-main/store/reader-thread';
import type { SqlParams } from '../../../src-main/store/sql-port';
import { testDeps } from '../../helpers/core-deps';
import { recordingPort, sqlitePlan } from '../../helpers/sql-plans';

const NOW = Date.parse('2026-11-21T10:00:00.000Z');

function setup(): CoreDeps {
  const deps = testDeps({ clock: new ManualClock(NOW) });
  for (const id of ['org_1', 'org_2']) {
    deps.db.prepare("INSERT INTO organizations (id, name, created_at) VALUES (?, 'Org', '2026-01-01T00:00:00.000Z')").run(id);
  }
  return deps;
}

let seq = 0;
function verification(deps: CoreDeps, o: { status: string; country?: string; at?: string; env?: string; org?: string }) {
  seq += 1;
  deps.db!
    .prepare(
      `INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode, request, created_at)
       VALUES (?, ?, ?, 'account', 'BANK_ACCOUNT', ?, '0123456789', ?, 'sync', '{}', ?)`,
    )
    .run(`ver_${seq}`, o.org ?? 'org_1', o.env ?? 'sandbox', o.country ?? 'NG', o.status, o.at ?? '2026-11-21T09:00:00.000Z');
}

function webhook(deps: CoreDeps, id: string, o: { status?: string; env?: string; url?: string } = {}) {
  deps.db!
    .prepare(
      `INSERT INTO webhooks (id, organization_id, environment, url, events, status, secret, active_since_ms, created_at, updated_at)
       VALUES (?, 'org_1', ?, ?, '["verification.completed"]', ?, 's', 0, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')`,
    )
    .run(id, o.env ?? 'sandbox', o.url ?? `https://hooks.example.com/${id}`, o.status ?? 'active');
}

function delivery(deps: CoreDeps, webhookId: string, status: string, atMs: number, lastError: string | null = null) {
  seq += 1;
  deps.db!
    .prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type, verification_id, payload, status,
         attempts, last_status_code, last_error, last_attempt_at, created_at_ms, created_at, updated_at)
       VALUES (?, ?, 'org_1', 'sandbox', ?, 'verification.completed', 'ver_x', '{}', ?, 1, ?, ?, ?, ?, ?, ?)`,
    )
    .run(`del_${seq}`, webhookId, `evt_${seq}`, status, status === 'failed' ? 500 : 200, lastError, new Date(atMs).toISOString(), atMs, new Date(atMs).toISOString(), new Date(atMs).toISOString());
  return `del_${seq}`;
}

describe('rates (interface §9 rule 5)', () => {
  it('success rate is over answered checks only; errors do not lower it and are a rate of their own', () => {
    expect(rates({ pending: 5, success: 3, failed: 1, error: 4 })).toEqual({ answered: 4, successRate: 0.75, errorRate: 0.5 });
  });

  it('nothing answered: no success rate rather than 0 %; nothing finished: no error rate', () => {
    expect(rates({ pending: 0, success: 0, failed: 0, error: 2 })).toEqual({ answered: 0, successRate: null, errorRate: 1 });
    expect(rates({ pending: 3, success: 0, failed: 0, error: 0 })).toEqual({ answered: 0, successRate: null, errorRate: null });
  });
});

describe('resolveSince', () => {
  it('defaults to the start of the current UTC day; a date is its UTC midnight', () => {
    expect(resolveSince(undefined, NOW)).toBe('2026-11-21T00:00:00.000Z');
    expect(resolveSince('2026-11-15', NOW)).toBe('2026-11-15T00:00:00.000Z');
    expect(resolveSince('2026-11-21T08:30:00+02:00', NOW)).toBe('2026-11-21T06:30:00.000Z');
  });
});

describe('dashboardSummary', () => {
  it('counts today by status and by country, in this organization and environment only', async () => {
    const deps = setup();
    verification(deps, { status: 'success', country: 'NG' });
    verification(deps, { status: 'success', country: 'NG' });
    verification(deps, { status: 'failed', country: 'NG' });
    verification(deps, { status: 'error', country: 'GH' });
    verification(deps, { status: 'pending', country: 'KE' });
    verification(deps, { status: 'success', country: 'NG', at: '2026-11-20T23:59:59.999Z' }); // yesterday
    verification(deps, { status: 'success', country: 'NG', env: 'live' });
    verification(deps, { status: 'failed', country: 'NG', org: 'org_2' });

    const s = await dashboardSummary(deps, 'org_1', 'sandbox');
    expect(DashboardSummarySchema.parse(s)).toEqual(s);
    expect(s.since).toBe('2026-11-21T00:00:00.000Z');
    expect(s.verifications.total).toBe(5);
    expect(s.verifications.byStatus).toEqual({ pending: 1, success: 2, failed: 1, error: 1 });
    expect(s.verifications.byCountry).toEqual([
      { country: 'NG', total: 3, pending: 0, success: 2, failed: 1, error: 0 },
      { country: 'GH', total: 1, pending: 0, success: 0, failed: 0, error: 1 },
      { country: 'KE', total: 1, pending: 1, success: 0, failed: 0, error: 0 },
    ]);
    expect(s.verifications.answered).toBe(3);
    expect(s.verifications.successRate).toBeCloseTo(2 / 3);
    expect(s.verifications.errorRate).toBeCloseTo(1 / 4);

    const live = await dashboardSummary(deps, 'org_1', 'live');
    expect(live.verifications.byStatus).toEqual({ pending: 0, success: 1, failed: 0, error: 0 });
    expect(live.verifications.successRate).toBe(1);
  });

  it('a wider period includes the earlier checks', async () => {
    const deps = setup();
    verification(deps, { status: 'success', at: '2026-11-19T12:00:00.000Z' });
    verification(deps, { status: 'failed' });
    expect((await dashboardSummary(deps, 'org_1', 'sandbox')).verifications.total).toBe(1);
    expect((await dashboardSummary(deps, 'org_1', 'sandbox', '2026-11-19')).verifications.byStatus).toEqual({ pending: 0, success: 1, failed: 1, error: 0 });
  });

  it('an empty installation reads as zeros with no rates', async () => {
    const s = await dashboardSummary(setup(), 'org_1', 'sandbox');
    expect(s.verifications).toEqual({
      total: 0,
      byStatus: { pending: 0, success: 0, failed: 0, error: 0 },
      byCountry: [],
      answered: 0,
      successRate: null,
      errorRate: null,
    });
    expect(s.webhooks.deliveries).toEqual({ success: 0, failed: 0, pending: 0 });
    expect(s.webhooks.lastFailures).toEqual([]);
  });

  it('reports webhook delivery health of the period and the latest failures, newest first', async () => {
    const deps = setup();
    webhook(deps, 'wh_a');
    webhook(deps, 'wh_b', { status: 'failed' });
    webhook(deps, 'wh_live', { env: 'live' });
    const today = Date.parse('2026-11-21T01:00:00.000Z');
    delivery(deps, 'wh_a', 'success', today);
    delivery(deps, 'wh_a', 'pending', today + 1000);
    const older = delivery(deps, 'wh_b', 'failed', today + 2000, 'connection refused');
    const newer = delivery(deps, 'wh_b', 'failed', today + 3000, 'HTTP 500');
    delivery(deps, 'wh_b', 'failed', Date.parse('2026-11-20T12:00:00.000Z')); // yesterday
    delivery(deps, 'wh_live', 'failed', today);

    const s = await dashboardSummary(deps, 'org_1', 'sandbox');
    expect(s.webhooks.endpoints).toEqual({ active: 1, inactive: 0, failed: 1 });
    expect(s.webhooks.deliveries).toEqual({ success: 1, failed: 2, pending: 1 });
    expect(s.webhooks.lastFailures.map((f) => f.id)).toEqual([newer, older]);
    expect(s.webhooks.lastFailures[0]).toMatchObject({ webhookId: 'wh_b', url: 'https://hooks.example.com/wh_b', lastStatusCode: 500, lastError: 'HTTP 500' });
  });

  it('a dropped delivery in the latest failures says so, with its own last answer rather than the drop text (report #9)', async () => {
    const deps = setup();
    webhook(deps, 'wh_d', { status: 'failed' });
    const today = Date.parse('2026-11-21T01:00:00.000Z');
    const dropped = delivery(deps, 'wh_d', 'failed', today, 'webhook failed: retries exhausted on another delivery');
    deps.db!.prepare(`UPDATE webhook_deliveries SET last_status_code = NULL, dropped_reason = 'webhook_failed', dropped_at_ms = ? WHERE id = ?`).run(today + 10, dropped);
    deps.db!
      .prepare(`INSERT INTO webhook_attempts (delivery_id, attempt, kind, url, started_at, duration_ms, status_code, error) VALUES (?, ?, ?, 'https://x', ?, 1, ?, ?)`)
      .run(dropped, 1, 'scheduled', new Date(today).toISOString(), null, 'connect ECONNREFUSED 127.0.0.1:9');
    deps.db!
      .prepare(`INSERT INTO webhook_attempts (delivery_id, attempt, kind, url, started_at, duration_ms, status_code, error) VALUES (?, ?, ?, 'https://x', ?, 1, ?, ?)`)
      .run(dropped, null, 'replay', new Date(today + 5).toISOString(), 200, null);
    const failed = delivery(deps, 'wh_d', 'failed', today - 1000, 'HTTP 500');
    const s = await dashboardSummary(deps, 'org_1', 'sandbox');
    const byId = Object.fromEntries(s.webhooks.lastFailures.map((f) => [f.id, f]));
    expect(byId[dropped]).toMatchObject({ dropReason: 'webhook_failed', lastStatusCode: null, lastError: 'connect ECONNREFUSED 127.0.0.1:9' });
    expect(byId[failed]).toMatchObject({ dropReason: null, lastStatusCode: 500, lastError: 'HTTP 500' });
  });

  it('the latest failures are the five newest across every webhook (a tie in time: the later id first)', async () => {
    const deps = setup();
    for (const id of ['wh_1', 'wh_2', 'wh_3']) webhook(deps, id);
    const base = Date.parse('2026-11-21T02:00:00.000Z');
    const made: { id: string; at: number }[] = [];
    // Seven failures per webhook, interleaved in time, one instant shared by two webhooks; successes between them.
    for (let i = 0; i < 7; i++) {
      for (const [j, hook] of ['wh_1', 'wh_2', 'wh_3'].entries()) {
        const at = base + i * 10_000 + (hook === 'wh_3' && i === 6 ? 1 : j) * 1_000;
        made.push({ id: delivery(deps, hook, 'failed', at), at });
        delivery(deps, hook, 'success', at + 1);
      }
    }
    const expected = [...made].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1)).slice(0, 5).map((f) => f.id);
    const s = await dashboardSummary(deps, 'org_1', 'sandbox');
    expect(s.webhooks.lastFailures.map((f) => f.id)).toEqual(expected);
    expect(s.webhooks.deliveries).toEqual({ success: 21, failed: 21, pending: 0 });
  });

  it("counts the period's verifications from the by-status index alone, one range per status (migration 24)", async () => {
    const deps = setup();
    verification(deps, { status: 'success', country: 'KE' });
    verification(deps, { status: 'error' });
    const { port, seen } = recordingPort(deps.sql);
    const s = await dashboardSummary({ ...deps, sql: port }, 'org_1', 'sandbox', '2026-10-22');
    expect(s.verifications.total).toBe(2);
    const reads = seen.filter((r) => /FROM verifications/.test(r.sql));
    expect(reads.length).toBe(1);
    const plan = await sqlitePlan(deps.sql, reads[0]!.sql, reads[0]!.params);
    expect(plan.join('\n')).toMatch(/USING COVERING INDEX verifications_status \(organization_id=\? AND environment=\? AND status=\? AND created_at>\?\)/);
  });

  it('reads the delivery counts and the latest failures from the by-status index, not delivery by delivery', async () => {
    const deps = setup();
    webhook(deps, 'wh_a');
    delivery(deps, 'wh_a', 'failed', NOW - 1_000);
    const { port, seen } = recordingPort(deps.sql);
    await dashboardSummary({ ...deps, sql: port }, 'org_1', 'sandbox', '2026-10-22');
    const reads = seen.filter((r) => /webhook_deliveries/.test(r.sql));
    expect(reads.length).toBe(2);
    for (const r of reads) {
      const plan = await sqlitePlan(deps.sql, r.sql, r.params);
      expect(plan.some((d) => /INDEX webhook_deliveries_hook_status \(webhook_id=\? AND status=\? AND created_at_ms>\?\)/.test(d)), plan.join('\n')).toBe(true);
      expect(plan.filter((d) => /webhook_deliveries_list|SCAN d\b/.test(d)), plan.join('\n')).toEqual([]);
    }
  });

  it('counts over the period off the event loop when the store has a reader thread, with the same figures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-dash-'));
    const db = openDatabase(join(dir, 'store.sqlite'));
    const deps = testDeps({ db, clock: new ManualClock(NOW) });
    const warnings: string[] = [];
    const reader = new ReaderThread({ file: join(dir, 'store.sqlite'), fallback: deps.sql, warn: (m) => warnings.push(m) });
    try {
      deps.db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'Org', '2026-01-01T00:00:00.000Z')").run();
      verification(deps, { status: 'success', country: 'KE' });
      verification(deps, { status: 'failed' });
      verification(deps, { status: 'pending', at: '2026-11-19T09:00:00.000Z' });
      webhook(deps, 'wh_file');
      delivery(deps, 'wh_file', 'failed', NOW - 1_000, 'HTTP 500');
      // The reads that scan the period go to the thread (and only those).
      const asked: string[] = [];
      const longReads = { all: <T,>(sql: string, p?: SqlParams) => (asked.push(sql), reader.all<T>(sql, p)), get: <T,>(sql: string, p?: SqlParams) => (asked.push(sql), reader.get<T>(sql, p)) };
      for (const since of [undefined, '2026-11-01']) {
        const onLoop = await dashboardSummary(deps, 'org_1', 'sandbox', since);
        expect(await dashboardSummary({ ...deps, longReads }, 'org_1', 'sandbox', since)).toEqual(onLoop);
      }
      expect(asked.filter((s) => /FROM verifications/.test(s))).toHaveLength(2);
      expect(asked.filter((s) => /COUNT\(\*\) AS n FROM webhooks w/.test(s))).toHaveLength(2);
      expect(warnings).toEqual([]); // answered by the thread, not by its fallback
    } finally {
      await reader.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows the wallet with the low-balance flag of the wallet page', async () => {
    const deps = setup();
    expect((await dashboardSummary(deps, 'org_1', 'sandbox')).wallet).toEqual({ balance: 0, currency: 'USD', status: 'active', low: true });
    await topUp(deps, 'org_1', 5_000, 'USD');
    expect((await dashboardSummary(deps, 'org_1', 'live')).wallet).toEqual({ balance: 5_000, currency: 'USD', status: 'active', low: false });
  });
});
