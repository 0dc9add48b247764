// The worker-thread path: runCsvBatchInWorker runs the real worker file (TypeScript via tsx) and relays progress.
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchProgress } from '../../../src-main/core/routing/csv-batch';
import { runCsvBatchInWorker } from '../../../src-main/core/routing/run-batch-in-worker';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'csv-worker-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runCsvBatchInWorker', () => {
  it('validates a small file in a worker and reports progress', async () => {
    const input = join(dir, 'in.csv');
    const output = join(dir, 'out.csv');
    await writeFile(input, 'bic,routing\nDEUTDEFF,\n,021000021\nZZZZGB2L,\n');
    const handle = runCsvBatchInWorker({
      input,
      output,
      sandbox: false,
      directory: {
        name: 'imported',
        importedAt: null,
        entries: { bics: [{ bic: 'ZZZZGB2L', bankName: 'Zed Bank', city: null, country: 'GB' }], abas: [], correspondents: [] },
      },
    });
    const progress: BatchProgress[] = [];
    handle.onProgress((p) => progress.push(p));
    const summary = await handle.promise;
    expect(summary).toMatchObject({ rows: 3, valid: 1, invalid: 2, reasons: { NOT_IN_DIRECTORY: 2 } });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ rows: 3, percent: 100 });
    const text = await readFile(output, 'utf8');
    expect(text.split('\r\n')[3]).toBe('ZZZZGB2L,,true,,ZZZZ,GB,2L,XXX,Zed Bank');
  });

  it('uses the sandbox fixtures when told sandbox', async () => {
    const input = join(dir, 'sb.csv');
    await writeFile(input, 'bic\nDEUTDEFF\nUNKNGB2L\n');
    const summary = await runCsvBatchInWorker({ input, output: join(dir, 'sb.out.csv'), sandbox: true, directory: null }).promise;
    expect(summary).toMatchObject({ rows: 2, valid: 1, reasons: { TEST_NUMBER_NOT_FOUND: 1 } });
  });

  it('can be cancelled; the promise rejects as aborted and no output is left', async () => {
    const input = join(dir, 'big.csv');
    const output = join(dir, 'big.out.csv');
    await writeFile(input, `bic\n${'DEUTDEFF\nBNPAFRPP\n'.repeat(300_000)}`);
    const handle = runCsvBatchInWorker({ input, output, sandbox: true, directory: null });
    handle.onProgress(() => handle.cancel());
    await expect(handle.promise).rejects.toMatchObject({ name: 'AbortError', code: 'VERIFICATION_CANCELLED' });
    await expect(access(output)).rejects.toThrow();
  });

  it('turns a worker-side failure into a rejection', async () => {
    const handle = runCsvBatchInWorker({ input: join(dir, 'missing.csv'), output: join(dir, 'x.csv'), sandbox: true, directory: null });
    await expect(handle.promise).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
