// History search with its index off the write path (migration 20, core/verification/search-index.ts): a search
// answers exactly as if the index were written with each row. The first part runs on both engines through a real
// service; the rest is SQLite's indexer itself — a core without background loops (so only a search can have indexed
// a row), old stores migrated, bounded batches, deletes and reused rowids, the background loop and a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReaderThread } from '../../../src-main/store/reader-thread';
import { createHandlers, dispatch, type Handlers } from '../../../src-main/console/handlers';
import { enableService, setPrice, topUp } from '../../../src-main/core/billing/billing';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { insertVerification, updateVerification } from '../../../src-main/core/verification/records';
import { scopeToken, searchVerifications } from '../../../src-main/core/verification/search';
import {
  catchUpSearchIndex,
  indexSearchBatch,
  SEARCH_INDEX_BATCH_ROWS,
  SEARCH_INDEX_SQL,
  searchIndexBehind,
  searchIndexedThrough,
  startSearchIndexer,
} from '../../../src-main/core/verification/search-index';
import { FEATURES } from '../../../src-main/features';
import { liveProviders } from '../../../src-main/providers/registry';
import { createCore, type Core } from '../../../src-main/service';
import { openDatabase } from '../../../src-main/store/database';
import { MIGRATIONS } from '../../../src-main/store/migrations';
import { createServicePort } from '../../../src-main/store/service-port';
import type { SqlQueries } from '../../../src-main/store/sql-port';
import { storeFile } from '../../../src-main/store/store-open';
import type { VerificationRecord } from '../../../src-shared/schemas/verification';
import { api, newKey, NG_OK, sqliteOnly, startTestService, TEST_PASSWORD, type TestService } from '../../helpers/harness';

type Hits = { data: { id: string; status: string }[]; pagination: { total: number; totalCapped: boolean } };

async function call<T>(handlers: Handlers, channel: string, input: unknown): Promise<T> {
  const r = await dispatch(handlers, channel, input);
  if (!r.ok) throw new Error(`${channel}: ${JSON.stringify(r.error)}`);
  return r.value as T;
}
const searchWith = async (handlers: Handlers, q: string) => (await call<Hits>(handlers, 'history:search', { environment: 'sandbox', q })).data.map((r) => r.id);

/** Waits for a condition the background loop makes true (never for a span of time); fails after `ms`. */
async function until(what: string, cond: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('History search finds what was just written (both engines)', () => {
  let ts: TestService;
  beforeAll(async () => {
    ts = await startTestService();
  });
  afterAll(async () => {
    await ts.stop();
  });

  it('finds a sync check at once, and an async check by the names it completed with', async () => {
    const search = (q: string) => searchWith(ts.service.handlers, q);
    const sync = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: { country: 'NG', accountNumber: '0690000031', bankCode: '044' } });
    expect(sync.status, sync.text).toBe(200);
    expect(await search('0690000031')).toEqual([sync.body.id]);
    const pending = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: { ...NG_OK, mode: 'async' } });
    expect(pending.status, pending.text).toBe(202);
    expect(await search('0123456789')).toEqual([pending.body.id]);
    await ts.service.worker.drain();
    expect((await call<Hits>(ts.service.handlers, 'history:search', { environment: 'sandbox', q: 'okafor' })).data).toEqual([
      expect.objectContaining({ id: pending.body.id, status: 'success' }),
    ]);
  });
});

