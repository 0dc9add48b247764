// A durable job queue in the store: jobs are claimed with a lease and a lease token, completed or retried with a
// runAt, and dead-lettered after max attempts. A crash at any point loses nothing: an expired lease makes the
// job claimable again (at-least-once), and a stale worker's token no longer matches, so it cannot complete it.
// Each write runs in the caller's transaction when given its `tx`, else in a transaction of its own.
// On PostgreSQL (a team server, several instances on one database) a claim is one UPDATE of rows selected
// `FOR UPDATE SKIP LOCKED`, so instances claiming together take disjoint jobs; nobody releases leases at start
// (another instance may be alive): an expired lease is claimed again by any instance. docs/team-server.md,
// "Claims, leases and takeover".
import { randomBytes } from 'node:crypto';
import type { SqlQueries, TransactionOptions } from '../store/sql-port';
import { newId, randomHex } from '../core/ids';
import { POSTGRES_DIALECT } from '../store/pg/dialect';

export interface Job {
  id: string;
  kind: string;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
  leaseToken: string;
  /**
   * Set by the worker for the handler: wraps the handler's final write (a transaction's callback) so that the job's
   * completion is made in the same transaction, through its `tx` (one write and one sync fewer per job, and the
   * result and the completion are atomic). A handler that does not use it is completed by the worker afterwards,
   * as before.
   */
  completeWith?: (write: (tx: SqlQueries) => Promise<void>) => (tx: SqlQueries) => Promise<void>;
  /**
   * What the transaction that wrote the job knew of its subject, for a job handed to this process's worker as it was
   * written (JobHandOff): its handler need not read it back. Never stored; a claimed job has none.
   */
  local?: unknown;
}

/** Runs a write in the caller's transaction, or in one of its own when given the port itself. */
function write<T>(q: SqlQueries, fn: (tx: SqlQueries) => Promise<T>, options?: TransactionOptions): Promise<T> {
  return q.inTransaction ? fn(q) : q.transaction(fn, options);
}

/**
 * For a transaction of its own made of one statement that is safe without serializable isolation: a claim that
 * locks its rows (SKIP LOCKED re-checks them at their latest version), a completion or retry conditional on its
 * lease token (the row lock and the re-check of its WHERE do the rest). On PostgreSQL READ COMMITTED spares them
 * the serializable transactions' predicate tracking and its false conflicts; SQLite ignores the option.
 */
const SINGLE_STATEMENT: TransactionOptions = { isolation: 'read committed' };

const ENQUEUE = `INSERT INTO jobs (id, kind, payload, state, run_at_ms, max_attempts, created_at_ms, updated_at_ms)
     VALUES (?, ?, ?, 'queued', ?, ?, ?, ?)`;

export async function enqueue(
  q: SqlQueries,
  nowMs: number,
  kind: string,
  payload: unknown,
  opts: { runAtMs?: number; maxAttempts?: number; id?: string } = {},
): Promise<string> {
  const id = opts.id ?? newId('job');
  const args = [id, kind, JSON.stringify(payload), opts.runAtMs ?? nowMs, opts.maxAttempts ?? 10, nowMs, nowMs];
  await write(q, (tx) => tx.run(ENQUEUE, args));
  return id;
}

/** This process's queue worker, as a transaction that enqueues a job sees it (JobHandOff). */
export interface JobTaker {
  /** The lease a job handed over gets (the worker's own). */
  readonly leaseMs: number;
  /** Holds a slot for a job of `kind` about to be written leased (true); false: it is written queued and claimed. */
  reserve(kind: string): boolean;
  /** Gives back a held slot that was not used (its transaction rolled back or runs again). */
  release(): void;
  /** Runs jobs leased in held slots: their transaction is durable. */
  start(jobs: Job[]): void;
}

const jobTakers = new WeakMap<object, JobTaker>();

/** The worker of the store behind `port` (the SQL port itself) takes jobs leased for it; returns the undo. */
export function takeLeasedJobs(port: SqlQueries, taker: JobTaker): () => void {
  jobTakers.set(port, taker);
  return () => {
    if (jobTakers.get(port) === taker) jobTakers.delete(port);
  };
}

