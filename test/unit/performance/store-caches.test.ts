// The store's speed caches must never change an answer: a cached prepared statement behaves like a fresh one,
// and a list's cached `total` is dropped by any write that could change it, from this connection or another.
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { VerificationRecord } from '../../../src-shared/schemas/verification';
import { insertVerification, listVerifications, updateVerification } from '../../../src-main/core/verification/records';
import { openDatabase, type Db } from '../../../src-main/store/database';
import { ListFilter, listPage } from '../../../src-main/store/list-query';
import { createServicePort } from '../../../src-main/store/service-port';
import type { SqlQueries, SqlValue } from '../../../src-main/store/sql-port';
import { recordingPort, sqlitePlan } from '../../helpers/sql-plans';

function record(id: string, status: VerificationRecord['status'], createdAt: string): VerificationRecord {
  return {
    id,
    status,
    verified: status === 'success',
    verificationType: 'ACCOUNT_NUMBER',
    identifier: '0123456789',
    country: 'NG',
    environment: 'sandbox',
    mode: 'sync',
    createdAt,
    completedAt: createdAt,
    charge: { amount: 0, currency: 'USD', status: 'not_charged' },
  } as VerificationRecord;
}

/** Inserts `n` records, each in its own transaction (or in the caller's `tx`), as the core does. */
async function seed(q: SqlQueries, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) {
    const rec = record(`ver_${String(i).padStart(4, '0')}`, i % 2 ? 'failed' : 'success', new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString());
    const v = { kind: 'account' as const, organizationId: 'org_a', request: {}, record: rec };
    if (q.inTransaction) await insertVerification(q, v);
    else await q.transaction((tx) => insertVerification(tx, v));
  }
}

/** A store and the SQL port over it (no group commit: each transaction is its own). */
function open(file = ':memory:'): { db: Db; q: SqlQueries } {
  const db = openDatabase(file);
  db.prepare("INSERT OR IGNORE INTO organizations (id, name, created_at) VALUES ('org_a', 'A', '2026-01-01T00:00:00.000Z')").run();
  return { db, q: createServicePort(db) };
}

const q = (extra: Partial<{ status: 'success' | 'failed' }> = {}) => ({ limit: 5, offset: 0, ...extra }) as Parameters<typeof listVerifications>[3];

describe('prepared statement cache', () => {
  it('returns one statement per SQL text, and a fresh one while the cached one is iterating', async () => {
    const { db, q: port } = open();
    await seed(port, 3);
    const sql = 'SELECT id FROM verifications ORDER BY id';
    const a = db.prepare(sql);
    expect(db.prepare(sql)).toBe(a);
    const it = a.iterate();
    it.next();
    const b = db.prepare(sql);
    expect(b).not.toBe(a);
    expect(b.all()).toHaveLength(3);
    it.return?.();
    db.close();
  });

  it('resets result modes so a cached statement answers like a fresh one', async () => {
    const { db, q: port } = open();
    await seed(port, 2);
    const sql = 'SELECT id FROM verifications ORDER BY id';
    expect(db.prepare(sql).pluck().all()).toEqual(['ver_0000', 'ver_0001']);
    expect(db.prepare(sql).all()).toEqual([{ id: 'ver_0000' }, { id: 'ver_0001' }]);
    expect(db.prepare(sql).raw().all()).toEqual([['ver_0000'], ['ver_0001']]);
    expect(db.prepare(sql).get()).toEqual({ id: 'ver_0000' });
    db.close();
  });
});

