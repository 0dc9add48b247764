// Batch-CSV validation jobs of the console: each runs in a worker thread, is kept in history (`routing_batches`),
// reports progress while running (held in memory) and can be cancelled. Results go under <dataDir>/batches/<id>/.
import { createReadStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { AppError } from '../../../src-shared/app-error';
import type { BatchJob, BatchProgressInfo, BatchResultRows } from '../../../src-shared/schemas/routing';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import type { Principal } from '../principal';
import type { ColumnMapping } from './csv-batch';
import { CsvRecordParser } from './csv-reader';
import { planCsvInput } from './csv-input';
import { exportDirectoryEntries, liveDirectoryRef } from './directory-store';
import { runCsvBatchInWorker, type CsvBatchHandle, type CsvWorkerData } from './run-batch-in-worker';
import { perEngine } from '../../store/pg/dialect';

const LIST_BATCHES = perEngine((d) => `SELECT * FROM routing_batches WHERE organization_id = ? ORDER BY started_at DESC, ${d.insertionOrder()} DESC LIMIT ? OFFSET ?`);

interface BatchRow {
  id: string;
  environment: 'sandbox' | 'live';
  input_name: string;
  status: BatchJob['status'];
  rows: number;
  valid: number;
  invalid: number;
  reasons: string;
  result_path: string | null;
  invalid_only_path: string | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

interface Running {
  handle: CsvBatchHandle;
  progress: BatchProgressInfo | null;
  done: Promise<void>;
}

export interface StartBatchInput {
  path: string;
  mapping?: Partial<ColumnMapping> | undefined;
}

export interface ResultQuery {
  id: string;
  invalidOnly?: boolean | undefined;
  offset: number;
  limit: number;
  search?: string | undefined;
}

export class BatchJobs {
  private readonly running = new Map<string, Running>();
  /** recover() in progress: a batch starts only after it, or the recovery could fail the new batch's row. */
  private recovering: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: CoreDeps,
    private readonly dataDir: string,
    private readonly workerUrl?: URL,
  ) {}

  /** Batches left `running` by a process that died can never finish: they are marked failed. */
  recover(): Promise<number> {
    const finishedAt = iso(this.deps.clock.now());
    const done = this.deps.sql
      .transaction((tx) =>
        tx.run("UPDATE routing_batches SET status = 'failed', error = 'The app stopped while this batch was running.', finished_at = ? WHERE status = 'running'", [
          finishedAt,
        ]),
      )
      .then((r) => r.changes);
    this.recovering = done.catch(() => undefined);
    return done;
  }

  async start(p: Principal, input: StartBatchInput): Promise<BatchJob> {
    try {
      if (!statSync(input.path).isFile()) throw new Error('not a file');
    } catch {
      throw new AppError('VALIDATION_ERROR', { details: [{ field: 'path', message: 'no readable CSV file at this path' }] });
    }
    // The input rules (csv-input.ts): a file whose columns cannot be read is refused before a job exists.
    const plan = planCsvInput(input.path, { mapping: input.mapping }, 'console');
    const id = newId('bat');
    const dir = join(this.dataDir, 'batches', id);
    mkdirSync(dir, { recursive: true });
    const resultPath = join(dir, 'results.csv');
    const invalidOnlyPath = join(dir, 'invalid-rows.csv');
    let directory: CsvWorkerData['directory'] = null;
    if (p.environment === 'live') {
      const ref = await liveDirectoryRef(this.deps, p.organizationId);
      if (ref) directory = { ...ref, entries: await exportDirectoryEntries(this.deps, p.organizationId) };
    }
    await this.recovering;
    const startedAt = iso(this.deps.clock.now());
    const args = [id, p.organizationId, p.environment, basename(input.path), input.path, resultPath, invalidOnlyPath, startedAt];
    await this.deps.sql.transaction((tx) =>
      tx.run(
        "INSERT INTO routing_batches (id, organization_id, environment, input_name, input_path, status, result_path, invalid_only_path, started_at) VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?)",
        args,
      ),
    );
    const handle = runCsvBatchInWorker({
      input: input.path,
      output: resultPath,
      invalidOnlyOutput: invalidOnlyPath,
      ...(input.mapping ? { mapping: input.mapping } : {}),
      plan,
      sandbox: p.environment === 'sandbox',
      directory,
      ...(this.workerUrl ? { workerUrl: this.workerUrl } : {}),
    });
    const entry: Running = { handle, progress: null, done: Promise.resolve() };
    handle.onProgress((pr) => {
      entry.progress = pr;
    });
    entry.done = handle.promise.then(
      async (summary) => {
        const args = [summary.rows, summary.valid, summary.invalid, JSON.stringify(summary.reasons), iso(this.deps.clock.now()), id];
        await this.deps.sql.transaction((tx) =>
          tx.run("UPDATE routing_batches SET status = 'done', rows = ?, valid = ?, invalid = ?, reasons = ?, finished_at = ? WHERE id = ?", args),
        );
      },
      async (err: unknown) => {
        const e = err as { cancelled?: boolean; message?: string };
        const cancelled = e.cancelled === true;
        // The engine deletes partial outputs; the folder goes too so history never points at missing files.
        rmSync(dir, { recursive: true, force: true });
        const args = [cancelled ? 'cancelled' : 'failed', cancelled ? null : (e.message ?? 'The batch failed.'), entry.progress?.rows ?? 0, iso(this.deps.clock.now()), id];
        await this.deps.sql.transaction((tx) =>
          tx.run('UPDATE routing_batches SET status = ?, error = ?, rows = ?, result_path = NULL, invalid_only_path = NULL, finished_at = ? WHERE id = ?', args),
        );
      },
    ).finally(() => {
      this.running.delete(id);
    });
    this.running.set(id, entry);
    return this.get(p.organizationId, id);
  }

  async get(organizationId: string, id: string): Promise<BatchJob> {
    const row = await this.deps.sql.get<BatchRow>('SELECT * FROM routing_batches WHERE id = ? AND organization_id = ?', [id, organizationId]);
    if (!row) throw new AppError('NOT_FOUND', { message: 'No batch with this id exists.' });
    return this.toJob(row);
  }

  async list(organizationId: string, q: { limit: number; offset: number } = { limit: 50, offset: 0 }): Promise<BatchJob[]> {
    const rows = await this.deps.sql.all<BatchRow>(LIST_BATCHES[this.deps.sql.engine], [
      organizationId,
      q.limit,
      q.offset,
    ]);
    return rows.map((r) => this.toJob(r));
  }

  async cancel(organizationId: string, id: string): Promise<BatchJob> {
    const job = await this.get(organizationId, id);
    this.running.get(id)?.handle.cancel();
    return job;
  }

  /** Resolves when the batch has left `running` (tests, shutdown). */
  async wait(organizationId: string, id: string): Promise<BatchJob> {
    await this.running.get(id)?.done;
    return this.get(organizationId, id);
  }

  /** Cancels every running batch and waits for the workers to stop. */
  async stopAll(): Promise<void> {
    await this.recovering;
    const all = [...this.running.values()];
    for (const r of all) r.handle.cancel();
    await Promise.allSettled(all.map((r) => r.done));
  }

  /** Rows of a finished batch's result file, optionally only the invalid rows and/or those containing `search`. */
  async results(organizationId: string, q: ResultQuery): Promise<BatchResultRows> {
    const job = await this.get(organizationId, q.id);
    const path = q.invalidOnly ? job.invalidOnlyPath : job.resultPath;
    if (job.status !== 'done' || !path) {
      throw new AppError('VALIDATION_ERROR', { message: `The batch is ${job.status}; results exist only once it is done.` });
    }
    return readResultRows(path, q);
  }

  private toJob(r: BatchRow): BatchJob {
    return {
      id: r.id,
      environment: r.environment,
      inputName: r.input_name,
      status: r.status,
      rows: r.rows,
      valid: r.valid,
      invalid: r.invalid,
      reasons: JSON.parse(r.reasons) as Record<string, number>,
      resultPath: r.result_path,
      invalidOnlyPath: r.invalid_only_path,
      error: r.error,
      startedAt: r.started_at,
      finishedAt: r.finished_at,
      progress: r.status === 'running' ? (this.running.get(r.id)?.progress ?? null) : null,
    };
  }
}

/** Streams a result CSV, so a page of a million-row result costs one pass and a page of memory. */
export async function readResultRows(path: string, q: { offset: number; limit: number; search?: string | undefined }): Promise<BatchResultRows> {
  const needle = q.search?.trim().toLowerCase() ?? '';
  let headers: string[] | null = null;
  const rows: string[][] = [];
  let total = 0;
  const parser = new CsvRecordParser((r) => {
    if (headers === null) {
      headers = r.cells;
      return;
    }
    if (needle !== '' && !r.cells.some((c) => c.toLowerCase().includes(needle))) return;
    if (total >= q.offset && rows.length < q.limit) rows.push(r.cells);
    total++;
  });
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 64 * 1024 })) parser.push(chunk as string);
  parser.end();
  return { headers: headers ?? [], rows, total, offset: q.offset, limit: q.limit };
}

const registry = new WeakMap<object, BatchJobs>();

/** One BatchJobs per running core (keyed by its deps), shared by the console handlers and the feature's stop(). */
export function batchJobsFor(deps: CoreDeps, dataDir: string): BatchJobs {
  let jobs = registry.get(deps);
  if (!jobs) {
    jobs = new BatchJobs(deps, dataDir);
    registry.set(deps, jobs);
  }
  return jobs;
}
