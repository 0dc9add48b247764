// A webhook's deliveries, a page at a time (GET /webhooks/{id}/deliveries, the console's Deliveries panel): newest
// first with insertion order as the tie-break, any page, with or without a status filter — and read from the list
// index in its own order, so a deep page neither sorts nor reads the rows before it (migration 25). The order is
// checked on both engines (PostgreSQL: a throw-away database on the run's cluster).
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import type { CoreDeps } from '../../../src-main/core/context';
import { getDelivery, listDeliveries, listDeliveryTimeline } from '../../../src-main/core/webhooks/deliveries';
import { migratePostgres } from '../../../src-main/store/pg/migrate';
import { createPgPort } from '../../../src-main/store/pg/pg-port';
import type { SqlParams, SqlQueries } from '../../../src-main/store/sql-port';
import { freshDatabase } from '../../helpers/pg';
import { testDeps } from '../../helpers/core-deps';
import { recordingPort, sqlitePlan } from '../../helpers/sql-plans';

const NOW = Date.parse('2026-11-21T10:00:00.000Z');
const STATUSES = ['pending', 'success', 'failed'] as const;

function setup(): CoreDeps & { db: NonNullable<CoreDeps['db']> } {
  return testDeps({ clock: new ManualClock(NOW) });
}

interface Seeded {
  id: string;
  webhookId: string;
  status: string;
  atMs: number;
}

/**
 * An organization, two webhooks and `n` deliveries in insertion order, through the SQL port (either engine), with
 * many sharing a millisecond (a fan-out writes a burst in one) and ids that do not sort in insertion order, so only
 * the tie-break decides their place.
 */
async function seed(sql: SqlQueries, n: number): Promise<Seeded[]> {
  const out: Seeded[] = [];
  await sql.transaction(async (tx) => {
    await tx.run("INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'Org', '2026-01-01T00:00:00.000Z')");
    for (const id of ['wh_a', 'wh_b']) {
      await tx.run(
        `INSERT INTO webhooks (id, organization_id, environment, url, events, status, secret, active_since_ms, created_at, updated_at)
         VALUES (?, 'org_1', 'sandbox', ?, '["verification.completed"]', 'active', 's', 0, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')`,
        [id, `https://hooks.example.com/${id}`],
      );
    }
    for (let i = 0; i < n; i++) {
      const d: Seeded = {
        id: `del_${String((i * 7919) % 10_007).padStart(5, '0')}_${i}`,
        webhookId: i % 5 === 4 ? 'wh_b' : 'wh_a',
        status: STATUSES[(i * 31) % 3]!,
        // Eight deliveries per millisecond, and now and then an older one written late (a re-run or a recovery).
        atMs: i % 13 === 12 ? NOW - 86_400_000 + i : NOW - 10_000 + Math.floor(i / 8),
      };
      const at = new Date(d.atMs).toISOString();
      await tx.run(
        `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type, verification_id, payload, status,
           attempts, created_at_ms, created_at, updated_at)
         VALUES (?, ?, 'org_1', 'sandbox', ?, 'verification.completed', 'ver_x', '{}', ?, 1, ?, ?, ?)`,
        [d.id, d.webhookId, `evt_${i}`, d.status, d.atMs, at, at],
      );
      out.push(d);
    }
  });
  return out;
}

/** The expected order: newest first; among equals the tie-break, insertion order (SQLite) or the id (PostgreSQL). */
function expected(all: Seeded[], engine: SqlQueries['engine'], webhookId: string, status?: string): string[] {
  return all
    .map((d, i) => ({ ...d, i }))
    .filter((d) => d.webhookId === webhookId && (status === undefined || d.status === status))
    .sort((a, b) => b.atMs - a.atMs || (engine === 'sqlite' ? b.i - a.i : a.id < b.id ? 1 : -1))
    .map((d) => d.id);
}

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };

/** Every page of every list (each status, three page sizes) against the order computed apart. */
async function expectEveryPage(deps: CoreDeps, all: Seeded[]): Promise<void> {
  for (const webhookId of ['wh_a', 'wh_b']) {
    for (const status of [undefined, ...STATUSES]) {
      const want = expected(all, deps.sql.engine, webhookId, status);
      for (const limit of [1, 7, 50]) {
        const got: string[] = [];
        for (let offset = 0; offset < want.length + limit; offset += limit) {
          const page = await listDeliveries(deps, scope, webhookId, { limit, offset, ...(status ? { status } : {}) });
          expect(page.total, `${webhookId} ${status} ${offset}`).toBe(want.length);
          got.push(...page.data.map((d) => d.id));
        }
        expect(got, `${deps.sql.engine}: ${webhookId} ${status ?? 'any'} by ${limit}`).toEqual(want);
      }
    }
  }
}

