// The off-loop sync of the group commit (store/group-commit.ts, store/wal-sync.ts) on a real SQLite file: writes
// are durable and readable after a reopen, the thread's own connection checkpoints (the main connection's
// automatic checkpoint is only a distant safety net), and the connection's other transactions keep FULL.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src-main/store/database';
import { GroupCommitter } from '../../../src-main/store/group-commit';
import { MAIN_AUTOCHECKPOINT_PAGES } from '../../../src-main/store/wal-sync';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fresh(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vc-sync-'));
  dirs.push(dir);
  return join(dir, 'store.sqlite');
}

describe('group commit with the WAL synced off the event loop', () => {
  it('commits every write, fails one alone, and keeps FULL for the connection outside group transactions', async () => {
    const file = fresh();
    const db = openDatabase(file);
    db.exec('CREATE TABLE t (v INTEGER NOT NULL UNIQUE)');
    const c = new GroupCommitter(db, { offLoopSync: true });
    const results = await Promise.allSettled(
      Array.from({ length: 300 }, (_, i) => c.commit(() => void db.prepare('INSERT INTO t (v) VALUES (?)').run(i === 7 ? 6 : i))),
    );
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(MAIN_AUTOCHECKPOINT_PAGES);
    await c.durable();
    await c.close();
    await expect(c.commit(() => undefined)).rejects.toThrow(/closing/);
    db.close();
    const again = openDatabase(file);
    expect(again.prepare('SELECT count(*) FROM t').pluck().get()).toBe(299);
    expect(again.pragma('integrity_check', { simple: true })).toBe('ok');
    again.close();
  });

  it('checkpoints on its own connection: the database file grows long before the main connection would checkpoint', async () => {
    const file = fresh();
    const db = openDatabase(file);
    db.exec('CREATE TABLE t (v INTEGER NOT NULL, pad TEXT NOT NULL)');
    const c = new GroupCommitter(db, { offLoopSync: true });
    const before = statSync(file).size;
    const pad = 'x'.repeat(2000);
    // At most ~2,000 pages in all, a fifth of the main connection's bound. Rounds until the thread has checkpointed
    // (it does so after a sync, at most every 250 ms); the bound only keeps a broken build from looping forever.
    for (let round = 0; round < 400 && statSync(file).size <= before; round++) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => c.commit(() => void db.prepare('INSERT INTO t VALUES (?, ?)').run(i, pad))));
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(statSync(file).size).toBeGreaterThan(before);
    await c.close();
    db.close();
  });
});

describe('a sync that fails', () => {
  it('fails the writes waiting for it and every later one (a later sync would prove nothing), with an I/O code', async () => {
    const db = openDatabase(fresh());
    db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
    let fail: (e: Error) => void = () => undefined;
    let syncs = 0;
    const c = new GroupCommitter(db, {
      offLoopSync: true,
      syncForTests: () => {
        syncs++;
        return new Promise<void>((_, reject) => (fail = reject));
      },
    });
    const waiting = Promise.allSettled([1, 2, 3].map((v) => c.commit(() => void db.prepare('INSERT INTO t (v) VALUES (?)').run(v))));
    // The writes are committed (visible on the connection) but not acknowledged while their sync is pending.
    while (syncs === 0) await new Promise((r) => setImmediate(r));
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(3);
    const barrier = c.durable();
    expect(c.isDurable()).toBe(false);
    fail(new Error('EIO: i/o error, fdatasync'));
    const outcomes = await waiting;
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      expect((o as PromiseRejectedResult).reason).toMatchObject({ name: 'StoreError', code: 'SQLITE_IOERR_FSYNC' });
    }
    await expect(barrier).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
    await expect(c.commit(() => undefined)).rejects.toThrow(/did not confirm a write/);
    await expect(c.durable()).rejects.toThrow(/restart the service/);
    await c.close();
    db.close();
  });
});
