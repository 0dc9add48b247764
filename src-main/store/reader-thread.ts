// Reads that scan many rows, on a connection of their own in a thread of their own (SQLite engine only;
// docs/performance.md, "Long reads off the event loop"). better-sqlite3 runs a statement on the calling thread, so a
// read of the service's connection holds the event loop for as long as it runs: the Dashboard's counts over 30 days
// of a large store (hundreds of thousands of checks) held it for half a second, during which no API request was
// answered. Here such reads go to a read-only connection in a worker thread; the event loop goes on meanwhile.
//
// What it reads: in WAL mode a second connection sees every transaction committed on the service's connection when
// its statement starts (committed, perhaps not yet synced: the doors' durability barrier, taken after the read, covers
// that, as for any read). It never writes. One statement at a time, in the order asked; a read that fails rejects its
// own promise only. The thread starts on the first read and ends with the store; a thread that could not open the
// store, or died, leaves the reads to the service's connection (`fallback`), with one warning.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SqlPortError, type SqlParams, type SqlQueries, type SqlRow } from './sql-port';
import { binds } from './sqlite-port';
import { insideTransaction } from './tx-context';
import { nativeBindingPath } from './database';
import { endWorker } from './wal-sync';

/**
 * What a long read needs of a store: the port's reads, answered whenever ready. (Rows cross threads by structured
 * clone: a BLOB comes back as a Uint8Array, not a Buffer.)
 */
export type LongReads = Pick<SqlQueries, 'all' | 'get'> & {
  /**
   * The reads of one bounded walk: a chain read page by page, one after another, for one answer (the Audit page's check,
   * the audit export). Once a read has waited out a pause (ReaderThreadOptions.pause), walk reads do not wait again
   * for WALK_FREE_MS, rather than every page waiting: under steady writes each page waited up to a second, and a chain
   * of 75 pages took a minute or more. Where absent (the service's own port), the reads themselves.
   */
  walk?(): LongReads;
};