describe('listDeliveries', () => {
  it('pages newest first with insertion order among equal times, with and without a status filter, to the last page', async () => {
    const deps = setup();
    await expectEveryPage(deps, await seed(deps.sql, 400));
  });

  it('on PostgreSQL, pages newest first with the id among equal times, to the last page', async () => {
    const db = await freshDatabase();
    const pg = createPgPort(db.url);
    try {
      await migratePostgres(pg);
      const deps = testDeps({ clock: new ManualClock(NOW), sql: pg });
      await expectEveryPage(deps, await seed(pg, 400));
    } finally {
      await pg.close();
      await db.drop();
    }
  });

  it("reads a page's keys from the list index in its order: no sort, no row before the page", async () => {
    const deps = setup();
    await seed(deps.sql, 50);
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
    await seed(deps.sql, 30);
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

/** Attempts for most deliveries (none, one or three each), written interleaved so only their seq orders each log. */
async function seedAttempts(sql: SqlQueries, all: Seeded[]): Promise<void> {
  await sql.transaction(async (tx) => {
    for (let round = 1; round <= 3; round++) {
      for (const [i, d] of all.entries()) {
        const count = i % 3 === 0 ? 0 : i % 3 === 1 ? 1 : 3;
        if (round > count) continue;
        await tx.run(
          `INSERT INTO webhook_attempts (delivery_id, attempt, kind, url, started_at, duration_ms, status_code, error, response_body, next_attempt_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [d.id, round, round === 3 ? 'manual' : 'scheduled', `https://hooks.example.com/${d.webhookId}`, new Date(d.atMs + round * 1000).toISOString(), 10 * round + (i % 7), round === 1 ? 500 : 200, round === 1 ? 'HTTP 500' : null, `body ${i}/${round}`, null],
        );
      }
    }
  });
}

/** Every page of the timeline is the list's page with each delivery's own attempt log, as getDelivery reads it. */
async function expectTimelineAsDetails(deps: CoreDeps, all: Seeded[]): Promise<void> {
  for (const status of [undefined, 'failed'] as const) {
    const want = expected(all, deps.sql.engine, 'wh_a', status);
    for (let offset = 0; offset < want.length + 7; offset += 7) {
      const q = { limit: 7, offset, ...(status ? { status } : {}) };
      const page = await listDeliveries(deps, scope, 'wh_a', q);
      const timeline = await listDeliveryTimeline(deps, scope, 'wh_a', q);
      const details = await Promise.all(page.data.map((d) => getDelivery(deps, scope, d.id)));
      expect(timeline, `${deps.sql.engine} ${status ?? 'any'} @${offset}`).toEqual({ data: details, total: page.total });
    }
  }
}

describe('listDeliveryTimeline', () => {
  it("is each page of the list with every delivery's attempt log, read for the whole page at once", async () => {
    const deps = setup();
    const all = await seed(deps.sql, 120);
    await seedAttempts(deps.sql, all);
    await expectTimelineAsDetails(deps, all);
    const { port, seen } = recordingPort(deps.sql);
    const page = await listDeliveryTimeline({ ...deps, sql: port }, scope, 'wh_a', { limit: 10, offset: 0 });
    expect(page.data).toHaveLength(10);
    expect(page.data.some((d) => d.attemptLog.length === 3) && page.data.some((d) => d.attemptLog.length === 0)).toBe(true);
    expect(seen.filter((x) => /FROM webhook_attempts/.test(x.sql))).toHaveLength(1);
  });

  it('on PostgreSQL, the same', async () => {
    const db = await freshDatabase();
    const pg = createPgPort(db.url);
    try {
      await migratePostgres(pg);
      const deps = testDeps({ clock: new ManualClock(NOW), sql: pg });
      const all = await seed(pg, 120);
      await seedAttempts(pg, all);
      await expectTimelineAsDetails(deps, all);
    } finally {
      await pg.close();
      await db.drop();
    }
  });
});
