// Worker-thread entry that runs one batch-CSV validation off the main thread and reports progress, done or error.
// Started by core/routing/run-batch-in-worker; the directory arrives as plain data because functions cannot cross threads.
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { validateCsvFile } from '../core/routing/csv-batch';
import { validateCsvInput } from '../core/routing/csv-input';
import { createMemoryDirectory } from '../core/routing/directory';
import type { CsvWorkerCommand, CsvWorkerData, CsvWorkerMessage } from '../core/routing/run-batch-in-worker';

/** Nice value of the batch thread: background work that must yield the CPU to the thread serving requests. */
const BATCH_THREAD_NICE = 10;

/**
 * On Linux, setpriority() for pid 0 applies to the calling thread only, so the batch can yield to the event loop
 * on a busy 2-core machine (measured by benchmark 7). Elsewhere pid 0 means the whole process, which must keep
 * its priority, so nothing is changed there.
 */
function lowerThreadPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(0, BATCH_THREAD_NICE);
  } catch {
    // Not permitted in some sandboxes; the batch then runs at normal priority.
  }
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('batch-csv-worker must run in a worker thread');
  lowerThreadPriority();
  const data = workerData as CsvWorkerData;
  const controller = new AbortController();
  const post = (m: CsvWorkerMessage): void => port.postMessage(m);
  port.on('message', (cmd: CsvWorkerCommand) => {
    if (cmd.type === 'cancel') controller.abort();
  });

  try {
    const directory = data.directory
      ? createMemoryDirectory(data.directory.name, data.directory.importedAt, data.directory.entries)
      : null;
    const run = data.plan ? (o: Parameters<typeof validateCsvFile>[0]) => validateCsvInput({ ...o, plan: data.plan, surface: 'console' }) : validateCsvFile;
    const summary = await run({
      input: data.input,
      output: data.output,
      ...(data.invalidOnlyOutput !== undefined ? { invalidOnlyOutput: data.invalidOnlyOutput } : {}),
      ...(data.mapping !== undefined ? { mapping: data.mapping } : {}),
      directory,
      sandbox: data.sandbox,
      signal: controller.signal,
      onProgress: (progress) => post({ type: 'progress', progress }),
    });
    post({ type: 'done', summary });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    const cancelled = controller.signal.aborted;
    post({
      type: 'error',
      error: {
        code: cancelled ? 'VERIFICATION_CANCELLED' : ((e as NodeJS.ErrnoException).code ?? 'VERIFICATION_ERROR'),
        message: cancelled ? 'The batch was cancelled.' : e.message,
        cancelled,
      },
    });
  } finally {
    port.close();
  }
}

// No top-level await: under tsx on Node 20 this file is loaded as CommonJS (see run-batch-in-worker).
void main();
