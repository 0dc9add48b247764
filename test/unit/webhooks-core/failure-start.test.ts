// Where "since it failed" starts (core/webhooks/failures.ts, docs/webhooks.md): when a webhook turns `failed`, the
// failure records the earliest event it left undelivered — the delivery whose attempts ran out, or an older one of
// those dropped with it — and finds the dropped ones among the pending deliveries it is about to drop (by their
// index), not among every delivery the webhook ever had. Real SQLite store in memory; only the clock is faked.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import type { CoreDeps } from '../../../src-main/core/context';
import { listWebhookAlerts } from '../../../src-main/core/webhooks/failures';
import { previewRecovery } from '../../../src-main/core/webhooks/recovery';
import { markWebhookFailed } from '../../../src-main/core/webhooks/webhooks-service';
import { openDatabase } from '../../../src-main/store/database';
import { ReaderThread } from '../../../src-main/store/reader-thread';
import type { SqlParams } from '../../../src-main/store/sql-port';
import { testDeps } from '../../helpers/core-deps';
import { recordingPort, sqlitePlan } from '../../helpers/sql-plans';

const NOW = Date.parse('2026-11-21T10:00:00.000Z');

function setup(db?: NonNullable<CoreDeps['db']>): CoreDeps & { db: NonNullable<CoreDeps['db']> } {
  const deps = testDeps({ clock: new ManualClock(NOW), ...(db ? { db } : {}) });
  deps.db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'Org', '2026-01-01T00:00:00.000Z')").run();
  deps.db
    .prepare(
      `INSERT INTO webhooks (id, organization_id, environment, url, events, status, secret, active_since_ms, created_at, updated_at)
       VALUES ('wh_1', 'org_1', 'sandbox', 'https://hooks.example.com/a', '["verification.completed"]', 'active', 's', 0, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')`,
    )
    .run();
  return deps;
}

