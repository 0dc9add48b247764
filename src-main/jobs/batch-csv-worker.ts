// Worker-thread entry that runs one batch-CSV validation off the main thread and reports progress, done or error.
// Started by core/routing/run-batch-in-worker; the directory arrives as plain data because functions cannot cross threads.
import { parentPort, workerData } from 'node:worker_threads';
import { validateCsvFile } from '../core/routing/csv-batch';
import { createMemoryDirectory } from '../core/routing/directory';
import type { CsvWorkerCommand, CsvWorkerData, CsvWorkerMessage } from '../core/routing/run-batch-in-worker';

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('batch-csv-worker must run in a worker thread');
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
    const summary = await validateCsvFile({
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
