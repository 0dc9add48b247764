// Runs a batch-CSV validation in a worker thread so the main process stays responsive, with progress and cancel.
// Results cross the thread boundary as messages; errors come back as values and are turned into rejections here.
import type { CsvInputPlan } from './csv-input';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BatchProgress, BatchSummary, ColumnMapping } from './csv-batch';
import type { DirectoryEntries } from './directory';

export interface CsvWorkerData {
  input: string;
  output: string;
  invalidOnlyOutput?: string;
  mapping?: Partial<ColumnMapping>;
  /** How to read the file (csv-input.ts); the worker then runs validateCsvInput, which rewrites it when needed. */
  plan?: CsvInputPlan;
  sandbox: boolean;
  /** Live directory as plain entries; null in sandbox (the worker uses the bundled fixtures) or without a directory. */
  directory: { name: string; importedAt: string | null; entries: DirectoryEntries } | null;
}

export type CsvWorkerMessage =
  | { type: 'progress'; progress: BatchProgress }
  | { type: 'done'; summary: BatchSummary }
  | { type: 'error'; error: { code: string; message: string; cancelled: boolean } };

export type CsvWorkerCommand = { type: 'cancel' };

export interface CsvBatchHandle {
  promise: Promise<BatchSummary>;
  cancel(): void;
  onProgress(cb: (p: BatchProgress) => void): void;
}

export class CsvBatchError extends Error {
  override name: string;
  constructor(
    readonly code: string,
    message: string,
    readonly cancelled: boolean,
  ) {
    super(message);
    this.name = cancelled ? 'AbortError' : 'CsvBatchError';
  }
}

/**
 * Under tsx/vitest this module is TypeScript and so is the worker. In the electron-vite build this code is bundled
 * into out/main/*.js (or a chunk below it) and the worker is its own entry, out/main/batch-csv-worker.js.
 */
function defaultWorkerUrl(): URL {
  if (import.meta.url.endsWith('.ts')) return new URL('../../jobs/batch-csv-worker.ts', import.meta.url);
  // Names in variables: a literal `new URL('./x.js', import.meta.url)` would be rewritten by Vite's asset handling.
  const candidates = ['./batch-csv-worker.js', '../batch-csv-worker.js', '../../jobs/batch-csv-worker.js'];
  for (const c of candidates) {
    const url = new URL(c, import.meta.url);
    if (existsSync(url)) return url;
  }
  return new URL(candidates[0]!, import.meta.url);
}

const CANCEL_GRACE_MS = 5_000;

/**
 * A `.ts` worker (tsx, vitest) is booted through tsx's CommonJS register hook: on Node 20 neither
 * `execArgv: ['--import', 'tsx']` nor `module.register` inside the worker reaches the worker's own entry module
 * (both end in ERR_UNKNOWN_FILE_EXTENSION, measured on 20.20), while `tsx/cjs/api` does.
 */
function startWorker(url: URL, data: CsvWorkerData): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData: data });
  const tsxCjs = createRequire(import.meta.url).resolve('tsx/cjs/api');
  const boot = `require(${JSON.stringify(tsxCjs)}).register(); require(${JSON.stringify(fileURLToPath(url))});`;
  return new Worker(boot, { eval: true, workerData: data });
}

export function runCsvBatchInWorker(opts: CsvWorkerData & { workerUrl?: URL }): CsvBatchHandle {
  const { workerUrl, ...data } = opts;
  const url = workerUrl ?? defaultWorkerUrl();
  const worker = startWorker(url, data);
  const listeners: ((p: BatchProgress) => void)[] = [];
  let settled = false;
  let cancelRequested = false;
  let killTimer: NodeJS.Timeout | null = null;

  const promise = new Promise<BatchSummary>((resolve, reject) => {
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      if (killTimer) clearTimeout(killTimer);
      fn();
    };
    worker.on('message', (m: CsvWorkerMessage) => {
      if (m.type === 'progress') {
        for (const cb of listeners) cb(m.progress);
      } else if (m.type === 'done') {
        settle(() => resolve(m.summary));
      } else {
        settle(() => reject(new CsvBatchError(m.error.code, m.error.message, m.error.cancelled)));
      }
    });
    worker.on('error', (e) => settle(() => reject(e)));
    worker.on('exit', (code) =>
      settle(() =>
        reject(
          cancelRequested
            ? new CsvBatchError('VERIFICATION_CANCELLED', 'The batch was cancelled.', true)
            : new CsvBatchError('VERIFICATION_ERROR', `The batch worker exited with code ${code}.`, false),
        ),
      ),
    );
  });

  return {
    promise,
    cancel() {
      if (settled) return;
      cancelRequested = true;
      worker.postMessage({ type: 'cancel' } satisfies CsvWorkerCommand);
      // A worker stuck in a long synchronous stretch cannot read the message; do not wait for it forever.
      killTimer ??= setTimeout(() => {
        void worker.terminate();
      }, CANCEL_GRACE_MS);
      killTimer.unref();
    },
    onProgress(cb) {
      listeners.push(cb);
    },
  };
}