// Plain CommonJS evaluated in the worker (as wal-sync.ts's): nothing to bundle, the same from the sources, the
// electron-vite build and Electron's main process. Prepared statements are kept by text (a few hundred at most).
const READER_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
let db = null;
let failure = null;
try {
  const Database = require(workerData.module);
  db = new Database(workerData.dbFile, { readonly: true, fileMustExist: true, ...(workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {}) });
  db.pragma('busy_timeout = 5000');
} catch (e) {
  failure = String((e && e.message) || e);
}
parentPort.postMessage({ ready: failure === null, error: failure });
const statements = new Map();
parentPort.on('message', (m) => {
  if (m === 'close') {
    if (db) try { db.close(); } catch {}
    parentPort.close();
    return;
  }
  try {
    let st = statements.get(m.sql);
    if (!st) {
      st = db.prepare(m.sql);
      if (statements.size >= 256) statements.clear();
      statements.set(m.sql, st);
    }
    const rows = m.mode === 'get' ? st.get(...m.params) : m.mode === 'run' ? (st.run(...m.params), null) : st.all(...m.params);
    parentPort.postMessage({ id: m.id, ok: true, rows });
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: String((e && e.message) || e), code: e && e.code });
  }
});
`;

/** What the thread does with a statement: all its rows, the first, or runs it (the copy). */
type Mode = 'all' | 'get' | 'run';

interface Pending {
  resolve: (rows: unknown) => void;
  reject: (err: Error) => void;
}

type Reply = { ready: boolean; error: string | null } | { id: number; ok: true; rows: unknown } | { id: number; ok: false; error: string; code?: string };

export interface ReaderThreadOptions {
  /** The store's file. */
  file: string;
  /** Where reads go when the thread cannot serve them (the service's own port). */
  fallback: LongReads;
  /**
   * True while new reads should hold off: the WAL missed a restart (GroupCommitter.walRestartMissed). A read
   * transaction of this connection keeps SQLite from restarting the WAL; kept busy (a client polling a count), the
   * thread could keep it growing.
   */
  pause?: () => boolean;
  /**
   * How long a read asked while paused waits for the pause to end (the thread idle, a later cycle restarts the WAL)
   * before it runs on the thread anyway. Paused reads used to run on the fallback, the service's connection: under
   * steady writes one 300 ms Dashboard count made the WAL miss a restart and every long read after it ran on the event
   * loop (the second walk of the console, 26 Nov 2026); with a one-second wait and then the fallback, pauses under 100
   * checks a second still outlasted it, and the 30-day summary's count held the loop 1.1 s. A long read on the event
   * loop stops every request; one on the thread after a wait only delays a restart the wait gave every chance to.
   */
  pauseWaitMs?: number;
  /** WALK_FREE_MS unless told (tests). */
  walkFreeMs?: number;
  warn?: (message: string) => void;
}

/**
 * Copies (copyInto) running, per store file. A copy reads the store in one transaction: until it ends the WAL cannot
 * restart, so a read asked while paused would wait its whole pauseWaitMs for nothing (every console read, for seconds,
 * during the daily backup of a large store). Reads do not wait while a copy of their store runs.
 */
const copiesRunning = new Map<string, number>();

/** ReaderThreadOptions.pauseWaitMs unless told. */
const READER_PAUSE_WAIT_MS = 1_000;
/**
 * How long walk reads go on without waiting out a pause after a read of this thread did (LongReads.walk): the WAL may
 * miss its restarts for that long (a few seconds of writes more in it). The window is the thread's, not each walk's:
 * once it has passed, every walk read waits, so the thread goes idle and the WAL can restart, however many walks run
 * and however long (with a window per walk, walks started one after another kept the thread reading for good).
 */
const WALK_FREE_MS = 2_000;
const PAUSE_POLL_MS = 5;

export class ReaderThread implements LongReads {
  private worker: Worker | null = null;
  /** False once the thread could not open the store or died: reads go to the fallback. */
  private usable = true;
  private closed = false;
  private exited = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Whether the thread opened the store (once it has said so). */
  private ready: Promise<boolean> | null = null;
  /** Reads asked and not answered yet: close() waits for them. */
  private readonly asked = new Set<Promise<unknown>>();
  /** Until when walk reads go without waiting out a pause (WALK_FREE_MS after a walk read waited one out). */
  private walkFreeUntil = -Infinity;
  /** How many reads the thread answered, and how many its fallback did (the service's connection): for tests and diagnostics. */
  readonly served = { thread: 0, fallback: 0 };

  constructor(private readonly o: ReaderThreadOptions) {}

  all<T = SqlRow>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.read<T[]>(sql, params, 'all', () => this.o.fallback.all<T>(sql, params));
  }

  get<T = SqlRow>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return this.read<T | undefined>(sql, params, 'get', () => this.o.fallback.get<T>(sql, params));
  }

  walk(): LongReads {
    return {
      all: <T = SqlRow>(sql: string, params?: SqlParams) => this.read<T[]>(sql, params, 'all', () => this.o.fallback.all<T>(sql, params), true),
      get: <T = SqlRow>(sql: string, params?: SqlParams) => this.read<T | undefined>(sql, params, 'get', () => this.o.fallback.get<T>(sql, params), true),
    };
  }

  /**
   * A consistent copy of the store written to `dest` (`VACUUM INTO`, which a read-only connection may run): one read
   * transaction of this connection, so writers go on meanwhile and the copy is the store as of its start, compacted.
   * `dest` must not exist or be empty. Where the thread cannot serve it, `fallback` makes the copy instead.
   */
  copyInto(dest: string, fallback: () => Promise<void>): Promise<void> {
    const file = this.o.file;
    copiesRunning.set(file, (copiesRunning.get(file) ?? 0) + 1);
    const done = () => {
      const n = (copiesRunning.get(file) ?? 1) - 1;
      if (n > 0) copiesRunning.set(file, n);
      else copiesRunning.delete(file);
    };
    const copy = this.read<void>('VACUUM INTO ?', [dest], 'run', fallback);
    copy.then(done, done);
    return copy;
  }

  /** Ends the thread once the reads asked before are answered; reads asked after are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.asked]);
    if (this.worker && !this.exited) await endWorker(this.worker);
  }

  private read<R>(sql: string, params: SqlParams | undefined, mode: Mode, fallback: () => Promise<R>, walk = false): Promise<R> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    // Another connection does not see a transaction's own writes: a read inside one goes through its handle.
    if (insideTransaction()) return Promise.reject(new SqlPortError('a long read inside a transaction: read through the transaction\'s handle'));
    const run = this.readOnThread(sql, params, mode, fallback, walk);
    this.asked.add(run);
    const forget = () => this.asked.delete(run);
    run.then(forget, forget);
    return run;
  }

  /**
   * Resolves when not paused, once the pause ends (or a copy of the store starts: copiesRunning), or after pauseWaitMs
   * of it, whichever comes first: true when it was paused (the read waited).
   */
  private async pauseOver(): Promise<boolean> {
    const pause = this.o.pause;
    if (!pause) return false;
    const paused = () => pause() && !copiesRunning.has(this.o.file);
    if (!paused()) return false;
    const until = performance.now() + (this.o.pauseWaitMs ?? READER_PAUSE_WAIT_MS);
    while (performance.now() < until && !this.closed && paused()) await new Promise((resolve) => setTimeout(resolve, PAUSE_POLL_MS));
    return true;
  }

  private async readOnThread<R>(sql: string, params: SqlParams | undefined, mode: Mode, fallback: () => Promise<R>, walk: boolean): Promise<R> {
    if (!walk || performance.now() >= this.walkFreeUntil) {
      // A walk read that waited out a pause opens the thread's window for walk reads (WALK_FREE_MS).
      if ((await this.pauseOver()) && walk) this.walkFreeUntil = performance.now() + (this.o.walkFreeMs ?? WALK_FREE_MS);
    }
    if (!this.usable || !(await this.start())) {
      this.served.fallback++;
      return fallback();
    }
    const worker = this.worker!;
    const id = this.nextId++;
    const message = { id, sql, mode, params: binds(params) }; // throws on a bad parameter, before anything is held
    return new Promise<R>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (rows: unknown) => void, reject });
      worker.ref();
      try {
        worker.postMessage(message);
      } catch (err) {
        this.settled(id);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  /** Starts the thread on the first read; resolves to whether it opened the store. */
  private start(): Promise<boolean> {
    if (this.ready) return this.ready;
    let worker: Worker;
    try {
      worker = new Worker(READER_WORKER, {
        eval: true,
        workerData: { dbFile: this.o.file, module: createRequire(import.meta.url).resolve('better-sqlite3'), nativeBinding: nativeBindingPath() },
      });
    } catch (err) {
      this.giveUp(`could not start the reader thread: ${String(err)}`);
      return (this.ready = Promise.resolve(false));
    }
    this.worker = worker;
    this.ready = new Promise<boolean>((resolveReady) => {
      worker.on('message', (m: Reply) => {
        if ('ready' in m) {
          if (this.pending.size === 0) worker.unref();
          if (!m.ready) {
            this.giveUp(`the reader thread could not open the store: ${m.error ?? 'unknown error'}`);
            void worker.terminate();
          }
          resolveReady(m.ready);
          return;
        }
        const p = this.pending.get(m.id);
        if (!p) return;
        this.settled(m.id);
        this.served.thread++;
        if (m.ok) p.resolve(m.rows);
        else p.reject(Object.assign(new Error(m.error), m.code ? { code: m.code } : {}));
      });
      worker.on('error', (err) => {
        this.giveUp(`the reader thread failed: ${String(err)}`);
        resolveReady(false);
      });
      worker.on('exit', () => {
        this.exited = true;
        if (!this.closed) this.giveUp('the reader thread exited');
        resolveReady(false);
        // Reads it had not answered fail (later ones go to the fallback).
        for (const p of this.pending.values()) p.reject(new Error('the reader thread ended before answering'));
        this.pending.clear();
      });
    });
    // Held (ref'd) until it has said whether it opened the store: the first read waits for that.
    return this.ready;
  }

  /** A read answered (or never sent): the thread is let go while it has nothing to do. */
  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
  }

  private giveUp(message: string): void {
    if (!this.usable) return;
    this.usable = false;
    this.o.warn?.(`${message}; long reads run on the service's connection`);
  }
}
