// The WAL's fdatasync on a thread of its own, so the event loop never waits for the disk (docs/performance.md,
// "Durability off the event loop"). Not libuv's pool: that pool is shared with DNS lookups, file reads and crypto,
// and a sync queued behind them (or them behind a slow disk) would couple unrelated latencies.
import { Worker } from 'node:worker_threads';

// Plain CommonJS evaluated in the worker: nothing to bundle or resolve, so it runs the same from the sources
// (tsx), the electron-vite build and Electron's main process. The WAL is opened once, on the first sync (by then
// a commit has written it), and kept open: closing any descriptor of a file drops every POSIX lock this process
// holds on it, so we never open and close it per sync. 'r+' because Windows' FlushFileBuffers needs write access.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
let fd = null;
parentPort.on('message', (m) => {
  if (m === 'close') {
    if (fd !== null) try { fs.closeSync(fd); } catch {}
    parentPort.close();
    return;
  }
  try {
    if (fd === null) fd = fs.openSync(workerData.file, 'r+');
    fs.fdatasyncSync(fd);
    parentPort.postMessage({ ok: true });
  } catch (e) {
    parentPort.postMessage({ ok: false, error: String((e && e.message) || e) });
  }
});
`;

/** One fdatasync at a time of one file, on a dedicated worker thread. */
export class WalSyncer {
  private readonly worker: Worker;
  private waiting: { resolve: () => void; reject: (e: Error) => void } | null = null;
  private closed = false;

  constructor(readonly file: string) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file } });
    // An idle thread never keeps the process alive; a sync in flight or a close does (someone awaits them).
    this.worker.unref();
    this.worker.on('message', (m: { ok: boolean; error?: string }) => {
      const w = this.waiting;
      this.waiting = null;
      if (!this.closed) this.worker.unref();
      if (!w) return;
      if (m.ok) w.resolve();
      else w.reject(new Error(`fdatasync of ${this.file} failed: ${m.error ?? 'unknown error'}`));
    });
    this.worker.on('error', (err) => {
      const w = this.waiting;
      this.waiting = null;
      w?.reject(err instanceof Error ? err : new Error(String(err)));
    });
  }

  /** Resolves once every byte written to the file before this call is on stable storage. One call at a time. */
  sync(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the WAL syncer is closed'));
    if (this.waiting) return Promise.reject(new Error('a WAL sync is already in flight'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.worker.ref();
      this.worker.postMessage('sync');
    });
  }

  /** Ends the thread (after the sync in flight, if any, has answered). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const exited = new Promise<void>((res) => this.worker.once('exit', () => res()));
    this.worker.ref();
    this.worker.postMessage('close');
    await exited;
  }
}
