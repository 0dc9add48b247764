// Batch-CSV jobs through the console channels: preview, start (worker thread), history, result pages with
// invalid-only and search filters, cancel, and the live directory reaching the worker.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchJobsFor } from '../../../src-main/core/routing/batch-jobs';
import { startTestService, type TestService } from '../../helpers/harness';

let ts: TestService;
let dir: string;
let h: Record<string, (i: unknown) => Promise<any>>;

beforeAll(async () => {
  ts = await startTestService();
  dir = mkdtempSync(join(tmpdir(), 'vc-batch-'));
  h = ts.service.handlers as unknown as Record<string, (i: unknown) => Promise<any>>;
});
afterAll(async () => {
  await ts.stop();
  rmSync(dir, { recursive: true, force: true });
});

const SMALL = [
  'note,swift_code,routing_number',
  'ok bic,DEUTDEFF,',
  'ok aba,,021000021',
  'bad bic,DEUT12FF,',
  '"=HYPERLINK(""http://evil"")",BARCGB22,',
  'unknown,UNKNGB2L,',
].join('\n');

async function finished(id: string) {
  return batchJobsFor(ts.service.deps, ts.dataDir).wait(ts.org!.organizationId, id);
}

describe('batch CSV jobs (console channels)', () => {
  it('previews the first rows with the detected mapping', async () => {
    const path = join(dir, 'small.csv');
    writeFileSync(path, SMALL);
    const p = await h['batch:preview']!({ path });
    expect(p.hasHeader).toBe(true);
    expect(p.headers).toEqual(['note', 'swift_code', 'routing_number']);
    expect(p.mapping).toMatchObject({ bic: 1, routing: 2 });
    expect(p.rows).toHaveLength(5);
  });

  it('runs a batch to done, keeps it in history, and pages its results', async () => {
    const path = join(dir, 'small.csv');
    writeFileSync(path, SMALL);
    const started = await h['batch:start']!({ path, environment: 'sandbox' });
    expect(started.id).toMatch(/^bat_/);
    expect(started.status).toBe('running');
    const job = await finished(started.id);
    expect(job).toMatchObject({ status: 'done', rows: 5, valid: 3, invalid: 2, inputName: 'small.csv', environment: 'sandbox' });
    expect(job.reasons).toEqual({ BIC_MALFORMED: 1, TEST_NUMBER_NOT_FOUND: 1 });
    expect(job.resultPath).toBe(join(ts.dataDir, 'batches', started.id, 'results.csv'));
    expect(existsSync(job.resultPath!)).toBe(true);

    const progress = await h['batch:progress']!({ id: started.id });
    expect(progress).toMatchObject({ status: 'done', progress: null });
    const list = await h['batch:list']!({});
    expect(list.map((j: { id: string }) => j.id)).toContain(started.id);

    const all = await h['batch:results']!({ id: started.id, offset: 0, limit: 100 });
    expect(all.headers.slice(0, 5)).toEqual(['note', 'swift_code', 'routing_number', 'valid', 'reasons']);
    expect(all.total).toBe(5);
    // The formula cell comes back neutralised with a leading apostrophe (CSV injection).
    expect(all.rows[3][0]).toBe(`'=HYPERLINK("http://evil")`);
    const invalid = await h['batch:results']!({ id: started.id, invalidOnly: true, offset: 0, limit: 100 });
    expect(invalid.rows.map((r: string[]) => r[0])).toEqual(['bad bic', 'unknown']);
    const page = await h['batch:results']!({ id: started.id, offset: 1, limit: 2 });
    expect(page.rows.map((r: string[]) => r[0])).toEqual(['ok aba', 'bad bic']);
    expect(page.total).toBe(5);
    const search = await h['batch:results']!({ id: started.id, search: 'deutsche', offset: 0, limit: 10 });
    expect(search.rows.map((r: string[]) => r[0])).toEqual(['ok bic']);
  });

  it('cancels a running batch and deletes its partial output', async () => {
    const path = join(dir, 'big.csv');
    const lines = ['bic'];
    for (let i = 0; i < 400_000; i++) lines.push(i % 2 ? 'DEUTDEFF' : `BANK${String(i % 100).padStart(2, '0')}GB2L`);
    writeFileSync(path, lines.join('\n'));
    const started = await h['batch:start']!({ path, environment: 'sandbox' });
    const cancelled = await h['batch:cancel']!({ id: started.id });
    expect(cancelled.id).toBe(started.id);
    const job = await finished(started.id);
    expect(job.status).toBe('cancelled');
    expect(job.resultPath).toBeNull();
    expect(existsSync(join(ts.dataDir, 'batches', started.id))).toBe(false);
    await expect(h['batch:results']!({ id: started.id, offset: 0, limit: 10 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('refuses a path that is not a file, and an unknown batch id', async () => {
    await expect(h['batch:start']!({ path: join(dir, 'nope.csv'), environment: 'sandbox' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(h['batch:progress']!({ id: 'bat_unknown' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('checks a live batch against the imported directory in the worker', async () => {
    await h['routing:import']!({ path: join(process.cwd(), 'resources/routing/sample-bic-directory.csv') });
    const path = join(dir, 'live.csv');
    writeFileSync(path, 'bic\nDEUTDEFF\nUNKNGB2L\n');
    const started = await h['batch:start']!({ path, environment: 'live' });
    const job = await finished(started.id);
    expect(job).toMatchObject({ status: 'done', environment: 'live', rows: 2, valid: 1, invalid: 1, reasons: { NOT_IN_DIRECTORY: 1 } });
  });

  it('answers the single checks through the console channels too', async () => {
    const bic = await h['routing:bic']!({ environment: 'sandbox', request: { bic: 'DEUTDEFF' } });
    expect(bic).toMatchObject({ valid: true, bankName: 'Deutsche Bank AG' });
    const batch = await h['routing:batch']!({ environment: 'sandbox', request: { items: [{ type: 'routing', routingNumber: '021000021' }] } });
    expect(batch.summary).toEqual({ total: 1, valid: 1, invalid: 0 });
  });

});