const ENQUEUE_LEASED = `INSERT INTO jobs (id, kind, payload, state, run_at_ms, max_attempts, created_at_ms, updated_at_ms, attempts, lease_token, lease_until_ms)
     VALUES (?, ?, ?, 'leased', ?, ?, ?, ?, 1, ?, ?)`;

/**
 * The jobs one transaction enqueues, leased for this process's worker as they are written while it has a free slot,
 * and run by it once the transaction is durable (`start()`): no claim, no lease UPDATE, no wake-up and no poll. The
 * rule of a claim holds (the lease is durable before the handler runs). Without a worker here (a CLI, a test
 * without one) or without a free slot, a job is written queued as by `enqueue` and claimed as usual; `queued` then
 * makes `start()` wake the worker. A transaction that rolls back or runs again calls `reset()`: its leases never
 * happened. A crash after the commit leaves a leased job: released at the next start (SQLite), or claimed again
 * once its lease expires (PostgreSQL), as a claimed one.
 */
export class JobHandOff {
  private readonly taker: JobTaker | null;
  /** The jobs written leased, each in a slot the worker holds for it. */
  private leased: Job[] = [];
  /** Jobs written queued (no free slot, or no worker here): the worker is woken for them once committed (start). */
  private queued = 0;

  constructor(port: SqlQueries) {
    this.taker = jobTakers.get(port) ?? null;
  }

  /** `opts.local`: Job.local of the job if it is handed over. */
  async enqueue(tx: SqlQueries, nowMs: number, kind: string, payload: unknown, opts: { runAtMs?: number; maxAttempts?: number; id?: string; local?: unknown } = {}): Promise<string> {
    const runAt = opts.runAtMs ?? nowMs;
    if (runAt > nowMs || !this.taker?.reserve(kind)) {
      this.queued += 1;
      return enqueue(tx, nowMs, kind, payload, opts);
    }
    const id = opts.id ?? newId('job');
    const maxAttempts = opts.maxAttempts ?? 10;
    const leaseToken = randomHex(8);
    try {
      await tx.run(ENQUEUE_LEASED, [id, kind, JSON.stringify(payload), runAt, maxAttempts, nowMs, nowMs, leaseToken, nowMs + this.taker.leaseMs]);
    } catch (err) {
      this.taker.release();
      throw err;
    }
    this.leased.push({ id, kind, payload, attempts: 1, maxAttempts, leaseToken, ...(opts.local !== undefined ? { local: opts.local } : {}) });
    return id;
  }

  reset(): void {
    for (let i = 0; i < this.leased.length; i++) this.taker!.release();
    this.leased = [];
    this.queued = 0;
  }

  /**
   * After the transaction is durable: its leased jobs run, and `wake` (the worker's wake-up) is called for those it
   * wrote queued, now that a claim can see them.
   */
  start(wake: () => void): void {
    const jobs = this.leased;
    this.leased = [];
    if (jobs.length > 0) this.taker!.start(jobs);
    if (this.queued > 0) wake();
    this.queued = 0;
  }
}

/**
 * Claims up to `limit` due jobs of the given kinds, including leased jobs whose lease has expired, in one
 * transaction (the caller's, or one of its own through the store's group commit, as the worker does).
 */
export function claim(q: SqlQueries, nowMs: number, kinds: readonly string[], leaseMs: number, limit = 1): Promise<Job[]> {
  if (q.engine === 'postgres') return write(q, (tx) => claimSkipLocked(tx, nowMs, kinds, leaseMs, limit), SINGLE_STATEMENT);
  return write(q, (tx) => claimIn(tx, nowMs, kinds, leaseMs, limit));
}

/**
 * The due jobs of the given kinds, oldest first: queued ones whose time has come, and leased ones whose lease has
 * expired. Each of the two is its own walk of `jobs_ready (state, run_at_ms)` in order, stopping after `limit` rows;
 * the two are merged by run_at_ms. (One `WHERE (queued AND due) OR (leased AND expired) ORDER BY run_at_ms` is an OR
 * of two index ranges whose union the engine sorts: every due job read and sorted on every claim, 10.6 ms for a claim
 * of 32 behind 50,000 queued jobs on SQLite; docs/performance.md, "Job claims that do not read the queue".) A leased
 * job is read only while it is leased (a walk over at most the jobs in flight when no lease has expired).
 * `columns`: what each walk returns (with run_at_ms); `lock`: the locking clause of each (PostgreSQL: ` FOR UPDATE SKIP
 * LOCKED`).
 */
