// The SQL port behaves the same on both engines (store/sql-port.ts): the same calls, placeholders and values give
// the same rows; transactions commit whole, roll back whole, nest as savepoints, and are not seen from outside
// before they commit. One suite, run once per engine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src-main/store/database';
import { createSqlitePort } from '../../../src-main/store/sqlite-port';
import { createPgPort } from '../../../src-main/store/pg/pg-port';
import type { SqlPort } from '../../../src-main/store/sql-port';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';

interface Engine {
  name: string;
  open(): Promise<SqlPort>;
  ddl: string;
  cleanup(): Promise<void>;
}

let pgDb: TestDatabase | undefined;
let dir: string | undefined;

const ENGINES: Engine[] = [
  {
    name: 'sqlite',
    ddl: 'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, r REAL, s TEXT, b BLOB) STRICT',
    async open() {
      dir = mkdtempSync(join(tmpdir(), 'vc-port-'));
      return createSqlitePort(openDatabase(join(dir, 'store.sqlite'), []), { closeConnection: true });
    },
    async cleanup() {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  },
  {
    name: 'postgres',
    ddl: 'CREATE TABLE t (id text PRIMARY KEY, n bigint, r double precision, s text, b bytea)',
    async open() {
      pgDb = await freshDatabase();
      return createPgPort(pgDb.url);
    },
    async cleanup() {
      await pgDb?.drop();
    },
  },
];

describe.each(ENGINES)('the SQL port on $name', (engine) => {
  let port: SqlPort;
  beforeAll(async () => {
    port = await engine.open();
    await port.exec(engine.ddl);
  });
  afterAll(async () => {
    await port.close();
    await engine.cleanup();
  });

  it('reads back what it wrote, with the same JS types on both engines', async () => {
    const big = 2 ** 53 - 1;
    await port.run('INSERT INTO t (id, n, r, s, b) VALUES (?, ?, ?, ?, ?)', ['a', big, 0.1 + 0.2, 'é ✓ "q" \'s\'', Buffer.from([0, 1, 255])]);
    await port.run('INSERT INTO t (id, n, r, s, b) VALUES (@id, @n, @r, @s, @b)', { id: 'b', n: 5n, r: -1.5, s: null, b: null });
    await port.run('INSERT INTO t (id, n) VALUES (?, ?)', ['c', true]);
    expect(await port.all('SELECT id, n, r, s, b FROM t ORDER BY id')).toEqual([
      { id: 'a', n: big, r: 0.1 + 0.2, s: 'é ✓ "q" \'s\'', b: Buffer.from([0, 1, 255]) },
      { id: 'b', n: 5, r: -1.5, s: null, b: null },
      { id: 'c', n: 1, r: null, s: null, b: null },
    ]);
    expect(await port.get('SELECT count(*) AS n, sum(n) AS total, 1 = 1 AS yes, 1 = 2 AS no FROM t WHERE id <> ?', ['a'])).toEqual({ n: 2, total: 6, yes: 1, no: 0 });
    expect(await port.get('SELECT id FROM t WHERE id = ?', ['zzz'])).toBeUndefined();
  });

  it('refuses to read an integer it cannot hold exactly, rather than round it', async () => {
    await port.run('INSERT INTO t (id, n) VALUES (?, ?)', ['huge', 2n ** 60n]);
    await expect(port.get('SELECT n FROM t WHERE id = ?', ['huge'])).rejects.toThrow(/beyond 2\^53/);
    await port.run('DELETE FROM t WHERE id = ?', ['huge']);
  });

  it('counts changed rows, RETURNING rows included', async () => {
    expect(await port.run('UPDATE t SET s = ? WHERE id IN (?, ?)', ['x', 'b', 'c'])).toEqual({ changes: 2 });
    expect(await port.run('UPDATE t SET s = ? WHERE id = ?', ['x', 'none'])).toEqual({ changes: 0 });
    const r = await port.query<{ id: string }>('UPDATE t SET s = ? WHERE id = ? RETURNING id', ['y', 'b']);
    expect(r).toEqual({ rows: [{ id: 'b' }], changes: 1 });
  });

  it('commits a transaction whole, rolls it back whole, and a nested one alone', async () => {
    const got = await port.transaction(async (tx) => {
      await tx.run('INSERT INTO t (id) VALUES (?)', ['t1']);
      await tx
        .transaction(async (inner) => {
          await inner.run('INSERT INTO t (id) VALUES (?)', ['t2']);
          throw new Error('inner fails');
        })
        .catch((e: Error) => expect(e.message).toBe('inner fails'));
      await tx.transaction(async (inner) => inner.run('INSERT INTO t (id) VALUES (?)', ['t3']));
      return (await tx.all<{ id: string }>("SELECT id FROM t WHERE id LIKE 't%' ORDER BY id")).map((r) => r.id);
    });
    expect(got).toEqual(['t1', 't3']);
    await expect(
      port.transaction(async (tx) => {
        await tx.run('INSERT INTO t (id) VALUES (?)', ['t4']);
        await tx.run('INSERT INTO t (id) VALUES (?)', ['t1']); // duplicate key: the whole transaction goes
      }),
    ).rejects.toThrow();
    expect((await port.all<{ id: string }>("SELECT id FROM t WHERE id LIKE 't%' ORDER BY id")).map((r) => r.id)).toEqual(['t1', 't3']);
  });

  it('never shows a transaction to a statement outside it before it commits', async () => {
    let committed = false;
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const started = new Promise<void>((r) => (inside = r));
    const tx = port.transaction(async (t) => {
      await t.run('INSERT INTO t (id) VALUES (?)', ['u1']);
      inside();
      await hold;
    }).then(() => (committed = true));
    await started;
    // SQLite: the read waits for the transaction (one connection); PostgreSQL: it reads the last committed state.
    const outside = port.get<{ n: number }>("SELECT count(*) AS n FROM t WHERE id = 'u1'").then((r) => ({ n: r!.n, afterCommit: committed }));
    await new Promise((r) => setTimeout(r, 20));
    release();
    await tx;
    const o = await outside;
    expect(o.n).toBe(o.afterCommit ? 1 : 0);
  });

  it('refuses a transaction object used after it ended', async () => {
    let leaked: { run(sql: string): Promise<unknown> } | undefined;
    await port.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.run("DELETE FROM t WHERE id = 'a'")).rejects.toThrow(/already ended/);
  });
});