let seq = 0;
/** An event made `agoMs` before now and its delivery to wh_1 in `status`; returns the delivery id. */
function delivery(deps: ReturnType<typeof setup>, status: 'pending' | 'success' | 'failed', agoMs: number, dropped = false): string {
  seq += 1;
  const at = new Date(NOW - agoMs).toISOString();
  deps.db
    .prepare(`INSERT INTO outbox_events (id, organization_id, environment, event_type, verification_id, payload, created_at) VALUES (?, 'org_1', 'sandbox', 'verification.completed', 'ver_x', '{}', ?)`)
    .run(`evt_${seq}`, at);
  deps.db
    .prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type, verification_id, payload, status, attempts,
         next_attempt_at_ms, dropped_reason, dropped_at_ms, created_at_ms, created_at, updated_at)
       VALUES (?, 'wh_1', 'org_1', 'sandbox', ?, 'verification.completed', 'ver_x', '{}', ?, 1, ?, ?, ?, ?, ?, ?)`,
    )
    .run(`del_${seq}`, `evt_${seq}`, status, status === 'pending' ? NOW : null, dropped ? 'webhook_failed' : null, dropped ? NOW - agoMs : null, NOW - agoMs, at, at);
  return `del_${seq}`;
}

/** The dispatcher's call: inside the attempt's transaction. */
const fail = (deps: CoreDeps, sql: CoreDeps['sql'], cause: string, statusCode: number | null = 500, error = 'HTTP 500') =>
  sql.transaction((tx) => markWebhookFailed({ ...deps, sql: tx }, 'wh_1', { deliveryId: cause, statusCode, error }));

const since = (deps: ReturnType<typeof setup>) => (deps.db.prepare('SELECT undelivered_since_ms AS t FROM webhook_failures').get() as { t: number }).t;

describe('the start of a webhook failure', () => {
  it('is the earliest of the delivery that ran out and those dropped with it; history before does not count', async () => {
    const deps = setup();
    delivery(deps, 'success', 10 * 60_000);
    delivery(deps, 'failed', 9 * 60_000, true); // dropped by an earlier failure: not this one's
    const older = 5 * 60_000;
    delivery(deps, 'pending', older); // waiting for a retry: dropped now
    delivery(deps, 'pending', 60_000);
    const cause = delivery(deps, 'failed', 2 * 60_000);
    const event = await fail(deps, deps.sql, cause);
    expect(event).toMatchObject({ type: 'webhook.failed', droppedDeliveries: 2, deliveryId: cause });
    expect(since(deps)).toBe(NOW - older);
  });

  it('is the delivery that ran out when nothing older was pending, and now at the latest', async () => {
    const deps = setup();
    delivery(deps, 'pending', 30_000);
    const cause = delivery(deps, 'failed', 3 * 60_000);
    await fail(deps, deps.sql, cause, null, 'timeout');
    expect(since(deps)).toBe(NOW - 3 * 60_000);
  });

  it('counts a pending redelivery of a recovery by its original event', async () => {
    const deps = setup();
    // An event of 20 minutes ago, redelivered by a recovery: the delivery's own event id is the recovery's, not an event.
    deps.db
      .prepare(`INSERT INTO outbox_events (id, organization_id, environment, event_type, verification_id, payload, created_at) VALUES ('evt_orig', 'org_1', 'sandbox', 'verification.completed', 'ver_x', '{}', ?)`)
      .run(new Date(NOW - 20 * 60_000).toISOString());
    deps.db
      .prepare(
        `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type, verification_id, payload, status, attempts,
           next_attempt_at_ms, created_at_ms, created_at, updated_at, origin, original_event_id, recovery_id)
         VALUES ('del_rcv', 'wh_1', 'org_1', 'sandbox', 'rcv_1:evt_orig', 'verification.completed', 'ver_x', '{}', 'pending', 0, ?, ?, ?, ?, 'recovery', 'evt_orig', 'rcv_1')`,
      )
      .run(NOW, NOW - 60_000, new Date(NOW - 60_000).toISOString(), new Date(NOW - 60_000).toISOString());
    const cause = delivery(deps, 'failed', 2 * 60_000);
    await fail(deps, deps.sql, cause);
    expect(since(deps)).toBe(NOW - 20 * 60_000);
  });

  it('reads the pending deliveries by their index, not every delivery of the webhook', async () => {
    const deps = setup();
    for (let i = 0; i < 20; i++) delivery(deps, 'success', (30 - i) * 60_000);
    const cause = delivery(deps, 'failed', 60_000);
    delivery(deps, 'pending', 30_000);
    const { port, seen } = recordingPort(deps.sql);
    await fail(deps, port, cause);
    const reads = seen.filter((r) => /^\s*SELECT/i.test(r.sql) && /JOIN outbox_events/.test(r.sql));
    expect(reads.length).toBe(2);
    for (const r of reads) {
      const plan = await sqlitePlan(deps.sql, r.sql, r.params);
      expect(plan.filter((d) => /MULTI-INDEX OR|SCAN d\b|webhook_deliveries_list/.test(d)), plan.join('\n')).toEqual([]);
    }
  });

  it("counts the alert's events not sent and the recovery preview off the event loop when the store has a reader thread, with the same figures", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-fail-'));
    const db = openDatabase(join(dir, 'store.sqlite'));
    const deps = setup(db);
    const warnings: string[] = [];
    const reader = new ReaderThread({ file: join(dir, 'store.sqlite'), fallback: deps.sql, warn: (m) => warnings.push(m) });
    try {
      delivery(deps, 'success', 10 * 60_000);
      delivery(deps, 'pending', 5 * 60_000);
      await fail(deps, deps.sql, delivery(deps, 'failed', 2 * 60_000));
      // Three events after the failure (one of a type the webhook does not take), none delivered.
      const after = (id: string, type: string, atMs: number) =>
        deps.db
          .prepare(`INSERT INTO outbox_events (id, organization_id, environment, event_type, verification_id, payload, created_at) VALUES (?, 'org_1', 'sandbox', ?, 'ver_y', '{}', ?)`)
          .run(id, type, new Date(atMs).toISOString());
      after('evt_a1', 'verification.completed', NOW + 1_000);
      after('evt_a2', 'verification.completed', NOW + 2_000);
      after('evt_a3', 'verification.created', NOW + 3_000);
      (deps.clock as ManualClock).set(NOW + 10_000);

      const asked: string[] = [];
      const longReads = {
        all: <T,>(sql: string, p?: SqlParams) => (asked.push(sql), reader.all<T>(sql, p)),
        get: <T,>(sql: string, p?: SqlParams) => (asked.push(sql), reader.get<T>(sql, p)),
      };
      const onLoop = await listWebhookAlerts(deps, null);
      expect(onLoop.map((a) => a.eventsNotSent)).toEqual([2]);
      expect(await listWebhookAlerts({ ...deps, longReads }, null)).toEqual(onLoop);
      expect(asked.filter((s) => /FROM outbox_events/.test(s))).toHaveLength(1);

      const scope = { organizationId: 'org_1', environment: 'sandbox' as const };
      asked.length = 0;
      const preview = await previewRecovery(deps, scope, 'wh_1');
      // From the earliest event left undelivered (5 minutes before the failure): that one, the cause, and the two after.
      expect(preview).toMatchObject({ events: 4, skipped: 0, toDeliver: 4, reenables: true });
      expect(await previewRecovery({ ...deps, longReads }, scope, 'wh_1')).toEqual(preview);
      expect(asked.filter((s) => /FROM outbox_events/.test(s))).toHaveLength(2); // the period's events, and those already handled
      expect(warnings).toEqual([]); // answered by the thread, not by its fallback
    } finally {
      await reader.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