export function dueJobsSql(kindCount: number, columns: string, lock = ''): { queued: string; expired: string } {
  const kinds = Array.from({ length: kindCount }, () => '?').join(',');
  const walk = (state: string, due: string) =>
    `SELECT ${columns}, run_at_ms FROM jobs WHERE state = '${state}' AND ${due} AND kind IN (${kinds}) ORDER BY run_at_ms ASC LIMIT ?${lock}`;
  return { queued: walk('queued', 'run_at_ms <= ?'), expired: walk('leased', 'lease_until_ms <= ?') };
}

/** Arguments of dueJobsSql's two walks, in order: the queued walk's, then the expired leases'. */
function dueJobsArgs(nowMs: number, kinds: readonly string[], limit: number): (string | number)[] {
  return [nowMs, ...kinds, limit, nowMs, ...kinds, limit];
}

/**
 * PostgreSQL: the claim in one statement. The two walks lock the due rows they return and pass over rows other
 * transactions hold (another instance's claim in flight, a completion being written); each row they lock is
 * re-checked at its latest committed version, so a job claimed and committed by another instance meanwhile is not
 * taken again. Of the rows the walks lock, the `limit` oldest are leased (the others stay locked only until this
 * statement's transaction ends). One lease token for the batch: a lease is the pair (job id, token), and every claim
 * draws a new one.
 */
async function claimSkipLocked(tx: SqlQueries, nowMs: number, kinds: readonly string[], leaseMs: number, limit: number): Promise<Job[]> {
  const token = randomBytes(8).toString('hex');
  const due = dueJobsSql(kinds.length, 'id', POSTGRES_DIALECT.skipLocked());
  const rows = await tx.all<{ id: string; kind: string; payload: string; attempts: number; max_attempts: number; run_at_ms: number }>(
    `WITH queued AS (${due.queued}), expired AS (${due.expired})
     UPDATE jobs SET state = 'leased', lease_token = ?, lease_until_ms = ?, attempts = attempts + 1, updated_at_ms = ?
       WHERE id IN (SELECT id FROM (SELECT id, run_at_ms FROM queued UNION ALL SELECT id, run_at_ms FROM expired) d
                    ORDER BY run_at_ms ASC LIMIT ?)
       RETURNING id, kind, payload, attempts, max_attempts, run_at_ms`,
    [...dueJobsArgs(nowMs, kinds, limit), token, nowMs + leaseMs, nowMs, limit],
  );
  rows.sort((a, b) => a.run_at_ms - b.run_at_ms);
  return rows.map((r) => ({ id: r.id, kind: r.kind, payload: JSON.parse(r.payload) as unknown, attempts: r.attempts, maxAttempts: r.max_attempts, leaseToken: token }));
}

const CLAIM_COLUMNS = 'id, kind, payload, attempts, max_attempts';
const CLAIM_UPDATE = `UPDATE jobs SET state = 'leased', lease_token = ?, lease_until_ms = ?, attempts = attempts + 1, updated_at_ms = ? WHERE id = ?`;

/**
 * SQLite (one writer at a time): the due jobs read, then each leased by its primary key. One UPDATE with the SELECT
 * as its subquery (as on PostgreSQL) costs SQLite more: the subquery's ids and the returned rows go through
 * ephemeral tables (a claim of 8 jobs 59 → 71 µs, an empty one 15 → 28 µs; docs/performance.md).
 */
async function claimIn(tx: SqlQueries, nowMs: number, kinds: readonly string[], leaseMs: number, limit: number): Promise<Job[]> {
  const due = dueJobsSql(kinds.length, CLAIM_COLUMNS);
  const rows = await tx.all<{ id: string; kind: string; payload: string; attempts: number; max_attempts: number }>(
    `SELECT * FROM (${due.queued}) UNION ALL SELECT * FROM (${due.expired}) ORDER BY run_at_ms ASC LIMIT ?`,
    [...dueJobsArgs(nowMs, kinds, limit), limit],
  );
  if (rows.length === 0) return [];
  // One read of the random source for the whole batch.
  const tokens = randomBytes(8 * rows.length).toString('hex');
  const jobs: Job[] = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const token = tokens.slice(16 * i, 16 * i + 16);
    await tx.run(CLAIM_UPDATE, [token, nowMs + leaseMs, nowMs, r.id]);
    jobs.push({ id: r.id, kind: r.kind, payload: JSON.parse(r.payload) as unknown, attempts: r.attempts + 1, maxAttempts: r.max_attempts, leaseToken: token });
  }
  return jobs;
}