describe('list totals', () => {
  it('follows inserts, status updates and deletes on the same connection', async () => {
    const { db, q: sql } = open();
    const total = async (extra: Parameters<typeof q>[0] = {}) => (await listVerifications(sql, 'org_a', 'sandbox', q(extra))).total;
    await seed(sql, 7);
    expect(await total()).toBe(7);
    expect(await total({ status: 'success' })).toBe(4);
    await seed(sql, 1, 100);
    expect(await total()).toBe(8);
    await sql.transaction((tx) => updateVerification(tx, record('ver_0001', 'success', new Date(Date.UTC(2026, 0, 1, 0, 0, 1)).toISOString())));
    expect(await total({ status: 'success' })).toBe(6);
    db.prepare("DELETE FROM verifications WHERE id = 'ver_0000'").run();
    expect(await total()).toBe(7);
    expect(await total({ status: 'success' })).toBe(5);
    db.close();
  });

  it('sees a commit made by another connection (another process, e.g. the CLI)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'vc-cache-')), 'store.sqlite');
    const { db, q: sql } = open(file);
    await seed(sql, 3);
    expect((await listVerifications(sql, 'org_a', 'sandbox', q())).total).toBe(3);
    const other = new Database(file);
    await seed(createServicePort(other), 2, 50);
    other.close();
    expect((await listVerifications(sql, 'org_a', 'sandbox', q())).total).toBe(5);
    db.close();
  });

  it('is not fooled by rows counted inside a transaction that rolled back', async () => {
    const { db, q: sql } = open();
    await seed(sql, 2);
    expect((await listVerifications(sql, 'org_a', 'sandbox', q())).total).toBe(2);
    await expect(
      sql.transaction(async (tx) => {
        await seed(tx, 1, 10);
        expect((await listVerifications(tx, 'org_a', 'sandbox', q())).total).toBe(3);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await seed(sql, 1, 20);
    const f = new ListFilter().eq('organization_id', 'org_a').eq('status', 'failed');
    expect((await listPage(sql, { select: 'id', from: 'verifications', filter: f, orderBy: 'id', limit: 10, offset: 0 })).total).toBe(1);
    expect((await listVerifications(sql, 'org_a', 'sandbox', q())).total).toBe(3);
    db.close();
  });

  it('counts a list filtered by country or type from the by-status index alone, not check by check (migration 24)', async () => {
    const { db, q: sql } = open();
    await seed(sql, 6);
    const { port, seen } = recordingPort(sql);
    const filters: Record<string, string>[] = [{ country: 'NG' }, { type: 'account' }, { type: 'ACCOUNT_NUMBER' }, { country: 'NG', type: 'account', status: 'failed' }];
    const expected = [6, 6, 6, 3];
    for (const [i, f] of filters.entries()) expect((await listVerifications(port, 'org_a', 'sandbox', { limit: 5, offset: 0, ...f } as Parameters<typeof listVerifications>[3])).total).toBe(expected[i]);
    const counts = seen.filter((r) => /^SELECT count\(\*\) AS n FROM verifications/.test(r.sql));
    expect(counts).toHaveLength(filters.length);
    for (const r of counts) {
      const plan = await sqlitePlan(sql, r.sql, r.params);
      expect(plan.join('\n')).toMatch(/USING COVERING INDEX verifications_status/);
    }
    db.close();
  });

  it('reads a page filtered by country, type or status off the event loop, counted first, and no page past the total', async () => {
    const { db, q: sql } = open();
    await seed(sql, 8);
    const asked: string[] = [];
    const longReads = {
      all: <T,>(s: string, p?: SqlValue[]) => (asked.push(s), sql.all<T>(s, p)),
      get: <T,>(s: string, p?: SqlValue[]) => (asked.push(s), sql.get<T>(s, p)),
    };
    type Query = Parameters<typeof listVerifications>[3];
    const ask = (f: object) => ({ limit: 3, offset: 0, ...f }) as Query;
    for (const f of [{ country: 'NG' }, { type: 'account' }, { type: 'ACCOUNT_NUMBER', status: 'failed' }, { country: 'NG', offset: 6 }]) {
      asked.length = 0;
      const onLoop = await listVerifications(sql, 'org_a', 'sandbox', ask(f));
      expect(await listVerifications(sql, 'org_a', 'sandbox', ask(f), longReads)).toEqual(onLoop);
      expect(asked.filter((s) => /^SELECT result FROM verifications/.test(s)), JSON.stringify(f)).toHaveLength(1);
    }
    // A status alone goes there too (the list's index does not carry it); no filter at all (or only dates): the
    // ordering index has every column, and the page stays on the connection (only the total moves).
    for (const [f, pages] of [[{ status: 'failed' }, 1], [{}, 0], [{ from: '2026-01-01' }, 0]] as const) {
      asked.length = 0;
      await listVerifications(sql, 'org_a', 'sandbox', ask(f), longReads);
      expect(asked.filter((s) => /^SELECT result/.test(s)), JSON.stringify(f)).toHaveLength(pages);
    }
    // A type with no checks, or a page past the end: the total says so, and no page is read.
    for (const f of [{ type: 'phone' }, { country: 'NG', offset: 8 }]) {
      asked.length = 0;
      expect(await listVerifications(sql, 'org_a', 'sandbox', ask(f), longReads)).toEqual({ data: [], total: f.offset === 8 ? 8 : 0 });
      expect(asked.filter((s) => /^SELECT result/.test(s))).toEqual([]);
    }
    // Inside a transaction (whose writes only its connection sees) nothing goes to the long reads.
    asked.length = 0;
    await sql.transaction(async (tx) => {
      await seed(tx, 1, 8);
      expect((await listVerifications(tx, 'org_a', 'sandbox', ask({ country: 'NG' }), longReads)).total).toBe(9);
    });
    expect(asked).toEqual([]);
    db.close();
  });

  it('counts tables without a write counter every time', async () => {
    const { db, q: sql } = open();
    const f = async () => (await listPage(sql, { select: 'id', from: 'organizations', filter: new ListFilter(), orderBy: 'id', limit: 10, offset: 0 })).total;
    expect(await f()).toBe(1);
    db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org_b', 'B', '2026-01-01T00:00:00.000Z')").run();
    expect(await f()).toBe(2);
    db.close();
  });
});
