// Long reads off the event loop (store/reader-thread.ts, docs/performance.md "Long reads off the event loop"), on a
// real SQLite file: the thread's read-only connection answers as the service's does and sees what the service has
// committed; while it reads, the event loop goes on (the service's own reads answer first); a read that fails fails
// alone; a thread that cannot open the store leaves the reads to the service's connection, with one warning; close
// waits for the reads in flight.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src-main/store/database';
import { ReaderThread } from '../../../src-main/store/reader-thread';
import { ListFilter, listPage } from '../../../src-main/store/list-query';
import { createServicePort } from '../../../src-main/store/service-port';
import type { SqlParams, SqlQueries } from '../../../src-main/store/sql-port';
import { createSqlitePort } from '../../../src-main/store/sqlite-port';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function store(): { file: string; db: Db; reader: ReaderThread; warnings: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'vc-reader-'));
  const file = join(dir, 'store.sqlite');
  const db = openDatabase(file);
  db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL, flag INTEGER NOT NULL)');
  const warnings: string[] = [];
  const reader = new ReaderThread({ file, fallback: createSqlitePort(db), warn: (m) => warnings.push(m) });
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanup.push(() => {
    db.close();
  });
  cleanup.push(() => reader.close());
  return { file, db, reader, warnings };
}

/** A read that takes a while on any machine: a recursive count to n. */
const LONG = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) AS n FROM c';