const COMPLETE = `UPDATE jobs SET state = 'done', lease_token = NULL, updated_at_ms = ? WHERE id = ? AND state = 'leased' AND lease_token = ?`;

/** Marks a job done; false when the lease was lost (another worker holds it now). */
export async function complete(q: SqlQueries, nowMs: number, job: Pick<Job, 'id' | 'leaseToken'>): Promise<boolean> {
  const args = [nowMs, job.id, job.leaseToken];
  return (await write(q, (tx) => tx.run(COMPLETE, args), SINGLE_STATEMENT)).changes === 1;
}

const RETRY = `UPDATE jobs SET state = ?, run_at_ms = ?, lease_token = NULL, lease_until_ms = NULL, last_error = ?, updated_at_ms = ?
       WHERE id = ? AND state = 'leased' AND lease_token = ?`;

/** Schedules another attempt, or dead-letters the job when its attempts are spent. */
export async function retry(q: SqlQueries, nowMs: number, job: Job, runAtMs: number, error: string): Promise<'retried' | 'dead' | 'lost'> {
  const dead = job.attempts >= job.maxAttempts;
  const args = [dead ? 'dead' : 'queued', runAtMs, error.slice(0, 2000), nowMs, job.id, job.leaseToken];
  const res = await write(q, (tx) => tx.run(RETRY, args), SINGLE_STATEMENT);
  if (res.changes !== 1) return 'lost';
  return dead ? 'dead' : 'retried';
}

/**
 * Removes the jobs done before `olderThanMs`. The range read is `jobs_ready (state, run_at_ms)`'s: a job is done only
 * after its time (claimed at or after run_at_ms), so every job done before the cutoff was due before it too. By
 * `updated_at_ms` alone every done job kept (a week's) was read each hour to remove an hour's.
 */
export async function purgeDone(q: SqlQueries, olderThanMs: number): Promise<number> {
  return (await write(q, (tx) => tx.run(`DELETE FROM jobs WHERE state = 'done' AND run_at_ms < ? AND updated_at_ms < ?`, [olderThanMs, olderThanMs]))).changes;
}

/**
 * When the next job of the given kinds is due: the oldest queued job's time or the earliest lease to expire, whichever
 * is sooner (null when none is queued or leased). The queued one is the first row of an ordered walk of `jobs_ready`;
 * a `min()` over both states read every queued job (6.9 ms behind 50,000 on SQLite).
 */
export async function nextRunAt(q: SqlQueries, kinds: readonly string[]): Promise<number | null> {
  const placeholders = kinds.map(() => '?').join(',');
  const row = await q.get<{ queued: number | null; leased: number | null }>(nextRunAtSql(placeholders), [...kinds, ...kinds]);
  const times = [row?.queued ?? null, row?.leased ?? null].filter((t): t is number => t !== null);
  return times.length === 0 ? null : Math.min(...times);
}

/** nextRunAt's statement for `placeholders` (one `?` per kind); its arguments are the kinds twice. */
export function nextRunAtSql(placeholders: string): string {
  return `SELECT (SELECT run_at_ms FROM jobs WHERE state = 'queued' AND kind IN (${placeholders}) ORDER BY run_at_ms ASC LIMIT 1) AS queued,
            (SELECT min(lease_until_ms) FROM jobs WHERE state = 'leased' AND kind IN (${placeholders})) AS leased`;
}

/**
 * On start: leases held by a process that died are released, so their claimed jobs run again now instead of after
 * the lease expires. Only the store's sole user calls it (SQLite: one service per data folder); on PostgreSQL other
 * instances may be alive and holding these leases, so nobody does: they expire and are claimed again.
 */
export async function releaseLeases(q: SqlQueries, nowMs: number): Promise<number> {
  const sql = `UPDATE jobs SET state = 'queued', lease_token = NULL, lease_until_ms = NULL, updated_at_ms = ? WHERE state = 'leased'`;
  return (await write(q, (tx) => tx.run(sql, [nowMs]))).changes;
}
