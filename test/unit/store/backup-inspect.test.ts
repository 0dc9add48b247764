// A backup's check off the event loop (core/backups/backups.ts, docs/performance.md "Backups off the event loop"): the
// copy's integrity check runs on a reader thread of its own, with the answers of the check on the event loop for a
// good store, a damaged file, an SQLite file that is not a store and no file; a backup leaves nothing beside itself.
// Real stores in temp folders.
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backupsDir, createBackup, inspectStoreFile, inspectStoreFileOffLoop } from '../../../src-main/core/backups/backups';
import { createCore } from '../../../src-main/service';
import { storeFile } from '../../../src-main/store/store-open';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'vc-bk-inspect-'));
  dirs.push(d);
  return d;
};

/** What inspectStoreFile says (or throws), as a value. */
const outcome = async (fn: () => unknown) => {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { err: (e as { code?: string }).code ?? 'thrown', message: (e as Error).message };
  }
};

describe("a backup's check", () => {
  it('answers off the event loop as it does on it: a good store, a damaged file, another SQLite file, no file', async () => {
    const dir = tempDir();
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    const made = await createBackup(core.deps.db, dir);
    await core.close();
    const damaged = join(dir, 'damaged.sqlite');
    writeFileSync(damaged, Buffer.alloc(8192, 0x41));
    const other = join(dir, 'other.sqlite');
    const o = new Database(other);
    o.exec('CREATE TABLE t (x)');
    o.close();
    for (const file of [made.file, damaged, other, join(dir, 'missing.sqlite')]) {
      expect(await outcome(() => inspectStoreFileOffLoop(file)), file).toEqual(await outcome(() => inspectStoreFile(file)));
    }
    expect(await inspectStoreFileOffLoop(made.file)).toMatchObject({ integrity: 'ok', schemaVersion: made.schemaVersion });
  });

  it('leaves only the backup in the backups folder (no -wal or -shm of its check)', async () => {
    const dir = tempDir();
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    const made = await createBackup(core.deps.db, dir);
    await core.close();
    expect(readdirSync(backupsDir(dir))).toEqual([made.name]);
  });
});

describe("a backup's copy", () => {
  it("is made on a thread of its own, not by the service's connection, while writes go on: the copy holds what was committed when it began", async () => {
    const dir = tempDir();
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    const db = core.deps.db!;
    db.exec('CREATE TABLE copy_probe (n INTEGER NOT NULL, pad TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO copy_probe (n, pad) VALUES (?, ?)');
    db.transaction(() => {
      for (let n = 1; n <= 5_000; n++) insert.run(n, 'x'.repeat(200));
    })();
    const onTheLoop = vi.spyOn(db, 'backup');
    const copying = createBackup(db, dir);
    // Writes committed on the service's connection while the copy runs.
    let written = 5_000;
    let done = false;
    void copying.finally(() => (done = true));
    while (!done && written < 6_000) {
      insert.run(++written, 'y');
      await new Promise((resolve) => setImmediate(resolve));
    }
    const made = await copying;
    await core.close();
    expect(onTheLoop).not.toHaveBeenCalled();
    expect(made.integrity).toBe('ok');
    const copy = new Database(made.file, { readonly: true });
    const { rows, top } = copy.prepare('SELECT count(*) AS rows, max(n) AS top FROM copy_probe').get() as { rows: number; top: number };
    copy.close();
    // A prefix of the writes, every one of those before the copy began, none torn.
    expect(rows).toBe(top);
    expect(rows).toBeGreaterThanOrEqual(5_000);
    expect(rows).toBeLessThanOrEqual(written);
  });

  it('two backups asked at once (two clicks, the daily one beside one by hand) both finish, one after the other', async () => {
    const dir = tempDir();
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    const now = Date.parse('2026-11-27T02:00:00.000Z');
    try {
      const made = await Promise.all([createBackup(core.deps.db, dir, { now }), createBackup(core.deps.db, dir, { now }), createBackup(core.deps.db, dir, { now, auto: true })]);
      expect(made.map((b) => b.integrity)).toEqual(['ok', 'ok', 'ok']);
      expect(new Set(made.map((b) => b.name)).size).toBe(3);
      expect(readdirSync(backupsDir(dir)).sort()).toEqual(made.map((b) => b.name).sort());
    } finally {
      await core.close();
    }
  });

  it("falls back to the service's connection when no thread can open the store", async () => {
    const dir = tempDir();
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    await core.close();
    // A connection whose file is gone from the folder (unlinked while open): a thread cannot open it, the connection
    // still reads it.
    const db = new Database(storeFile(dir));
    db.prepare('SELECT count(*) FROM schema_migrations').get();
    unlinkSync(storeFile(dir));
    const onTheLoop = vi.spyOn(db, 'backup');
    const made = await createBackup(db, dir);
    db.close();
    expect(onTheLoop).toHaveBeenCalledTimes(1);
    expect(made.integrity).toBe('ok');
    expect(readdirSync(backupsDir(dir))).toEqual([made.name]);
  });
});
