// What an idle service does not pay for (docs/performance.md, "Cold start"): a group transaction that changed no
// row (the job worker's and the dispatcher's polls) gets no WAL sync of its own, yet its callers still wait for
// every write committed before it; and the sync thread starts with the first sync, not with the store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../../src-main/store/database';
import { GroupCommitter } from '../../../src-main/store/group-commit';

// Counts the threads started (the real Worker class, wrapped).
const started = vi.hoisted(() => ({ threads: 0 }));
vi.mock('node:worker_threads', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:worker_threads')>();
  class CountingWorker extends real.Worker {
    constructor(...args: ConstructorParameters<typeof real.Worker>) {
      super(...args);
      started.threads++;
    }
  }
  return { ...real, Worker: CountingWorker, default: { ...real, Worker: CountingWorker } };
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fresh(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vc-idle-'));
  dirs.push(dir);
  return join(dir, 'store.sqlite');
}

const turn = () => new Promise((r) => setImmediate(r));

describe('idle group transactions', () => {
  it('are not synced, but wait for the writes committed before them', async () => {
    const db = openDatabase(fresh());
    db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
    let syncs = 0;
    let release: () => void = () => undefined;
    const commits: number[] = [];
    const c = new GroupCommitter(db, {
      offLoopSync: true,
      observe: { committed: (seq) => void commits.push(seq) },
      syncForTests: () => {
        syncs++;
        return new Promise<void>((r) => (release = r));
      },
    });
    const poll = () => c.commit(() => void db.prepare('UPDATE t SET v = v + 1 WHERE v < 0').run());

    // Nothing outstanding: an idle poll is answered at once, with no commit and no sync.
    await poll();
    expect(syncs).toBe(0);
    expect(commits).toEqual([]);

    // A write whose sync is pending, then a poll that may have read it: the poll waits for that sync.
    let wrote = false;
    let polled = false;
    void c.commit(() => void db.prepare('INSERT INTO t (v) VALUES (1)').run()).then(() => (wrote = true));
    while (syncs === 0) await turn();
    void poll().then(() => (polled = true));
    for (let i = 0; i < 5; i++) await turn();
    expect([wrote, polled]).toEqual([false, false]);
    expect(syncs).toBe(1);
    release();
    while (!polled || !wrote) await turn();
    expect(syncs).toBe(1);
    expect(commits).toEqual([1]);

    // A write that fails alone in a batch that changed nothing still fails, and alone.
    await expect(c.commit(() => void db.prepare('INSERT INTO t (v) VALUES (NULL)').run())).rejects.toThrow(/NOT NULL/);
    await poll();
    expect(syncs).toBe(1);
    await c.close();
    db.close();
  });

  it('start no sync thread: it starts with the first write', async () => {
    const db = openDatabase(fresh());
    db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
    const before = started.threads;
    const c = new GroupCommitter(db, { offLoopSync: true });
    for (let i = 0; i < 3; i++) await c.commit(() => void db.prepare('DELETE FROM t WHERE v < 0').run());
    expect(started.threads).toBe(before);
    await c.commit(() => void db.prepare('INSERT INTO t (v) VALUES (1)').run());
    expect(started.threads).toBe(before + 1);
    await c.commit(() => void db.prepare('INSERT INTO t (v) VALUES (2)').run());
    expect(started.threads).toBe(before + 1);
    await c.close();
    db.close();
    const reopened = openDatabase(db.name);
    expect(reopened.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2);
    reopened.close();
  });

  it('closes without ever having started a thread', async () => {
    const db = openDatabase(fresh());
    const before = started.threads;
    const c = new GroupCommitter(db, { offLoopSync: true });
    await c.close();
    expect(started.threads).toBe(before);
    db.close();
  });
});
