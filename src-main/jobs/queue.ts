// A durable job queue in the store: jobs are claimed with a lease and a lease token, completed or retried with a
// runAt, and dead-lettered after max attempts. A crash at any point loses nothing: an expired lease makes the
// job claimable again (at-least-once), and a stale worker's token no longer matches, so it cannot complete it.
// Each write runs in the caller's transaction when given its `tx`, else in a transaction of its own.
import { randomBytes } from 'node:crypto';
import type { SqlQueries } from '../store/sql-port';
import { newId } from '../core/ids';

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
}

/** Runs a write in the caller's transaction, or in one of its own when given the port itself. */
function write<T>(q: SqlQueries, fn: (tx: SqlQueries) => Promise<T>): Promise<T> {
  return q.inTransaction ? fn(q) : q.transaction(fn);
}

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

/**
 * Claims up to `limit` due jobs of the given kinds, including leased jobs whose lease has expired, in one
 * transaction (the caller's, or one of its own through the store's group commit, as the worker does).
 */
export function claim(q: SqlQueries, nowMs: number, kinds: readonly string[], leaseMs: number, limit = 1): Promise<Job[]> {
  return write(q, (tx) => claimIn(tx, nowMs, kinds, leaseMs, limit));
}

const CLAIM_UPDATE = `UPDATE jobs SET state = 'leased', lease_token = ?, lease_until_ms = ?, attempts = attempts + 1, updated_at_ms = ? WHERE id = ?`;

async function claimIn(tx: SqlQueries, nowMs: number, kinds: readonly string[], leaseMs: number, limit: number): Promise<Job[]> {
  const placeholders = kinds.map(() => '?').join(',');
  const rows = await tx.all<{ id: string; kind: string; payload: string; attempts: number; max_attempts: number }>(
    `SELECT id, kind, payload, attempts, max_attempts FROM jobs
       WHERE kind IN (${placeholders}) AND (
         (state = 'queued' AND run_at_ms <= ?) OR (state = 'leased' AND lease_until_ms <= ?))
       ORDER BY run_at_ms ASC LIMIT ?`,
    [...kinds, nowMs, nowMs, limit],
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
  return (await write(q, (tx) => tx.run(COMPLETE, args))).changes === 1;
}

const RETRY = `UPDATE jobs SET state = ?, run_at_ms = ?, lease_token = NULL, lease_until_ms = NULL, last_error = ?, updated_at_ms = ?
       WHERE id = ? AND state = 'leased' AND lease_token = ?`;

/** Schedules another attempt, or dead-letters the job when its attempts are spent. */
export async function retry(q: SqlQueries, nowMs: number, job: Job, runAtMs: number, error: string): Promise<'retried' | 'dead' | 'lost'> {
  const dead = job.attempts >= job.maxAttempts;
  const args = [dead ? 'dead' : 'queued', runAtMs, error.slice(0, 2000), nowMs, job.id, job.leaseToken];
  const res = await write(q, (tx) => tx.run(RETRY, args));
  if (res.changes !== 1) return 'lost';
  return dead ? 'dead' : 'retried';
}

export async function purgeDone(q: SqlQueries, olderThanMs: number): Promise<number> {
  return (await write(q, (tx) => tx.run(`DELETE FROM jobs WHERE state = 'done' AND updated_at_ms < ?`, [olderThanMs]))).changes;
}

export async function nextRunAt(q: SqlQueries, kinds: readonly string[]): Promise<number | null> {
  const placeholders = kinds.map(() => '?').join(',');
  const row = await q.get<{ t: number | null }>(
    `SELECT min(CASE WHEN state = 'queued' THEN run_at_ms ELSE lease_until_ms END) AS t FROM jobs
       WHERE kind IN (${placeholders}) AND state IN ('queued','leased')`,
    kinds,
  );
  return row?.t ?? null;
}

/**
 * On start: leases held by a process that died are released, so their claimed jobs run again now instead of after
 * the lease expires. Only the process that runs the queue calls it (one service per data folder).
 */
export async function releaseLeases(q: SqlQueries, nowMs: number): Promise<number> {
  const sql = `UPDATE jobs SET state = 'queued', lease_token = NULL, lease_until_ms = NULL, updated_at_ms = ? WHERE state = 'leased'`;
  return (await write(q, (tx) => tx.run(sql, [nowMs]))).changes;
}
