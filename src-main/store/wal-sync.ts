// The WAL's fdatasync on a thread of its own, so the event loop never waits for the disk (docs/performance.md,
// "Durability off the event loop"). Not libuv's pool: that pool is shared with DNS lookups, file reads and crypto,
// and a sync queued behind them (or them behind a slow disk) would couple unrelated latencies.
//
// Checkpoints run on a second thread, with a connection of its own, and never inside a sync: a sync answers as
// soon as its fdatasync returns. An automatic checkpoint would run inside the committing call (on the event loop),
// so the main connection's is raised to a safety bound, and the checkpoints are driven from here, in cycles:
//
// 1. After a sync, once CHECKPOINT_EVERY_MS have passed since the last cycle (or the WAL holds START_FRAMES), a
//    `PRAGMA wal_checkpoint(PASSIVE)` starts on the checkpoint thread while writes and syncs go on. It copies the
//    frames committed before it began — the bulk of the work, database fsync included — and holds nothing up.
// 2. Frames committed meanwhile remain. SQLite restarts the WAL (the next writer overwrites it from the start)
//    only if a checkpoint has copied *all* of it before that writer begins, so the cycle ends with a short final
//    pass while writes wait: after a sync, once its answers are out (`afterSync()`), the group commit holds new
//    writes until a PASSIVE checkpoint of what is left has returned. If more than TAIL_FRAMES are left, another
//    concurrent pass goes first, so the stall stays short.
// 3. A bound: when a sync finds the WAL at BOUND_FRAMES, writes wait for the pass in flight and the final pass,
//    whatever they cost (a rare, bounded stall rather than a WAL that grows while the disk is slow).
//
// A checkpoint only ever adds durability: it syncs the WAL before copying committed frames into the database and
// syncs the database after, and a restart happens only when everything is copied and synced.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { nativeBindingPath, type Db } from './database';

/**
 * A checkpoint cycle starts after a sync once this long has passed since the last one ended, if the WAL holds at
 * least MIN_FRAMES (a few frames are not worth a checkpoint: SQLite's own default waits for 1,000).
 */
const CHECKPOINT_EVERY_MS = 250;
const MIN_FRAMES = 256;
/** …or as soon as the WAL holds this many frames. */
const START_FRAMES = 4_000;
/** The final pass, with writes held, copies at most about this many frames; more left, and another pass goes first. */
const TAIL_FRAMES = 256;
/**
 * The WAL's bound (frames since its last restart; with 4 KiB pages, 32 MiB): a sync that finds it reached holds
 * writes until the cycle has ended. Below the main connection's own automatic checkpoint.
 */
export const WAL_BOUND_FRAMES = 8_000;
/** The main connection's own automatic checkpoint stays as a safety net, should the thread fall behind or fail. */
export const MAIN_AUTOCHECKPOINT_PAGES = 10_000;
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1_000;