describe('ReaderThread', () => {
  it('answers as the service connection does, with positional, named and boolean parameters, and sees its commits', async () => {
    const { db, reader, warnings } = store();
    const insert = db.prepare('INSERT INTO t (k, v, flag) VALUES (?, ?, ?)');
    db.transaction(() => {
      for (let k = 1; k <= 50; k++) insert.run(k, `v${k}`, k % 2);
    })();
    const port = createSqlitePort(db);
    const q = 'SELECT k, v FROM t WHERE flag = ? AND k > ? ORDER BY k';
    expect(await reader.all(q, [true, 10])).toEqual(await port.all(q, [true, 10]));
    expect(await reader.get('SELECT count(*) AS n FROM t WHERE v = @v', { v: 'v7' })).toEqual({ n: 1 });
    expect(await reader.get('SELECT v FROM t WHERE k = ?', [999])).toBeUndefined();
    // A commit of the service's connection is seen by the next read.
    insert.run(51, 'new', 0);
    expect(await reader.get('SELECT v FROM t WHERE k = 51')).toEqual({ v: 'new' });
    expect(warnings).toEqual([]);
    // Every one of them answered by the thread (what tests elsewhere check to tell the thread from its fallback).
    expect(reader.served).toEqual({ thread: 4, fallback: 0 });
  });

  it('leaves the event loop free while it reads: a read of the service connection asked after it answers first', async () => {
    const { db, reader } = store();
    db.prepare('INSERT INTO t (k, v, flag) VALUES (1, ?, 0)').run('x');
    const port = createSqlitePort(db);
    await reader.get('SELECT 1 AS one'); // the thread has started
    const order: string[] = [];
    // A timer that turns while the loop is free: the long read runs a few hundred ms, during which it must tick on.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    // On the service's connection this read would run to its end before the next line, and answer first.
    const long = reader.get<{ n: number }>(LONG, [2_000_000]).then((r) => order.push(`long ${r?.n} after ${ticks} ticks`));
    const quick = port.get<{ v: string }>('SELECT v FROM t WHERE k = 1').then((r) => order.push(`quick ${r?.v}`));
    await Promise.all([long, quick]);
    clearInterval(timer);
    expect(order[0]).toBe('quick x');
    // Run on the loop (even deferred), the read would hold it: no tick between its start and its answer.
    const [, n, after] = /^long (\d+) after (\d+) ticks$/.exec(order[1]!)!;
    expect(Number(n)).toBe(2_000_000);
    expect(Number(after)).toBeGreaterThanOrEqual(5);
  });

  it("counts a list's total on the thread outside a transaction, and on the transaction's own connection inside one", async () => {
    const { db, reader } = store();
    db.prepare("INSERT INTO t (k, v, flag) VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 0)").run();
    const asked: string[] = [];
    const countWith = { all: reader.all.bind(reader), get: <T,>(sql: string, p?: SqlParams) => (asked.push(sql), reader.get<T>(sql, p)) };
    const port = createServicePort(db);
    const page = (q: SqlQueries) => listPage(q, { select: 'k', from: 't', filter: new ListFilter().eq('flag', 1), orderBy: 'k', limit: 10, offset: 0, countWith });
    expect(await page(port)).toEqual({ rows: [{ k: 1 }, { k: 2 }], total: 2 });
    expect(asked).toEqual(['SELECT count(*) AS n FROM t WHERE flag = ?']);
    // Inside a transaction, with a row the thread cannot see yet: counted on the transaction's connection.
    await port.transaction(async (tx) => {
      await tx.run("INSERT INTO t (k, v, flag) VALUES (4, 'd', 1)");
      expect((await page(tx)).total).toBe(3);
    });
    expect(asked).toHaveLength(1);
  });

  it('reads on the thread after its wait while the pause (the WAL missed a restart) lasts, never on the service\'s connection', async () => {
    const { file, db } = store();
    const onService: string[] = [];
    const port = createSqlitePort(db);
    const fallback = { all: port.all.bind(port), get: <T,>(sql: string, p?: SqlParams) => (onService.push(sql), port.get<T>(sql, p)) };
    let asked = 0;
    const reader = new ReaderThread({ file, fallback, pause: () => (asked++, true), pauseWaitMs: 40 });
    cleanup.push(() => reader.close());
    expect(await reader.get('SELECT count(*) AS n FROM t')).toEqual({ n: 0 });
    expect(onService).toEqual([]);
    expect(asked).toBeGreaterThan(1); // it looked again while it waited
  });

  it('waits for a pause that ends within its wait, and then reads on the thread, not on the service\'s connection', async () => {
    const { file, db } = store();
    let paused = true;
    const onService: string[] = [];
    const port = createSqlitePort(db);
    const fallback = { all: port.all.bind(port), get: <T,>(sql: string, p?: SqlParams) => (onService.push(sql), port.get<T>(sql, p)) };
    // A wait far longer than the pause: only a thread that never looks again could miss its end.
    const reader = new ReaderThread({ file, fallback, pause: () => paused, pauseWaitMs: 60_000 });
    cleanup.push(() => reader.close());
    const read = reader.get('SELECT count(*) AS n FROM t');
    let answered = false;
    void read.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(answered).toBe(false); // still waiting: neither run on the service's connection nor on the thread
    paused = false;
    expect(await read).toEqual({ n: 0 });
    expect(onService).toEqual([]);
  });

  it('does not wait for a pause while a copy of its store runs (the WAL cannot restart before the copy ends)', async () => {
    const { file, db } = store();
    db.prepare('INSERT INTO t (k, v, flag) VALUES (1, ?, 0)').run('a');
    const port = createSqlitePort(db);
    // A copy held in flight: its destination is locked by another connection, so VACUUM INTO waits (busy timeout).
    const dest = join(file, '..', 'copy.sqlite');
    writeFileSync(dest, '');
    const lock = new Database(dest);
    lock.exec('BEGIN EXCLUSIVE');
    const copier = new ReaderThread({ file, fallback: port });
    cleanup.push(() => copier.close());
    let copied = false;
    const copy = copier.copyInto(dest, () => Promise.reject(new Error('the copy ran on the fallback'))).then(() => (copied = true));
    try {
      // Paused for good, with a wait far longer than the test: only the running copy lets the read go at once.
      const reader = new ReaderThread({ file, fallback: port, pause: () => true, pauseWaitMs: 600_000 });
      cleanup.push(() => reader.close());
      expect(await reader.get('SELECT count(*) AS n FROM t')).toEqual({ n: 1 });
      expect(copied).toBe(false);
      expect(reader.served).toEqual({ thread: 1, fallback: 0 });
    } finally {
      lock.exec('ROLLBACK');
      lock.close();
    }
    await copy;
    const copyDb = new Database(dest, { readonly: true });
    expect(copyDb.prepare('SELECT v FROM t').all()).toEqual([{ v: 'a' }]);
    copyDb.close();
    // The copy is over: a paused read waits again (and here, looking again, it is still waiting).
    const after = new ReaderThread({ file, fallback: port, pause: () => true, pauseWaitMs: 600_000 });
    cleanup.push(() => after.close());
    let answered = false;
    void after.get('SELECT 1 AS one').then(() => (answered = true), () => undefined);
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
  });

  it("walk reads wait out a pause once, then go at once for the thread's walkFreeMs; after that each waits again", async () => {
    const { file, db } = store();
    const port = createSqlitePort(db);
    // Paused for good; with a wait of 0 ms a read that waits looks at the pause exactly once, one that does not, never.
    let looks = 0;
    const free = new ReaderThread({ file, fallback: port, pause: () => (looks++, true), pauseWaitMs: 0, walkFreeMs: 600_000 });
    const spent = new ReaderThread({ file, fallback: port, pause: () => (looks++, true), pauseWaitMs: 0, walkFreeMs: 0 });
    cleanup.push(() => free.close(), () => spent.close());
    const walk = free.walk();
    for (let i = 0; i < 3; i++) expect(await walk.get('SELECT count(*) AS n FROM t')).toEqual({ n: 0 });
    expect(await walk.all('SELECT k FROM t')).toEqual([]);
    expect(looks).toBe(1);
    // The window is the thread's: another walk inside it goes at once too; a read outside a walk still waits.
    await free.walk().get('SELECT 1 AS one');
    expect(looks).toBe(1);
    await free.get('SELECT 1 AS one');
    expect(looks).toBe(2);
    // Once the window has passed (here at once), every walk read waits, whichever walk it is of: the thread goes idle.
    const [a, b] = [spent.walk(), spent.walk()];
    for (let i = 0; i < 3; i++) {
      await a.get('SELECT 1 AS one');
      await b.get('SELECT 1 AS one');
    }
    expect(looks).toBe(8);
    expect(free.served).toEqual({ thread: 6, fallback: 0 });
  });

  it('refuses a long read inside a transaction: another connection would not see its writes', async () => {
    const { db, reader } = store();
    await createServicePort(db).transaction(async () => {
      await expect(reader.get('SELECT count(*) AS n FROM t')).rejects.toThrow(/inside a transaction/);
    });
  });

  it('fails a read alone: a bad statement rejects its promise, and the next read is answered', async () => {
    const { reader } = store();
    await expect(reader.all('SELECT nope FROM t')).rejects.toThrow(/no such column: nope/);
    await expect(reader.all('SELECT count(*) AS n FROM t')).resolves.toEqual([{ n: 0 }]);
  });

  it('reads through the service connection, with one warning, when the thread cannot open the store', async () => {
    const { db } = store();
    const warnings: string[] = [];
    const reader = new ReaderThread({ file: join(tmpdir(), 'vc-reader-missing', 'none.sqlite'), fallback: createSqlitePort(db), warn: (m) => warnings.push(m) });
    cleanup.push(() => reader.close());
    expect(await reader.get('SELECT count(*) AS n FROM t')).toEqual({ n: 0 });
    expect(await reader.get('SELECT count(*) AS n FROM t')).toEqual({ n: 0 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/reader thread could not open the store.*long reads run on the service's connection/);
    expect(reader.served).toEqual({ thread: 0, fallback: 2 });
  });

  it('in a process where nothing else is alive: the first read is answered, close ends it all, an idle thread lets the process exit', () => {
    const run = (mode: string) => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'reader-thread-alone.ts'), mode], { encoding: 'utf8', timeout: 60_000 });
      return { status: r.status, out: r.stdout.trim().split('\n'), err: r.stderr };
    };
    expect(run('first-read')).toEqual({ status: 0, out: ['read {"one":1}', 'closed', 'end'], err: '' });
    expect(run('close')).toEqual({ status: 0, out: ['read', 'closed', 'end'], err: '' });
    const bad = run('bad-parameter');
    expect(bad.status).toBe(0); // not killed by the timeout: nothing held the thread
    expect(bad.out).toEqual([expect.stringMatching(/^refused .*parameter 1 is undefined/), 'end']);
  }, 120_000);

  it('close answers the reads in flight first, then refuses new ones', async () => {
    const { reader } = store();
    await reader.get('SELECT 1 AS one');
    const inFlight = reader.get<{ n: number }>(LONG, [300_000]);
    await reader.close();
    await expect(inFlight).resolves.toEqual({ n: 300_000 });
    await expect(reader.get('SELECT 1 AS one')).rejects.toThrow(/closed/);
  });
});
