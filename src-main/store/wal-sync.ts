// The WAL's fdatasync on a thread of its own, so the event loop never waits for the disk (docs/performance.md,
// "Durability off the event loop"). Not libuv's pool: that pool is shared with DNS lookups, file reads and crypto,
// and a sync queued behind them (or them behind a slow disk) would couple unrelated latencies.
//
// The same thread checkpoints, on a connection of its own: an automatic checkpoint runs inside the committing call
// (on the event loop) and costs a WAL sync, copying up to 1,000 pages and a database sync. Here the main
// connection's automatic checkpoint is raised to a safety bound, and after a sync, at most every
// CHECKPOINT_EVERY_MS, the thread runs `PRAGMA wal_checkpoint(PASSIVE)` before it answers. The group commit sends
// no write while a sync is in flight, so the checkpoint usually backfills the whole WAL and the next write
// restarts it from the beginning: the WAL stays small. A checkpoint only ever adds durability: with
// synchronous=FULL on its connection it syncs the WAL before copying committed frames and the database after.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { nativeBindingPath, type Db } from './database';

const CHECKPOINT_EVERY_MS = 250;
/** The main connection's own automatic checkpoint stays as a safety net, should the thread fall behind or fail. */
export const MAIN_AUTOCHECKPOINT_PAGES = 10_000;
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1_000;

// Plain CommonJS evaluated in the worker: nothing to bundle, so it runs the same from the sources (tsx), the
// electron-vite build and Electron's main process. The WAL is opened once, on the first sync (by then a commit has
// written it), and kept open: closing any descriptor of a file drops every POSIX lock this process holds on it,
// so we never open and close it per sync. 'r+' because Windows' FlushFileBuffers needs write access.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
let fd = null;
let db = null;
let checkpoint = null;
let lastCheckpoint = Date.now();
try {
  const Database = require(workerData.module);
  db = new Database(workerData.dbFile, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 0');
  checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
} catch (e) {
  parentPort.postMessage({ warning: 'no checkpoint connection: ' + String((e && e.message) || e) });
}
parentPort.on('message', (m) => {
  if (m === 'close') {
    if (db) try { db.close(); } catch {}
    if (fd !== null) try { fs.closeSync(fd); } catch {}
    parentPort.close();
    return;
  }
  try {
    if (fd === null) fd = fs.openSync(workerData.file, 'r+');
    fs.fdatasyncSync(fd);
  } catch (e) {
    parentPort.postMessage({ ok: false, error: String((e && e.message) || e) });
    return;
  }
  if (checkpoint && Date.now() - lastCheckpoint >= workerData.checkpointEveryMs) {
    lastCheckpoint = Date.now();
    try { checkpoint.run(); } catch (e) { parentPort.postMessage({ warning: 'WAL checkpoint failed: ' + String((e && e.message) || e) }); }
  }
  parentPort.postMessage({ ok: true });
});
`;

/**
 * One fdatasync at a time of a store's WAL (and its checkpoints), on a dedicated worker thread. The thread starts
 * with the first sync, that is after the first write, not with the store: a thread is a Node environment and a
 * better-sqlite3 of its own, about 30 ms of CPU that a start (or a service that only reads) need not pay
 * (docs/performance.md, "Cold start").
 */
export class WalSyncer {
  readonly file: string;
  private worker: Worker | null = null;
  private waiting: { resolve: () => void; reject: (e: Error) => void } | null = null;
  private closed = false;
  private exited = false;

  constructor(
    private readonly db: Db,
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.file = `${db.name}-wal`;
    db.pragma(`wal_autocheckpoint = ${MAIN_AUTOCHECKPOINT_PAGES}`);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const db = this.db;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file: this.file,
        dbFile: db.name,
        module: createRequire(import.meta.url).resolve('better-sqlite3'),
        nativeBinding: nativeBindingPath(),
        checkpointEveryMs: CHECKPOINT_EVERY_MS,
      },
    });
    this.worker = worker;
    // An idle thread never keeps the process alive; a sync in flight or a close does (someone awaits them).
    worker.unref();
    worker.on('message', (m: { ok?: boolean; error?: string; warning?: string }) => {
      if (m.warning !== undefined) {
        // Without the thread's checkpoints the main connection checkpoints as SQLite does by default: slower
        // (on the loop), never less safe.
        if (m.warning.startsWith('no checkpoint') && db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
        this.warn(m.warning);
        return;
      }
      const w = this.waiting;
      this.waiting = null;
      if (!this.closed) worker.unref();
      if (!w) return;
      if (m.ok) w.resolve();
      else w.reject(new Error(`fdatasync of ${this.file} failed: ${m.error ?? 'unknown error'}`));
    });
    worker.on('error', (err) => {
      const w = this.waiting;
      this.waiting = null;
      w?.reject(err instanceof Error ? err : new Error(String(err)));
    });
    // A thread that is gone can never answer: whoever waits, and every later sync, is told rather than left hanging.
    worker.on('exit', (code) => {
      this.exited = true;
      const w = this.waiting;
      this.waiting = null;
      w?.reject(new Error(`the WAL sync thread exited (code ${code})`));
    });
    return worker;
  }

  /** Resolves once every byte written to the WAL before this call is on stable storage. One call at a time. */
  sync(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the WAL syncer is closed'));
    if (this.exited) return Promise.reject(new Error('the WAL sync thread has exited'));
    if (this.waiting) return Promise.reject(new Error('a WAL sync is already in flight'));
    let worker: Worker;
    try {
      worker = this.thread();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      worker.ref();
      worker.postMessage('sync');
    });
  }

  /** Ends the thread (after the sync in flight, if any, has answered), closing its connection first. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    if (!worker || this.exited) return;
    const exited = new Promise<void>((res) => worker.once('exit', () => res()));
    worker.ref();
    worker.postMessage('close');
    await exited;
  }
}
