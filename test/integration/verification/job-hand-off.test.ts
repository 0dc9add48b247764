// An async check's queue job is handed to this process's worker as it is written (JobHandOff, docs/performance.md
// "Jobs handed to the worker"), on both engines: written leased in the submission's transaction while the worker has
// a free slot, run once that transaction is durable with no claim and no wake-up; without a free slot written queued
// and claimed as before; a transaction that fails gives its slot back; a stopped worker runs nothing handed to it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../../src-main/core/keys/keys-service';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { processVerification, VERIFICATION_JOB } from '../../../src-main/core/verification/engine';
import { submitOnce } from '../../../src-main/core/verification/verification-service';
import { getStored, type StoredWithText } from '../../../src-main/core/verification/records';
import { enqueue, JobHandOff, type Job } from '../../../src-main/jobs/queue';
import { JobWorker } from '../../../src-main/jobs/worker';
import { createCore, type Core } from '../../../src-main/service';
import type { SqlParams, SqlPort } from '../../../src-main/store/sql-port';
import { dropTestStore, openStoppedStore, testStore } from '../../helpers/harness';

const ASYNC_NG = { country: 'NG', accountNumber: '0123456789', bankCode: '058', mode: 'async' } as const;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as never;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** Polls `cond` (a bound on a hang, not a timing assertion). */
async function until(cond: () => boolean | Promise<boolean>, what: string, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface JobRow {
  state: string;
  attempts: number;
  leased: number;
}

/**
 * A core on the project's engine with a worker of one slot that never polls (600 s), whose handler records each job
 * it runs and how another connection (committed rows only) saw that job's row as it started, and can be held.
 */
async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'vc-handoff-'));
  const store = await testStore(dir);
  const core: Core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent', scryptN: 1024, ...store });
  const other: SqlPort = await openStoppedStore({ dataDir: dir, databaseUrl: store.databaseUrl ?? null });
  cleanup.push(
    async () => rmSync(dir, { recursive: true, force: true }),
    async () => dropTestStore(dir),
    async () => core.close(),
    async () => other.close(),
  );
  const org = await bootstrap(core.deps, { email: 'handoff@example.com', password: 'correct horse battery staple' });
  const principal = await authenticateApiKey(core.deps, org.keys.sandbox.key);
  const ran: { job: Job; seenByOther: JobRow | undefined }[] = [];
  let hold: Promise<void> | null = null;
  const worker = new JobWorker({
    sql: core.deps.sql,
    clock: core.deps.clock,
    log: silent,
    concurrency: 1,
    maxIdleMs: 600_000,
    handlers: {
      [VERIFICATION_JOB]: async (job) => {
        const seenByOther = await other.get<JobRow>('SELECT state, attempts, CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END AS leased FROM jobs WHERE id = ?', [job.id]);
        ran.push({ job, seenByOther });
        if (hold) await hold;
        await processVerification(core.rt.verification, (job.payload as { verificationId: string }).verificationId, job.completeWith, job.local as StoredWithText | undefined);
      },
    },
  });
  const submit = async () => (JSON.parse((await submitOnce(core.rt.verification, principal, 'account', ASYNC_NG)).body) as { id: string }).id;
  const status = async (id: string) => (await core.deps.sql.get<{ status: string }>('SELECT status FROM verifications WHERE id = ?', [id]))?.status;
  const job = (id: string) => core.deps.sql.get<JobRow>('SELECT state, attempts, CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END AS leased FROM jobs WHERE id = ?', [`job_${id}`]);
  return {
    core,
    worker,
    ran,
    submit,
    status,
    job,
    holdJobs: () => {
      let release!: () => void;
      hold = new Promise<void>((r) => (release = r));
      return () => {
        hold = null;
        release();
      };
    },
  };
}

