// A webhook's deliveries, a page at a time (GET /webhooks/{id}/deliveries, the console's Deliveries panel): newest
// first with insertion order as the tie-break, any page, with or without a status filter — and read from the list
// index in its own order, so a deep page neither sorts nor reads the rows before it (migration 25).
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import type { CoreDeps } from '../../../src-main/core/context';
import { listDeliveries } from '../../../src-main/core/webhooks/deliveries';
import type { SqlParams } from '../../../src-main/store/sql-port';
import { testDeps } from '../../helpers/core-deps';
import { recordingPort, sqlitePlan } from '../../helpers/sql-plans';

const NOW = Date.parse('2026-11-21T10:00:00.000Z');
const STATUSES = ['pending', 'success', 'failed'] as const;

function setup(): CoreDeps & { db: NonNullable<CoreDeps['db']> } {
  const deps = testDeps({ clock: new ManualClock(NOW) });
  deps.db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'Org', '2026-01-01T00:00:00.000Z')").run();
  for (const id of ['wh_a', 'wh_b']) {
    deps.db
      .prepare(
        `INSERT INTO webhooks (id, organization_id, environment, url, events, status, secret, active_since_ms, created_at, updated_at)
         VALUES (?, 'org_1', 'sandbox', ?, '["verification.completed"]', 'active', 's', 0, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')`,
      )
      .run(id, `https://hooks.example.com/${id}`);
  }
  return deps;
}

interface Seeded {
  id: string;
  webhookId: string;
  status: string;
  atMs: number;
}

/**
 * Deliveries in insertion order, with many sharing a millisecond (a fan-out writes a burst in one) and ids that do
 * not sort in insertion order, so only the tie-break decides their place.
 */
function seed(deps: ReturnType<typeof setup>, n: number): Seeded[] {
  const insert = deps.db.prepare(
    `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type, verification_id, payload, status,
       attempts, created_at_ms, created_at, updated_at)
     VALUES (?, ?, 'org_1', 'sandbox', ?, 'verification.completed', 'ver_x', '{}', ?, 1, ?, ?, ?)`,
  );
  const out: Seeded[] = [];
  for (let i = 0; i < n; i++) {
    const d: Seeded = {
      id: `del_${String((i * 7919) % 10_007).padStart(5, '0')}_${i}`,
      webhookId: i % 5 === 4 ? 'wh_b' : 'wh_a',
      status: STATUSES[(i * 31) % 3]!,
      // Eight deliveries per millisecond, and now and then an older one written late (a re-run or a recovery).
      atMs: i % 13 === 12 ? NOW - 86_400_000 + i : NOW - 10_000 + Math.floor(i / 8),
    };
    const at = new Date(d.atMs).toISOString();
    insert.run(d.id, d.webhookId, `evt_${i}`, d.status, d.atMs, at, at);
    out.push(d);
  }
  return out;
}

/** The expected order: newest first, the later insertion first among equals. */
function expected(all: Seeded[], webhookId: string, status?: string): string[] {
  return all
    .map((d, i) => ({ ...d, i }))
    .filter((d) => d.webhookId === webhookId && (status === undefined || d.status === status))
    .sort((a, b) => b.atMs - a.atMs || b.i - a.i)
    .map((d) => d.id);
}

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };

describe('listDeliveries', () => {
  it('pages newest first with insertion order among equal times, with and without a status filter, to the last page', async () => {
    const deps = setup();
    const all = seed(deps, 400);
    for (const webhookId of ['wh_a', 'wh_b']) {
      for (const status of [undefined, ...STATUSES]) {
        const want = expected(all, webhookId, status);
        for (const limit of [1, 7, 50]) {
          const got: string[] = [];
          for (let offset = 0; offset < want.length + limit; offset += limit) {
            const page = await listDeliveries(deps, scope, webhookId, { limit, offset, ...(status ? { status } : {}) });
            expect(page.total, `${webhookId} ${status} ${offset}`).toBe(want.length);
            got.push(...page.data.map((d) => d.id));
          }
          expect(got, `${webhookId} ${status ?? 'any'} by ${limit}`).toEqual(want);
        }
      }
    }
  });

  it("reads a page's keys from the list index in its order: no sort, no row before the page", async () => {
    const deps = setup();
    seed(deps, 50);
    const { port, seen } = recordingPort(deps.sql);
    await listDeliveries({ ...deps, sql: port }, scope, 'wh_a', { limit: 20, offset: 20 });
    await listDeliveries({ ...deps, sql: port }, scope, 'wh_a', { limit: 20, offset: 20, status: 'failed' });
    const pages = seen.filter((s) => /FROM webhook_deliveries WHERE .* IN \(SELECT/.test(s.sql));
    expect(pages).toHaveLength(2);
    for (const s of pages) {
      const plan = await sqlitePlan(deps.sql, s.sql, s.params);
      // The inner statement walks a covering index (no row read for the skipped entries) and never sorts; only the
      // page itself (at most `limit` rows) is put back in order.
      expect(plan.some((d) => /COVERING INDEX webhook_deliveries_(list|hook_status)/.test(d)), plan.join('\n')).toBe(true);
      expect(plan.filter((d) => /TEMP B-TREE/.test(d)), plan.join('\n')).toEqual(['USE TEMP B-TREE FOR ORDER BY']);
    }
  });

  it('counts the total off the event loop when the store has long reads, outside a transaction only', async () => {
    const deps = setup();
    seed(deps, 30);
    const asked: string[] = [];
    const longReads = {
      all: <T,>(sql: string, p?: SqlParams) => (asked.push(sql), deps.sql.all<T>(sql, p)),
      get: <T,>(sql: string, p?: SqlParams) => (asked.push(sql), deps.sql.get<T>(sql, p)),
    };
    const onLoop = await listDeliveries(deps, scope, 'wh_a', { limit: 5, offset: 0 });
    expect(await listDeliveries({ ...deps, longReads }, scope, 'wh_a', { limit: 5, offset: 0 })).toEqual(onLoop);
    expect(asked).toEqual(['SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?']);
    asked.length = 0;
    await deps.sql.transaction((tx) => listDeliveries({ ...deps, sql: tx, longReads }, scope, 'wh_a', { limit: 5, offset: 0 }));
    expect(asked).toEqual([]);
  });
});
