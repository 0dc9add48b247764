// The SQL port as the service's store on SQLite (store/service-port.ts, docs/team-server.md "The SQL port"):
// transactions ride the group commit as asynchronous writes, each in its own savepoint, resolved only after the
// WAL sync that covers them; the port refuses writes outside a transaction and any use of itself from inside one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src-main/store/database';
import { GroupCommitter, onWork, signalWork } from '../../../src-main/store/group-commit';
import { createServicePort, outsideTransaction } from '../../../src-main/store/service-port';
import type { SqlQueries } from '../../../src-main/store/sql-port';
import { currentAuditContext, runWithAudit } from '../../../src-main/core/audit/audit-context';

const dirs: string[] = [];
const open: Db[] = [];
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function store(): Db {
  const dir = mkdtempSync(join(tmpdir(), 'vc-port-'));
  dirs.push(dir);
  const db = openDatabase(join(dir, 'store.sqlite'));
  open.push(db);
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)');
  return db;
}

const count = (db: Db) => (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;

describe('the service port on SQLite', () => {
  it('reads outside a transaction, refuses writes there, and nests savepoints', async () => {
    const db = store();
    const sql = createServicePort(db);
    await expect(sql.run("INSERT INTO t VALUES ('a', 1)")).rejects.toThrow(/write outside a transaction/);
    await expect(sql.exec("INSERT INTO t VALUES ('a', 1)")).rejects.toThrow(/outside a transaction/);
    expect(count(db)).toBe(0);

    const out = await sql.transaction(async (tx) => {
      expect(tx.inTransaction).toBe(true);
      await tx.run("INSERT INTO t VALUES ('a', 1)");
      // A nested transaction that fails rolls back alone.
      await expect(
        tx.transaction(async (inner) => {
          await inner.run("INSERT INTO t VALUES ('b', 2)");
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      await tx.transaction(async (inner) => void (await inner.run("INSERT INTO t VALUES ('c', 3)")));
      return (await tx.get<{ n: number }>('SELECT count(*) AS n FROM t'))!.n;
    });
    expect(out).toBe(2);
    expect(sql.inTransaction).toBe(false);
    expect(await sql.all<{ k: string }>('SELECT k FROM t ORDER BY k')).toEqual([{ k: 'a' }, { k: 'c' }]);
    expect(await sql.run('UPDATE t SET v = v WHERE 0').catch((e: Error) => e.message)).toMatch(/write outside/);
  });

  it('refuses the port itself from inside a transaction, however deep the call', async () => {
    const db = store();
    const sql = createServicePort(db);
    const deep = async (q: SqlQueries) => q.get('SELECT 1 AS one');
    await expect(sql.transaction(async () => deep(sql))).rejects.toThrow(/port was used inside a transaction/);
    await expect(sql.transaction(async () => sql.transaction(async () => 1))).rejects.toThrow(/inside a transaction/);
    // The connection is left clean: the next transaction works.
    await sql.transaction(async (tx) => void (await tx.run("INSERT INTO t VALUES ('x', 1)")));
    expect(count(db)).toBe(1);
  });

  it('a read from another flow while a transaction is open waits for its end, and never sees a write that rolls back', async () => {
    const db = store();
    const committer = new GroupCommitter(db, {});
    for (const sql of [createServicePort(db), createServicePort(db, (fn) => committer.commit(fn))]) {
      const reads: Promise<unknown>[] = [];
      await expect(
        sql.transaction(async (tx) => {
          await tx.run("INSERT INTO t VALUES ('dirty', 1)");
          // Another request's continuation, running between two awaited statements of this transaction.
          reads.push(outsideTransaction(() => sql.get("SELECT k FROM t WHERE k = 'dirty'")));
          await tx.get('SELECT 1');
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await Promise.all(reads)).toEqual([undefined]);
      expect(count(db)).toBe(0);
    }
    await committer.close();
  });

  it('a handle used after its transaction ended is refused', async () => {
    const db = store();
    const sql = createServicePort(db);
    let leaked: SqlQueries | null = null;
    await sql.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.get('SELECT 1')).rejects.toThrow(/already ended/);
  });

  it('rides the group commit: concurrent transactions share one commit, a failing one rolls back alone, all resolve after the sync', async () => {
    const db = store();
    const commits: number[] = [];
    const synced: number[] = [];
    let releaseSync: () => void = () => undefined;
    const committer = new GroupCommitter(db, {
      offLoopSync: true,
      observe: { committed: (s) => void commits.push(s), synced: (s) => void synced.push(s) },
      syncForTests: () => new Promise<void>((r) => (releaseSync = r)),
    });
    const sql = createServicePort(db, (fn) => committer.commit(fn));
    const settled: string[] = [];
    const writes = ['a', 'b', 'bad', 'c'].map((k, i) =>
      sql
        .transaction(async (tx) => {
          await tx.run('INSERT INTO t VALUES (?, ?)', [k, i]);
          // Several awaits inside one write: the group waits for each write before the next.
          await tx.get('SELECT count(*) FROM t');
          if (k === 'bad') throw new Error('refused');
          return k;
        })
        .then(
          (v) => void settled.push(`ok:${v}`),
          (e: Error) => void settled.push(`err:${e.message}`),
        ),
    );
    // The failing write learns at once; the others wait for the sync.
    while (commits.length === 0) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(commits).toEqual([1]);
    expect(settled).toEqual(['err:refused']);
    expect(count(db)).toBe(3);
    releaseSync();
    await Promise.all(writes);
    expect(synced).toEqual([1]);
    expect(settled.sort()).toEqual(['err:refused', 'ok:a', 'ok:b', 'ok:c']);
    await committer.close();
  });

  it("a body sees its own caller's audit context, and none when its caller had none, whoever woke the group commit", async () => {
    // The group commit runs bodies from its flush, which keeps the context of the caller that woke it: a background
    // write asked for in the same tick as a request's must not run as that request's actor.
    const db = store();
    const committer = new GroupCommitter(db);
    const sql = createServicePort(db, (fn) => committer.commit(fn));
    const seen: Record<string, unknown> = {};
    const body = (name: string) => (tx: SqlQueries) => {
      seen[name] = currentAuditContext();
      return tx.run('INSERT INTO t VALUES (?, 1)', [name]);
    };
    const request = { door: 'api' as const, actor: { type: 'user' as const, id: 'usr_A', label: 'a@example.com' } };
    const other = { door: 'console' as const, actor: { type: 'user' as const, id: 'usr_B', label: 'b@example.com' } };
    await Promise.all([
      runWithAudit(request, () => sql.transaction(body('request'))),
      sql.transaction(body('background')),
      runWithAudit(other, () => sql.transaction(body('other'))),
    ]);
    expect(seen).toEqual({ request, background: undefined, other });
    expect(count(db)).toBe(3);
    await committer.close();
  });

  it('a signal raised inside a transaction reaches listeners outside it, so they may start transactions of their own', async () => {
    const db = store();
    const sql = createServicePort(db);
    const seen: number[] = [];
    onWork(sql, 'jobs', () => {
      void sql.transaction(async (tx) => {
        seen.push((await tx.get<{ n: number }>('SELECT count(*) AS n FROM t'))!.n);
      });
    });
    await sql.transaction(async (tx) => {
      await tx.run("INSERT INTO t VALUES ('j', 1)");
      signalWork(tx, 'jobs');
    });
    for (let i = 0; i < 5 && seen.length === 0; i++) await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([1]);
  });
});
