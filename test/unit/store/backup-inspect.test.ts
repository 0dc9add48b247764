// A backup's check off the event loop (core/backups/backups.ts, docs/performance.md "Backups off the event loop"): the
// copy's integrity check runs on a reader thread of its own, with the answers of the check on the event loop for a
// good store, a damaged file, an SQLite file that is not a store and no file; a backup leaves nothing beside itself.
// Real stores in temp folders.
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backupsDir, createBackup, inspectStoreFile, inspectStoreFileOffLoop } from '../../../src-main/core/backups/backups';
import { createCore } from '../../../src-main/service';

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