// Plain CommonJS evaluated in the workers: nothing to bundle, so it runs the same from the sources (tsx), the
// electron-vite build and Electron's main process. The WAL is opened once, on the first sync (by then a commit has
// written it), and kept open while the store is. 'r+' because Windows' FlushFileBuffers needs write access.
//
// After each fdatasync the thread reports how many frames the WAL holds since its last restart, from the file
// itself (https://sqlite.org/fileformat2.html#walformat): a restart rewrites the header with new salts and
// overwrites the file from its start, each frame carrying the header's salts, so the current frames are the
// leading run of frames whose salts match the header's — a binary search of about 14 reads of 24 bytes. Frames of
// a transaction rolled back after spilling may be counted too: an estimate that errs on the high side. It also
// reports the header's checkpoint sequence number, which SQLite increments at every restart.
const SYNC_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
let fd = null;
const head = Buffer.alloc(32);
const frame = Buffer.alloc(24);
let seq = -1;
function frames() {
  if (fs.readSync(fd, head, 0, 32, 0) < 32) return 0;
  seq = head.readUInt32BE(12);
  let page = head.readUInt32BE(8);
  if (page === 1) page = 65536;
  if (page < 512) return 0;
  const salt1 = head.readUInt32BE(16), salt2 = head.readUInt32BE(20), size = 24 + page;
  let lo = 0, hi = Math.floor((fs.fstatSync(fd).size - 32) / size);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const ok = fs.readSync(fd, frame, 0, 24, 32 + (mid - 1) * size) === 24 && frame.readUInt32BE(8) === salt1 && frame.readUInt32BE(12) === salt2;
    if (ok) lo = mid; else hi = mid - 1;
  }
  return lo;
}
parentPort.on('message', (m) => {
  if (m === 'close') {
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
  let n = -1;
  seq = -1;
  try { n = frames(); } catch {}
  parentPort.postMessage({ ok: true, frames: n, seq });
});
`;

const CHECKPOINT_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
let db = null;
let checkpoint = null;
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
    parentPort.close();
    return;
  }
  if (!checkpoint) {
    parentPort.postMessage({ ok: false, error: 'no checkpoint connection' });
    return;
  }
  try {
    const t = performance.now();
    const r = checkpoint.get();
    parentPort.postMessage({ ok: true, busy: r.busy, log: r.log, checkpointed: r.checkpointed, ms: performance.now() - t });
  } catch (e) {
    parentPort.postMessage({ ok: false, error: String((e && e.message) || e) });
  }
});
`;

interface Reply {
  ok?: boolean;
  error?: string;
  warning?: string;
  frames?: number;
  seq?: number;
  busy?: number;
  log?: number;
  checkpointed?: number;
  ms?: number;
}

/**
 * A worker thread answering one request at a time. It starts with the first request, not with the store: a
 * thread is a Node environment of its own (and the checkpoint thread a better-sqlite3), CPU that a start, or a
 * service that only reads, need not pay (docs/performance.md, "Cold start").
 */
class Thread {
  private worker: Worker | null = null;
  private waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void } | null = null;
  private closed = false;
  exited = false;

  constructor(
    private readonly what: string,
    private readonly source: string,
    private readonly data: Record<string, unknown>,
    private readonly onWarning: (message: string) => void,
  ) {}

  get busy(): boolean {
    return this.waiting !== null;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.source, { eval: true, workerData: this.data });
    this.worker = worker;
    // An idle thread never keeps the process alive; a request in flight or a close does (someone awaits them).
    worker.unref();
    worker.on('message', (m: Reply) => {
      if (m.warning !== undefined) {
        this.onWarning(m.warning);
        return;
      }
      const w = this.waiting;
      this.waiting = null;
      if (!this.closed) worker.unref();
      if (!w) return;
      if (m.ok) w.resolve(m);
      else w.reject(new Error(m.error ?? 'unknown error'));
    });
    worker.on('error', (err) => {
      const w = this.waiting;
      this.waiting = null;
      w?.reject(err instanceof Error ? err : new Error(String(err)));
    });
    // A thread that is gone can never answer: whoever waits, and every later request, is told rather than left hanging.
    worker.on('exit', (code) => {
      this.exited = true;
      const w = this.waiting;
      this.waiting = null;
      w?.reject(new Error(`the ${this.what} thread exited (code ${code})`));
    });
    return worker;
  }

  request(): Promise<Reply> {
    if (this.closed) return Promise.reject(new Error(`the ${this.what} thread is closed`));
    if (this.exited) return Promise.reject(new Error(`the ${this.what} thread has exited`));
    if (this.waiting) return Promise.reject(new Error(`a ${this.what} request is already in flight`));
    let worker: Worker;
    try {
      worker = this.start();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      worker.ref();
      worker.postMessage('run');
    });
  }

  /** Ends the thread (after the request in flight, if any, has answered). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.worker && !this.exited) await endWorker(this.worker);
  }
}

/**
 * Asks a store thread (its code ends on the message 'close') to end, and waits until it has. Held (ref'd) meanwhile:
 * an idle thread is unref'd, and a process with nothing else left would otherwise exit before the store is closed.
 */
export function endWorker(worker: Worker): Promise<void> {
  const exited = new Promise<void>((res) => worker.once('exit', () => res()));
  worker.ref();
  worker.postMessage('close');
  return exited;
}

/**
 * One fdatasync at a time of a store's WAL on a dedicated thread, and the store's checkpoints on another
 * (the cycle described at the top of this file).
 */
export class WalSyncer {
  readonly file: string;
  private readonly syncThread: Thread;
  private readonly checkpointThread: Thread;
  /** False once the checkpoint thread could not open its connection: the main connection checkpoints instead. */
  private checkpoints = true;
  /** As the last sync found the WAL: its frames since the last restart, and its restart count (-1: unknown). */
  private frames = 0;
  private seq = -1;
  /** A concurrent pass in flight. */
  private pass: Promise<void> | null = null;
  /** After a pass: the restart count when it began and the frames it copied; null when no cycle is under way. */
  private passed: { seq: number; copied: number } | null = null;
  /** After a final pass that copied everything: the restart count then (the next write should restart the WAL). */
  private restartFrom: number | null = null;
  /**
   * The frames at which writes are held; raised while a reader of another connection (another process, or this
   * process's reader thread) keeps the WAL from restarting.
   */
  private bound = WAL_BOUND_FRAMES;
  private cycleEndedAt = Date.now();
  private closing = false;
  private finalRunning = false;
  /** Counts, for tests and benchmarks; finalPassMs: the final passes' time on the checkpoint thread. */
  readonly stats = { syncs: 0, passes: 0, finalPasses: 0, boundStalls: 0, restarts: 0, finalPassMs: 0, maxFinalPassMs: 0 };

  /**
   * True while the WAL has missed a restart (a cycle ended without one, so the bound was raised): a reader on another
   * connection kept it in use. A long read then waits (up to a second) for the WAL to restart before it runs on the
   * reader thread, so that a reader thread kept busy cannot keep the WAL growing (store/reader-thread.ts).
   */
  get restartMissed(): boolean {
    return this.bound > WAL_BOUND_FRAMES;
  }

  /** True while a final pass runs: the group commit makes no commit meanwhile (tests check it). */
  get finalPassRunning(): boolean {
    return this.finalRunning;
  }