sqliteOnly.describe('the SQLite search index off the write path', () => {
  const dirs: string[] = [];
  const cores: Core[] = [];
  afterEach(async () => {
    for (const c of cores.splice(0)) await c.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const freshDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'vc-search-'));
    dirs.push(d);
    return d;
  };

  /** A core without the service's background loops (no indexer loop, no queue): only a search indexes. */
  async function quietCore(dataDir: string, bootstrapped = true): Promise<{ core: Core; handlers: Handlers; org: string; sandboxKey: string }> {
    const core = await createCore({ dataDir, startWorker: false, logLevel: 'silent', scryptN: 1024 });
    cores.push(core);
    const boot = bootstrapped ? await bootstrap(core.deps, { email: `o-${Math.random().toString(36).slice(2, 8)}@example.com`, password: TEST_PASSWORD }) : null;
    const ctx = { rt: core.rt, door: 'web' as const };
    const handlers = createHandlers(ctx, FEATURES.flatMap((f) => (f.consoleHandlers ? [f.consoleHandlers(ctx)] : [])));
    const org = (await core.deps.sql.get<{ id: string }>('SELECT id FROM organizations ORDER BY created_at LIMIT 1'))?.id ?? '';
    return { core, handlers, org, sandboxKey: boot?.keys.sandbox.key ?? '' };
  }
  const rowidOf = async (q: SqlQueries, id: string) => (await q.get<{ r: number }>('SELECT rowid AS r FROM verifications WHERE id = ?', [id]))!.r;
  const verify = async (handlers: Handlers, request: object) => (await call<{ id: string; status: string }>(handlers, 'verify:account', { environment: 'sandbox', request })).id;

  /** A finished sandbox account record as the engine stores it. */
  function record(id: string, identifier: string, name: string): VerificationRecord {
    const at = new Date().toISOString();
    return {
      id,
      status: 'success',
      verified: true,
      verificationType: 'ACCOUNT_NUMBER',
      identifier,
      country: 'NG',
      environment: 'sandbox',
      mode: 'sync',
      createdAt: at,
      completedAt: at,
      source: 'live',
      accountName: name,
      charge: { amount: 0, currency: 'USD', status: 'not_charged' },
    } as VerificationRecord;
  }

  it('indexes nothing on the write; the search catches the index up and finds the check written a moment ago', async () => {
    const { core, handlers } = await quietCore(freshDir());
    const sql = core.deps.sql;
    const id = await verify(handlers, NG_OK);
    const rowid = await rowidOf(sql, id);
    expect(await searchIndexedThrough(sql)).toBeLessThan(rowid);
    expect(await searchIndexBehind(sql)).toBe(true);
    expect(await searchWith(handlers, 'okafor')).toEqual([id]);
    expect(await searchIndexedThrough(sql)).toBeGreaterThanOrEqual(rowid);
    expect(await searchIndexBehind(sql)).toBe(false);
  });

  it('reads words on the reader thread, and still finds the check written a moment ago', async () => {
    const { core, handlers } = await quietCore(freshDir());
    const reader = core.deps.longReads!;
    expect(reader).toBeInstanceOf(ReaderThread);
    const served = (reader as ReaderThread).served;
    const before = { ...served };
    const asked = vi.spyOn(reader, 'all');
    const filtered = async (q: string, status: string) =>
      (await call<Hits>(handlers, 'history:search', { environment: 'sandbox', q, status })).data.map((r) => r.id);
    for (let i = 0; i < 3; i++) {
      const id = await verify(handlers, NG_OK);
      // Written, then searched at once: the search catches the index up on the service's connection and commits it
      // before the reader thread reads the matches.
      expect(await filtered('okafor', 'success')).toContain(id);
    }
    expect(await filtered('okafor', 'failed')).toEqual([]);
    const matches = asked.mock.calls.filter(([sql]) => /verification_search MATCH/.test(sql));
    expect(matches).toHaveLength(4);
    // Answered by the thread itself, not by its fallback on the service's connection.
    expect(served.fallback).toBe(before.fallback);
    expect(served.thread - before.thread).toBeGreaterThanOrEqual(matches.length);
    // Words alone go there too (a short prefix walks many matches in the index); an id stays on the connection.
    asked.mockClear();
    expect(await searchWith(handlers, 'okafor')).toHaveLength(3);
    expect(asked.mock.calls.filter(([sql]) => /MATCH/.test(sql))).toHaveLength(1);
    const [someId] = await searchWith(handlers, 'okafor');
    asked.mockClear();
    expect(await searchWith(handlers, someId!.slice(0, 12))).toContain(someId);
    expect(asked.mock.calls.map(([sql]) => sql)).toEqual([]);
  });

  it('finds an async check by its completed names, and a changed check by its new names only', async () => {
    const { core, handlers, org } = await quietCore(freshDir());
    const sql = core.deps.sql;
    const id = (await call<{ id: string; status: string }>(handlers, 'verify:account', { environment: 'sandbox', request: { ...NG_OK, mode: 'async' } })).id;
    // Pending: found by its identifier (this search indexes the pending row), not by the names it has not returned yet.
    expect(await searchWith(handlers, '0123456789')).toEqual([id]);
    expect(await searchWith(handlers, 'okafor')).toEqual([]);
    // The queue completes it: the row was indexed while pending, so it is now noted as changed.
    core.worker.start();
    await core.worker.drain();
    expect(await sql.get('SELECT 1 AS dirty FROM verification_search_dirty WHERE verification_rowid = ?', [await rowidOf(sql, id)])).toEqual({ dirty: 1 });
    expect(await searchWith(handlers, 'okafor adaeze')).toEqual([id]);
    // Its names change (a writer rewrites the stored record): only the new ones find it.
    const stored = JSON.parse((await sql.get<{ result: string }>('SELECT result FROM verifications WHERE id = ?', [id]))!.result) as VerificationRecord;
    await sql.transaction((tx) => updateVerification(tx, { ...stored, accountName: 'WANJIRU MWANGI' } as VerificationRecord));
    expect(await searchWith(handlers, 'okafor')).toEqual([]);
    expect(await searchWith(handlers, 'mwangi wanj')).toEqual([id]);
    expect(await searchWith(handlers, '0123456789')).toEqual([id]);
    expect(await sql.get('SELECT count(*) AS n FROM verification_search_dirty')).toEqual({ n: 0 });
    // The scope still holds: another environment or organization never sees it.
    expect((await searchVerifications(sql, org, 'live', { q: 'mwangi', limit: 20, offset: 0 })).data).toEqual([]);
  });

  it('forgets deleted rows, indexed or not, and indexes a new row that reuses a deleted rowid', async () => {
    const { core, handlers, org } = await quietCore(freshDir());
    const sql = core.deps.sql;
    const write = (id: string, identifier: string, name: string) => sql.transaction((tx) => insertVerification(tx, { kind: 'account', organizationId: org, request: { country: 'NG', accountNumber: identifier, bankCode: '058' }, record: record(id, identifier, name) }));
    const del = (id: string) => sql.transaction((tx) => tx.run('DELETE FROM verifications WHERE id = ?', [id]));
    await write('ver_del000000000000000000001', '5550000001', 'KOFI MENSAH');
    await write('ver_del000000000000000000002', '5550000002', 'KOFI BOATENG');
    await write('ver_del000000000000000000003', '5550000003', 'KOFI ASANTE');
    expect(await searchWith(handlers, 'kofi')).toHaveLength(3); // all three indexed now
    // An indexed row in the middle, then one written after the last search (never indexed).
    await del('ver_del000000000000000000002');
    await write('ver_del000000000000000000004', '5550000004', 'KOFI DLAMINI');
    expect(await searchIndexedThrough(sql)).toBeLessThan(await rowidOf(sql, 'ver_del000000000000000000004'));
    await del('ver_del000000000000000000004');
    expect(await searchWith(handlers, 'kofi')).toEqual(['ver_del000000000000000000003', 'ver_del000000000000000000001']);
    expect(await searchWith(handlers, '5550000002')).toEqual([]);
    // The newest rows go: the next insert reuses a rowid (no INTEGER PRIMARY KEY) at or below where the index had
    // reached, and is still indexed.
    const reached = await searchIndexedThrough(sql);
    await del('ver_del000000000000000000003');
    await write('ver_del000000000000000000005', '5550000005', 'AMARA NDLOVU');
    expect(await rowidOf(sql, 'ver_del000000000000000000005')).toBeLessThanOrEqual(reached);
    expect(await searchWith(handlers, 'ndlovu')).toEqual(['ver_del000000000000000000005']);
    expect(await searchWith(handlers, 'asante')).toEqual([]);
    expect(await searchWith(handlers, 'kofi')).toEqual(['ver_del000000000000000000001']);
    // FTS5's own structure check passes.
    await sql.transaction((tx) => tx.run("INSERT INTO verification_search (verification_search, rank) VALUES ('integrity-check', 0)"));
  });

  it('keeps the watermark at or below the last row when one delete takes indexed rows and the unindexed newest (demo data removal)', async () => {
    const { core, handlers, org } = await quietCore(freshDir());
    const sql = core.deps.sql;
    const ids = Array.from({ length: 6 }, (_, i) => `ver_demo00000000000000000${i + 1}`);
    await sql.transaction(async (tx) => {
      for (const [i, id] of ids.entries()) {
        await insertVerification(tx, { kind: 'account', organizationId: org, request: {}, record: record(id, String(6_600_000_001 + i), 'DEMO PERSON') });
        await tx.run("INSERT INTO demo_records (table_name, record_id) VALUES ('verifications', ?)", [id]);
      }
    });
    // The background loop had indexed part of the demo rows when they were removed: the watermark is inside them.
    const last = await rowidOf(sql, ids[5]!);
    await indexSearchBatch(sql, 3);
    expect(await searchIndexedThrough(sql)).toBe(await rowidOf(sql, ids[2]!));
    const { removeDemo } = await import('../../../src-main/core/demo/demo-data');
    expect((await removeDemo(core.rt)).removed).toMatchObject({ verifications: 6 });
    // Migration 20 left the watermark at the third demo row: the next checks reused rowids counted as indexed, and
    // no search ever found them.
    const lastLeft = (await sql.get<{ m: number }>('SELECT coalesce(max(rowid), 0) AS m FROM verifications'))!.m;
    expect(await searchIndexedThrough(sql)).toBeLessThanOrEqual(lastLeft);
    const fresh = await verify(handlers, NG_OK);
    expect(await rowidOf(sql, fresh)).toBeLessThanOrEqual(last);
    expect(await searchWith(handlers, 'okafor')).toEqual([fresh]);
    expect(await searchWith(handlers, 'demo')).toEqual([]);
  });

  it('repairs a store whose watermark migration 20 left above its last row (migration 21)', async () => {
    const dataDir = freshDir();
    const at20 = openDatabase(storeFile(dataDir), MIGRATIONS.filter((m) => m.version <= 20));
    const sql20 = createServicePort(at20);
    const org = 'org_hurt';
    const write = (id: string, identifier: string, name: string) =>
      sql20.transaction((tx) => insertVerification(tx, { kind: 'account', organizationId: org, request: {}, record: record(id, identifier, name) }));
    await sql20.transaction((tx) => tx.run("INSERT INTO organizations (id, name, created_at) VALUES (?, 'Hurt', '2026-01-01T00:00:00.000Z')", [org]));
    for (let i = 1; i <= 6; i++) await write(`ver_hurt00000000000000000${i}`, String(3_300_000_000 + i), 'NALEDI DUBE');
    await indexSearchBatch(sql20, 5);
    // Migration 20's trigger: the watermark stays at 5 while rows 5 and 6 go in one statement.
    await sql20.transaction((tx) => tx.run('DELETE FROM verifications WHERE rowid >= 5'));
    expect(await searchIndexedThrough(sql20)).toBe(5);
    await write('ver_hurt000000000000000007', '3300000777', 'THABO NKOSI'); // rowid 5, counted as indexed
    expect(await searchIndexBehind(sql20)).toBe(false);
    expect((await searchVerifications(sql20, org, 'sandbox', { q: 'nkosi', limit: 20, offset: 0 })).data).toEqual([]);
    at20.close();
    // Opened by this version: migration 21 brings the watermark down and notes the row the index lacks.
    const { core } = await quietCore(dataDir, false);
    const sql = core.deps.sql;
    expect(await searchIndexedThrough(sql)).toBe(5);
    expect(await sql.all('SELECT verification_rowid AS r FROM verification_search_dirty')).toEqual([{ r: 5 }]);
    expect((await searchVerifications(sql, org, 'sandbox', { q: 'nkosi', limit: 20, offset: 0 })).data.map((r) => r.id)).toEqual(['ver_hurt000000000000000007']);
    expect((await searchVerifications(sql, org, 'sandbox', { q: 'naledi', limit: 20, offset: 0 })).data).toHaveLength(4);
    await sql.transaction((tx) => tx.run("INSERT INTO verification_search (verification_search, rank) VALUES ('integrity-check', 0)"));
  });

  it('relies on FTS5 (contentless_delete=1) ignoring the delete of a rowid it never held', async () => {
    const { core, handlers } = await quietCore(freshDir());
    const sql = core.deps.sql;
    const id = await verify(handlers, NG_OK);
    expect(await searchWith(handlers, 'okafor')).toEqual([id]);
    const rowid = await rowidOf(sql, id);
    const pages = async () => (await sql.get<{ n: number; b: number }>('SELECT count(*) AS n, sum(length(block)) AS b FROM verification_search_data'))!;
    const before = await pages();
    await sql.transaction(async (tx) => {
      for (const r of [rowid - 1, rowid + 1, rowid + 1000]) await tx.run('DELETE FROM verification_search WHERE rowid = ?', [r]);
    });
    expect(await pages()).toEqual(before);
    expect(await searchWith(handlers, 'okafor')).toEqual([id]);
    await sql.transaction((tx) => tx.run("INSERT INTO verification_search (verification_search, rank) VALUES ('integrity-check', 0)"));
  });

  it('catches up in bounded batches, one transaction each, and finds every row', async () => {
    const { core, org } = await quietCore(freshDir());
    const sql = core.deps.sql;
    const N = 5000;
    await sql.transaction(async (tx) => {
      for (let i = 0; i < N; i++) {
        const id = `ver_bulk${String(i).padStart(20, '0')}`;
        await insertVerification(tx, { kind: 'account', organizationId: org, request: { country: 'NG', accountNumber: String(7_000_000_000 + i), bankCode: '058' }, record: record(id, String(7_000_000_000 + i), `TENDAI MOYO${i % 2 === 0 ? '' : ' ODHIAMBO'}`) });
      }
    });
    // The real search, through a port that counts its transactions and the index rows each one writes.
    const batches: number[] = [];
    const counting: SqlQueries = Object.assign(Object.create(sql) as SqlQueries, {
      transaction: <T>(fn: (tx: SqlQueries) => Promise<T>) =>
        sql.transaction(async (tx) => {
          const before = (await tx.get<{ w: number }>('SELECT indexed_through AS w FROM verification_search_state'))!.w;
          const out = await fn(tx);
          const after = (await tx.get<{ w: number }>('SELECT indexed_through AS w FROM verification_search_state'))!.w;
          batches.push((await tx.get<{ n: number }>('SELECT count(*) AS n FROM verifications WHERE rowid > ? AND rowid <= ?', [before, after]))!.n);
          return out;
        }),
    });
    const found = await searchVerifications(counting, org, 'sandbox', { q: 'tendai moyo', limit: 20, offset: 0 });
    expect(found.pagination).toMatchObject({ total: 1000, totalCapped: true });
    expect(batches.length).toBeGreaterThanOrEqual(N / SEARCH_INDEX_BATCH_ROWS);
    expect(Math.max(...batches)).toBeLessThanOrEqual(SEARCH_INDEX_BATCH_ROWS);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(N);
    for (const i of [0, 1, 2499, N - 1]) {
      expect((await searchVerifications(sql, org, 'sandbox', { q: String(7_000_000_000 + i), limit: 20, offset: 0 })).data.map((r) => r.id)).toEqual([`ver_bulk${String(i).padStart(20, '0')}`]);
    }
    // Every row is in the index exactly once.
    const scope = scopeToken(org, 'sandbox');
    expect(await sql.get('SELECT count(*) AS n FROM verification_search WHERE verification_search MATCH ?', [`scope:"${scope}"`])).toEqual({ n: N });
    expect(await sql.get('SELECT count(*) AS n FROM verification_search WHERE verification_search MATCH ?', [`scope:"${scope}" AND names:"odhiambo"`])).toEqual({ n: N / 2 });
  });

  it('keeps the rows of a store written before migration 20 searchable, and indexes what comes after', async () => {
    const dataDir = freshDir();
    // A store at migration 19, written through the old triggers.
    const old = openDatabase(storeFile(dataDir), MIGRATIONS.filter((m) => m.version < 20));
    const oldSql = createServicePort(old);
    const org = 'org_old';
    await oldSql.transaction(async (tx) => {
      await tx.run("INSERT INTO organizations (id, name, created_at) VALUES (?, 'Old', '2026-01-01T00:00:00.000Z')", [org]);
      for (let i = 0; i < 30; i++) {
        await insertVerification(tx, { kind: 'account', organizationId: org, request: {}, record: record(`ver_old${String(i).padStart(21, '0')}`, String(4_400_000_000 + i), 'GRACE SILVA') });
      }
    });
    const lastOld = (await oldSql.get<{ r: number }>('SELECT max(rowid) AS r FROM verifications'))!.r;
    old.close();
    const { core } = await quietCore(dataDir, false);
    const sql = core.deps.sql;
    expect(await searchIndexedThrough(sql)).toBe(lastOld);
    expect(await searchIndexBehind(sql)).toBe(false);
    const q = (text: string) => searchVerifications(sql, org, 'sandbox', { q: text, limit: 50, offset: 0 });
    const olds = Array.from({ length: 30 }, (_, i) => `ver_old${String(29 - i).padStart(21, '0')}`);
    expect((await q('grace silva')).data.map((r) => r.id)).toEqual(olds);
    expect((await q('440000001')).data.map((r) => r.id)).toEqual(olds.slice(10, 20));
    await sql.transaction((tx) => insertVerification(tx, { kind: 'account', organizationId: org, request: {}, record: record('ver_new000000000000000000001', '4400000999', 'GRACE SILVA') }));
    expect((await q('grace silva')).data.map((r) => r.id)).toEqual(['ver_new000000000000000000001', ...olds]);
    expect(await searchIndexBehind(sql)).toBe(false);
  });

  it('is brought up to date by the service in the background, without a search, and after a restart', async () => {
    const dataDir = freshDir();
    // Checks written while no service ran (a CLI, an admin core): an unindexed tail.
    const first = await quietCore(dataDir);
    const written = [await verify(first.handlers, NG_OK), await verify(first.handlers, { country: 'NG', accountNumber: '0690000031', bankCode: '044' })];
    const lastRowid = await rowidOf(first.core.deps.sql, written[1]!);
    expect(await searchIndexedThrough(first.core.deps.sql)).toBeLessThan(lastRowid);
    await first.core.close();
    cores.splice(cores.indexOf(first.core), 1);
    // The service starts: its indexer catches up on its own.
    const ts = await startTestService({ dataDir, bootstrap: false });
    try {
      const sql = ts.service.deps.sql;
      await until('the restarted service indexed the tail', async () => (await searchIndexedThrough(sql)) >= lastRowid);
      // New writes while it runs, one of them completed after it may have been indexed: the loop follows.
      const more = await api(ts.url, 'POST', '/verify/account', { key: first.sandboxKey, idem: newKey(), body: { ...NG_OK, mode: 'async' } });
      expect(more.status, more.text).toBe(202);
      await ts.service.worker.drain();
      const newest = await rowidOf(sql, more.body.id);
      await until('the loop indexed the new rows and the completed one', async () => (await searchIndexedThrough(sql)) >= newest && !(await searchIndexBehind(sql)));
    } finally {
      await ts.stop();
    }
  });

  it('indexes a check whose stored JSON SQLite cannot read (a provider nested its answer over 1,000 deep), and every search still answers', async () => {
    // The outside world: a live address provider (generic protocol) whose MATCH carries an `address` nested 1,500
    // deep. The service stores it verbatim in the record (generic-adapter.ts, address-spec.ts); SQLite's JSON
    // functions refuse such text ("malformed JSON": deeper than 1,000). Under migration 10's trigger the check's own
    // update failed; with the index off the write path it is stored, and the indexer must not be stuck on it.
    let nested: unknown = 'x';
    for (let i = 0; i < 1500; i++) nested = [nested];
    const provider = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ result: 'MATCH', data: { address: { addressLine1: '10 Downing Street', extra: nested } } }));
      });
    });
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
    const ts = await startTestService();
    try {
      const org = ts.org!.organizationId;
      await topUp(ts.service.deps, org, 10_000, 'USD');
      await setPrice(ts.service.deps, org, 'address', 25, 'USD');
      await enableService(ts.service.deps, org, 'address');
      await liveProviders(ts.service.rt).config.set({
        id: 'deep',
        adapter: 'generic',
        routes: ['address:*'],
        baseUrl: `http://127.0.0.1:${(provider.address() as AddressInfo).port}`,
        secret: 'deep-provider-key-0001',
        timeoutMs: 2000,
        deadlineMs: 4000,
        retries: 0,
        breakerThreshold: 50,
        breakerCooldownMs: 60_000,
      });
      const body = { country: 'GB', addressLine1: '10 Downing Street', city: 'London', postalCode: 'SW1A 2AA', subject: { firstName: 'Chidi', lastName: 'Nwosu' } };
      const posted = await api(ts.url, 'POST', '/verify/address', { key: ts.liveKey, idem: newKey(), body });
      expect(posted.status, posted.text).toBe(202);
      const id = String(posted.body.id);
      const search = async (q: string) => (await call<Hits>(ts.service.handlers, 'history:search', { environment: 'live', q })).data.map((r) => r.id);
      await ts.service.worker.drain();
      const sql = ts.service.deps.sql;
      expect(await sql.get('SELECT status, json_valid(result) AS readable FROM verifications WHERE id = ?', [id])).toEqual({ status: 'success', readable: 0 });
      // Found by what the index can read (its columns and its request); searches and the loop go on.
      expect(await search('nwosu chidi')).toEqual([id]);
      expect(await search('10downing')).toEqual([id]);
      const next = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: { country: 'NG', accountNumber: '0690000031', bankCode: '044' } });
      expect(next.status, next.text).toBe(200);
      expect(await searchWith(ts.service.handlers, '0690000031')).toEqual([next.body.id]);
      expect(await searchIndexBehind(sql)).toBe(false);
    } finally {
      await ts.stop();
      await new Promise((r) => provider.close(r));
    }
  });

  it('finds each dirty row by its rowid, never walking the table (the plan of both statements)', async () => {
    const { core } = await quietCore(freshDir());
    const plan = (sqlText: string, params: number[]) =>
      (core.deps.db!.prepare(`EXPLAIN QUERY PLAN ${sqlText}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(' | ');
    // Re-indexing a completed check costs a lookup, not a walk of every row up to it (230 ms at 1,000,000 rows).
    expect(plan(SEARCH_INDEX_SQL.dirty, [1])).toMatch(/^SEARCH (v|verifications) USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(plan(SEARCH_INDEX_SQL.dirty, [1])).not.toMatch(/SCAN|SEARCH (v|verifications) USING INTEGER PRIMARY KEY \(rowid[<>]/);
    expect(plan(SEARCH_INDEX_SQL.range, [1, 2])).toMatch(/^SEARCH (v|verifications) USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)$/);
  });

  it('logs a failing batch and tries again later, backing off, without crashing or spinning', async () => {
    const { core, handlers } = await quietCore(freshDir());
    await verify(handlers, NG_OK); // not indexed yet: the loop has work
    const sql = core.deps.sql;
    const warnings: { retryInMs: number }[] = [];
    const failing: SqlQueries = Object.assign(Object.create(sql) as SqlQueries, { transaction: () => Promise.reject(new Error('disk I/O error')) });
    const log = { info() {}, debug() {}, error() {}, warn: (o: object | string) => void warnings.push(o as { retryInMs: number }) };
    const loop = startSearchIndexer({ sql: failing, log }, { everyMs: 1 });
    await until('four failures logged', async () => warnings.length >= 4);
    await loop.stop();
    expect(warnings.slice(0, 4).map((w) => w.retryInMs)).toEqual([2, 4, 8, 16]);
    // The real port works again: the index catches up.
    expect(await catchUpSearchIndex(sql)).toMatchObject({ batches: 1 });
  });
});
