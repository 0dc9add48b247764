// One service per data folder, enforced (docs/reliability.md, "One service per data folder"). The process that runs
// the queue, the dispatcher and a listener holds an OS-level lock on `<dataDir>/service.lock`: SQLite's own file lock
// (fcntl on POSIX, LockFileEx on Windows) taken by an EXCLUSIVE transaction under `locking_mode=EXCLUSIVE`, kept until
// the connection closes. The operating system drops it when the process ends in any way — exit, crash, `kill -9`,
// power cut — so the next start takes it over at once, with nothing to clean up and no heartbeat to wait out.
// Who holds it is written beside it in `service.lock.json` (informational: the lock is what counts).
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sqliteOpenOptions } from './database';

export type LockDoor = 'serve' | 'electron' | 'cli' | 'test';

export interface LockHolder {
  pid: number;
  /** How the holder was started: `vconsole serve`, the desktop app, or a test. */
  door: LockDoor;
  startedAt: string;
  /** http://host:port of its listener, once listening; null for a console-only holder. */
  url: string | null;
  host: string | null;
  port: number | null;
}

const DOOR_LABEL: Record<LockDoor, string> = { serve: '`vconsole serve`', electron: 'the desktop app', cli: '`vconsole verify --wait`', test: 'a test' };

export class DataFolderLockedError extends Error {
  override name = 'DataFolderLockedError';
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
  ) {
    super(lockedMessage(dataDir, holder));
  }
}

export function lockedMessage(dataDir: string, holder: LockHolder | null): string {
  const who = holder
    ? `process ${holder.pid}, started by ${DOOR_LABEL[holder.door] ?? holder.door} at ${holder.startedAt}${holder.url ? `, listening on ${holder.url}` : ', without a listener'}`
    : 'a process that is still starting';
  return [
    `The data folder ${dataDir} is in use by another Verification Console service (${who}).`,
    'Only one service may run on a data folder: two would run the same request twice.',
    holder?.url ? `Use the running one (its API is ${holder.url}/api/v1), stop it first, or choose another folder with --data-dir.` : 'Stop it first, or choose another folder with --data-dir.',
    'Admin commands (keys, users, wallet, prices, providers, batch) still work beside it.',
  ].join('\n');
}

export interface DataFolderLock {
  readonly dataDir: string;
  /** Records the listener once it is known (shown to a second start). */
  update(patch: Partial<Pick<LockHolder, 'url' | 'host' | 'port'>>): void;
  release(): void;
}

export const LOCK_FILE = 'service.lock';
export const HOLDER_FILE = 'service.lock.json';

/** The holder recorded beside the lock, or null when none is readable. */
export function readLockHolder(dataDir: string): LockHolder | null {
  try {
    const h = JSON.parse(readFileSync(join(dataDir, HOLDER_FILE), 'utf8')) as LockHolder;
    return typeof h.pid === 'number' ? h : null;
  } catch {
    return null;
  }
}

/**
 * Takes the data folder's lock or throws DataFolderLockedError naming the holder. Never waits: a held lock means a
 * live process holds it (the OS releases the locks of dead ones).
 */
export function acquireDataFolderLock(dataDir: string, door: LockDoor): DataFolderLock {
  mkdirSync(dataDir, { recursive: true });
  // timeout 0: a busy lock is an answer, not something to wait for. The file is never deleted (deleting it while
  // another process opens it would let two processes lock two different files).
  const db = new Database(join(dataDir, LOCK_FILE), { ...sqliteOpenOptions(), timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY, taken_at TEXT NOT NULL)');
    db.prepare('INSERT OR REPLACE INTO lock (id, taken_at) VALUES (1, ?)').run(new Date().toISOString());
    db.exec('COMMIT');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY' || (err as { code?: string }).code === 'SQLITE_LOCKED') {
      throw new DataFolderLockedError(dataDir, readLockHolder(dataDir));
    }
    throw err;
  }
  const holder: LockHolder = { pid: process.pid, door, startedAt: new Date().toISOString(), url: null, host: null, port: null };
  const write = () => {
    const tmp = join(dataDir, `${HOLDER_FILE}.${process.pid}.tmp`);
    writeFileSync(tmp, `${JSON.stringify(holder, null, 2)}\n`);
    renameSync(tmp, join(dataDir, HOLDER_FILE));
  };
  write();
  let released = false;
  return {
    dataDir,
    update(patch) {
      if (released) return;
      Object.assign(holder, patch);
      write();
    },
    release() {
      if (released) return;
      released = true;
      // The record goes first, while the lock still keeps any successor from writing its own.
      rmSync(join(dataDir, HOLDER_FILE), { force: true });
      db.close();
    },
  };
}