  constructor(
    db: Db,
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.file = `${db.name}-wal`;
    db.pragma(`wal_autocheckpoint = ${MAIN_AUTOCHECKPOINT_PAGES}`);
    const onWarning = (message: string) => {
      // Without the thread's checkpoints the main connection checkpoints as SQLite does by default: slower (on the
      // loop), never less safe.
      if (message.startsWith('no checkpoint')) {
        this.checkpoints = false;
        if (db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
      }
      warn(message);
    };
    this.syncThread = new Thread('WAL sync', SYNC_WORKER, { file: this.file }, onWarning);
    this.checkpointThread = new Thread(
      'WAL checkpoint',
      CHECKPOINT_WORKER,
      { dbFile: db.name, module: createRequire(import.meta.url).resolve('better-sqlite3'), nativeBinding: nativeBindingPath() },
      onWarning,
    );
  }

  /** Resolves once every byte written to the WAL before this call is on stable storage. One call at a time. */
  async sync(): Promise<void> {
    let r: Reply;
    try {
      r = await this.syncThread.request();
    } catch (err) {
      throw new Error(`fdatasync of ${this.file} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    this.stats.syncs++;
    if (typeof r.frames === 'number' && r.frames >= 0 && typeof r.seq === 'number' && r.seq >= 0) {
      if (this.seq >= 0 && r.seq !== this.seq) this.stats.restarts++;
      this.frames = r.frames;
      this.seq = r.seq;
    }
  }

  /**
   * Called by the group commit after each successful sync, once the answers it covers are released and before the
   * next write: starts or advances a checkpoint cycle, and returns a promise while writes must wait (the final
   * pass, or the WAL at its bound). Never rejects.
   */
  afterSync(): Promise<void> | undefined {
    if (!this.checkpoints || this.closing || this.checkpointThread.exited || this.seq < 0) return undefined;
    const { frames, seq } = this;
    if (this.restartFrom !== null) {
      // The write after a final pass restarts the WAL, unless the pass could not copy it all or a reader in
      // another process still uses it (or, rarely, an asynchronous write of the group commit landed during the
      // pass): then holding writes again at every sync would not help, and the bound moves up a step until a
      // cycle ends in a restart.
      this.bound = seq !== this.restartFrom ? WAL_BOUND_FRAMES : Math.max(this.bound, frames + WAL_BOUND_FRAMES);
      this.restartFrom = null;
    }
    const atBound = frames >= this.bound;
    if (this.pass) {
      if (!atBound) return undefined;
      this.stats.boundStalls++;
      return this.pass.then(() => this.finalPass());
    }
    if (this.passed !== null) {
      // The WAL restarted since the pass began (a writer found it all copied): the cycle is over.
      if (seq !== this.passed.seq) return void this.endCycle();
      if (atBound || frames - this.passed.copied <= TAIL_FRAMES) {
        if (atBound) this.stats.boundStalls++;
        return this.finalPass();
      }
      this.startPass();
      return undefined;
    }
    const due = frames >= START_FRAMES || (frames >= MIN_FRAMES && Date.now() - this.cycleEndedAt >= CHECKPOINT_EVERY_MS);
    if (!due && !atBound) return undefined;
    this.startPass();
    if (!atBound) return undefined;
    this.stats.boundStalls++;
    return this.pass!.then(() => this.finalPass());
  }

  private checkpoint(): Promise<Reply | null> {
    return this.checkpointThread.request().then(
      (r) => r,
      (err: unknown) => {
        this.warn(`WAL checkpoint failed: ${err instanceof Error ? err.message : String(err)}`);
        return null;
      },
    );
  }

  private startPass(): void {
    this.stats.passes++;
    const seq = this.seq;
    this.pass = this.checkpoint().then((r) => {
      this.pass = null;
      // What it copied, of the WAL as it was when it began. Busy (another checkpoint), failed, or no further than
      // the pass before it (a reader elsewhere still uses that part of the WAL): the cycle ends, to start over later.
      const copied = r && r.busy === 0 && typeof r.checkpointed === 'number' ? r.checkpointed : -1;
      const before = this.passed && this.passed.seq === seq ? this.passed.copied : -1;
      if (copied > before) this.passed = { seq, copied };
      else this.endCycle();
    });
  }

  /** The cycle's last pass, with writes held: when it copies everything, the next writer restarts the WAL. */
  private async finalPass(): Promise<void> {
    this.stats.finalPasses++;
    this.finalRunning = true;
    const r = await this.checkpoint();
    this.finalRunning = false;
    this.stats.finalPassMs += r?.ms ?? 0;
    this.stats.maxFinalPassMs = Math.max(this.stats.maxFinalPassMs, r?.ms ?? 0);
    // Whether the WAL restarts shows at the next sync (afterSync above).
    this.restartFrom = this.seq;
    this.endCycle();
  }

  private endCycle(): void {
    this.passed = null;
    this.cycleEndedAt = Date.now();
  }

  /** Ends both threads (after what is in flight has answered), closing the checkpoint connection. */
  async close(): Promise<void> {
    this.closing = true;
    await this.pass;
    await Promise.all([this.syncThread.close(), this.checkpointThread.close()]);
  }
}