describe('an async check handed to the worker', () => {
  it('is written leased in the submission, runs once that is committed, with no claim and no wake-up', async () => {
    const s = await setup();
    s.worker.start();
    cleanup.push(() => s.worker.stop());
    // The worker's first claim and its sleep (600 s): from now on only a hand-off or a wake-up runs a job.
    await s.worker.drain();
    const id = await s.submit();
    await until(async () => (await s.status(id)) === 'success', 'the check to complete');
    expect(s.ran).toHaveLength(1);
    // The job was leased as it was written (attempt 1, as a claim makes it), and already committed when it ran.
    expect(s.ran[0]!.job).toMatchObject({ id: `job_${id}`, kind: VERIFICATION_JOB, attempts: 1, payload: { verificationId: id } });
    expect(s.ran[0]!.seenByOther).toEqual({ state: 'leased', attempts: 1, leased: 1 });
    // It carries the pending record as written (its handler does not read it back): the stored text, parsed.
    const local = s.ran[0]!.job.local as StoredWithText;
    expect(JSON.parse(local.resultJson)).toEqual(local.record);
    expect(local).toMatchObject({ kind: 'account', environment: 'sandbox', record: { id, status: 'pending', mode: 'async' } });
    await until(async () => (await s.job(id))?.state === 'done', 'the job to be done');
    expect(await s.job(id)).toEqual({ state: 'done', attempts: 1, leased: 0 });
  });

  it('without a free slot is written queued, and claimed once the slot is free', async () => {
    const s = await setup();
    // The service's wake-up after a job is written queued reaches this worker (the first test leaves it out).
    s.core.rt.verification.wake = () => s.worker.wake();
    s.worker.start();
    cleanup.push(() => s.worker.stop());
    await s.worker.drain();
    const release = s.holdJobs();
    const first = await s.submit();
    await until(() => s.ran.length === 1, 'the first job to start');
    // The one slot is taken: the second check's job waits in the queue, not leased.
    const second = await s.submit();
    expect(await s.job(second)).toEqual({ state: 'queued', attempts: 0, leased: 0 });
    release();
    await until(async () => (await s.status(first)) === 'success' && (await s.status(second)) === 'success', 'both checks to complete');
    expect(s.ran.map((r) => r.job.id)).toEqual([`job_${first}`, `job_${second}`]);
    expect(s.ran[1]!.seenByOther).toEqual({ state: 'leased', attempts: 1, leased: 1 });
  });

  it('gives its slot back when its transaction fails, and a stopped worker runs nothing handed to it', async () => {
    const s = await setup();
    s.core.rt.verification.wake = () => s.worker.wake();
    s.worker.start();
    await s.worker.drain();
    const { sql, clock } = s.core.deps;
    const failed = new JobHandOff(sql);
    await expect(
      sql.transaction(async (tx) => {
        await failed.enqueue(tx, clock.now(), VERIFICATION_JOB, { verificationId: 'ver_none' }, { id: 'job_rolled_back' });
        throw new Error('the transaction fails after the job was leased');
      }),
    ).rejects.toThrow('fails after');
    failed.reset();
    expect(await sql.get('SELECT id FROM jobs WHERE id = ?', ['job_rolled_back'])).toBeUndefined();
    // The slot it held is free again (drain waits for no slot held, and the worker asleep): the next check is handed
    // over, not queued.
    await s.worker.drain();
    const id = await s.submit();
    await until(async () => (await s.status(id)) === 'success', 'the check to complete');
    expect(s.ran.map((r) => r.seenByOther)).toEqual([{ state: 'leased', attempts: 1, leased: 1 }]);
    await s.worker.drain();

    // A job leased for the worker, which stops before the transaction ends: it is not run here; its lease is left
    // to end (released at the next start on SQLite, claimed once expired on PostgreSQL).
    const late = new JobHandOff(sql);
    const stopping: { done?: Promise<void> } = {};
    await sql.transaction(async (tx) => {
      await late.enqueue(tx, clock.now(), VERIFICATION_JOB, { verificationId: 'ver_none' }, { id: 'job_after_stop' });
      stopping.done = s.worker.stop();
    });
    late.start(() => undefined);
    await stopping.done;
    expect(await sql.get<JobRow>('SELECT state, attempts, CASE WHEN lease_token IS NULL THEN 0 ELSE 1 END AS leased FROM jobs WHERE id = ?', ['job_after_stop'])).toEqual({
      state: 'leased',
      attempts: 1,
      leased: 1,
    });
    expect(s.ran).toHaveLength(1);
  });

  it('never takes a slot a claim in flight holds: no more jobs run at once than the worker allows', async () => {
    const s = await setup();
    const { sql, clock } = s.core.deps;
    let running = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const worker = new JobWorker({
      sql,
      clock,
      log: silent,
      concurrency: 2,
      maxIdleMs: 600_000,
      handlers: {
        k: async () => {
          running++;
          most = Math.max(most, running);
          await gate;
          running--;
        },
      },
    });
    cleanup.push(() => {
      release();
      return worker.stop();
    });
    // A backlog of two: the worker's first claim takes both of its slots, and holds them from the moment it starts.
    await sql.transaction(async (tx) => {
      await enqueue(tx, clock.now(), 'k', {});
      await enqueue(tx, clock.now(), 'k', {});
    });
    worker.start();
    // Two more jobs written while that claim is in flight: no slot is free, so they are written queued.
    const handOff = new JobHandOff(sql);
    const ids = await sql.transaction(async (tx) => [await handOff.enqueue(tx, clock.now(), 'k', {}), await handOff.enqueue(tx, clock.now(), 'k', {})]);
    let wakes = 0;
    handOff.start(() => wakes++);
    // Both written queued (the worker woken once for them), none leased: the slots are still the claim's jobs'.
    expect(wakes).toBe(1);
    expect(await sql.all<{ state: string }>(`SELECT state FROM jobs WHERE id IN (?, ?)`, ids)).toEqual([{ state: 'queued' }, { state: 'queued' }]);
    await until(() => running === 2, 'the claimed jobs to run');
    release();
    await until(async () => (await sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE kind = 'k' AND state = 'done'"))!.n === 4, 'all four jobs to be done');
    expect(most).toBe(2);
  });

  it('does not read the queue again and again while every slot is taken; a freed slot claims the waiting job', async () => {
    const s = await setup();
    const { clock } = s.core.deps;
    const port = s.core.deps.sql;
    // The worker's port, counting its reads of the next due time (nextRunAt).
    let dueReads = 0;
    const sql = new Proxy(port, {
      get(target, key) {
        const v = Reflect.get(target, key) as unknown;
        if (key === 'get') {
          return (text: string, params?: SqlParams) => {
            if (/AS queued/.test(text)) dueReads++;
            return target.get(text, params);
          };
        }
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const ran: string[] = [];
    const worker = new JobWorker({
      sql,
      clock,
      log: silent,
      concurrency: 1,
      maxIdleMs: 600_000,
      handlers: {
        k: async (job) => {
          ran.push(job.id);
          await gate;
        },
      },
    });
    cleanup.push(() => {
      release();
      return worker.stop();
    });
    await port.transaction(async (tx) => {
      await enqueue(tx, clock.now(), 'k', {}, { id: 'job_1' });
      await enqueue(tx, clock.now(), 'k', {}, { id: 'job_2' });
    });
    worker.start();
    await until(() => ran.length === 1, 'the first job to run');
    // The one slot is taken and the second job is due: the loop waits for the slot, it does not poll the queue.
    const before = dueReads;
    await new Promise((r) => setTimeout(r, 200));
    expect(dueReads - before).toBeLessThanOrEqual(1);
    release();
    await until(() => ran.length === 2, 'the second job to run once the slot is free');
    expect(ran).toEqual(['job_1', 'job_2']);
  });

  it('runs a handed job from the record it carries, without reading it back', async () => {
    const s = await setup();
    const id = await s.submit();
    const stored = (await getStored(s.core.deps.sql, id))!;
    // The record as stored, but with the request of an account the sandbox does not find: a handler that read the
    // record back would ask with the stored request (a match) and end it `success`.
    const carried: StoredWithText = { ...stored, request: { ...(stored.request as object), accountNumber: '0000000000' } };
    await processVerification(s.core.rt.verification, id, undefined, carried);
    expect(await s.status(id)).toBe('failed');
  });
});
