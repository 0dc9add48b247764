// A durable job queue in SQLite: jobs are claimed with a lease and a lease token, completed or retried with a
// runAt, and dead-lettered after max attempts. A crash at any point loses nothing: an expired lease makes the
// job claimable again (at-least-once), and a stale worker's token no longer matches, so it cannot complete it.
import { randomBytes } from 'node:crypto';
import type { Db } from '../store/database';
import { newId } from '../core/ids';

export interface Job {
  id: string;
  kind: string;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
  leaseToken: string;
  /**
   * Set by the worker for the handler: wraps the handler's final write so that the job's completion is made in the
   * same transaction (one write and one sync fewer per job, and the result and the completion are atomic). A
   * handler that does not use it is completed by the worker afterwards, as before.
   */
  completeWith?: (write: () => void) => () => void;
}

export function enqueue(
  db: Db,
  nowMs: number,
  kind: string,
  payload: unknown,
  opts: { runAtMs?: number; maxAttempts?: number; id?: string } = {},
): string {
  const id = opts.id ?? newId('job');
  db.prepare(
    `INSERT INTO jobs (id, kind, payload, state, run_at_ms, max_attempts, created_at_ms, updated_at_ms)
     VALUES (?, ?, ?, 'queued', ?, ?, ?, ?)`,
  ).run(id, kind, JSON.stringify(payload), opts.runAtMs ?? nowMs, opts.maxAttempts ?? 10, nowMs, nowMs);
  return id;
}

/**
 * Claims up to `limit` due jobs of the given kinds, including leased jobs whose lease has expired, in one
 * transaction (a savepoint when called inside the group commit, as the worker does).
 */
export function claim(db: Db, nowMs: number, kinds: readonly string[], leaseMs: number, limit = 1): Job[] {
  // One transaction wrapper per store (better-sqlite3 builds a new one on every transaction() call).
  let tx = claimTx.get(db);
  if (!tx) {
    tx = db.transaction(claimIn).immediate as typeof claimIn;
    claimTx.set(db, tx);
  }
  return tx(db, nowMs, kinds, leaseMs, limit);
}

const claimTx = new WeakMap<Db, typeof claimIn>();

function claimIn(db: Db, nowMs: number, kinds: readonly string[], leaseMs: number, limit: number): Job[] {
  const placeholders = kinds.map(() => '?').join(',');
  const rows = db
    .prepare(
      `SELECT id, kind, payload, attempts, max_attempts FROM jobs
       WHERE kind IN (${placeholders}) AND (
         (state = 'queued' AND run_at_ms <= ?) OR (state = 'leased' AND lease_until_ms <= ?))
       ORDER BY run_at_ms ASC LIMIT ?`,
    )
    .all(...kinds, nowMs, nowMs, limit) as { id: string; kind: string; payload: string; attempts: number; max_attempts: number }[];
  const upd = db.prepare(
    `UPDATE jobs SET state = 'leased', lease_token = ?, lease_until_ms = ?, attempts = attempts + 1, updated_at_ms = ? WHERE id = ?`,
  );
  // One read of the random source for the whole batch.
  const tokens = rows.length > 0 ? randomBytes(8 * rows.length).toString('hex') : '';
  return rows.map((r, i) => {
    const token = tokens.slice(16 * i, 16 * i + 16);
    upd.run(token, nowMs + leaseMs, nowMs, r.id);
    return { id: r.id, kind: r.kind, payload: JSON.parse(r.payload) as unknown, attempts: r.attempts + 1, maxAttempts: r.max_attempts, leaseToken: token };
  });
}

/** Marks a job done; false when the lease was lost (another worker holds it now). */
export function complete(db: Db, nowMs: number, job: Pick<Job, 'id' | 'leaseToken'>): boolean {
  return (
    db
      .prepare(`UPDATE jobs SET state = 'done', lease_token = NULL, updated_at_ms = ? WHERE id = ? AND state = 'leased' AND lease_token = ?`)
      .run(nowMs, job.id, job.leaseToken).changes === 1
  );
}

/** Schedules another attempt, or dead-letters the job when its attempts are spent. */
export function retry(db: Db, nowMs: number, job: Job, runAtMs: number, error: string): 'retried' | 'dead' | 'lost' {
  const dead = job.attempts >= job.maxAttempts;
  const res = db
    .prepare(
      `UPDATE jobs SET state = ?, run_at_ms = ?, lease_token = NULL, lease_until_ms = NULL, last_error = ?, updated_at_ms = ?
       WHERE id = ? AND state = 'leased' AND lease_token = ?`,
    )
    .run(dead ? 'dead' : 'queued', runAtMs, error.slice(0, 2000), nowMs, job.id, job.leaseToken);
  if (res.changes !== 1) return 'lost';
  return dead ? 'dead' : 'retried';
}

export function purgeDone(db: Db, olderThanMs: number): number {
  return db.prepare(`DELETE FROM jobs WHERE state = 'done' AND updated_at_ms < ?`).run(olderThanMs).changes;
}

export function nextRunAt(db: Db, kinds: readonly string[]): number | null {
  const placeholders = kinds.map(() => '?').join(',');
  const row = db
    .prepare(
      `SELECT min(CASE WHEN state = 'queued' THEN run_at_ms ELSE lease_until_ms END) AS t FROM jobs
       WHERE kind IN (${placeholders}) AND state IN ('queued','leased')`,
    )
    .get(...kinds) as { t: number | null };
  return row.t;
}

/**
 * On start: leases held by a process that died are released, so its claimed jobs run again now instead of after
 * the lease expires. Only the process that runs the queue calls it (one service per data folder).
 */
export function releaseLeases(db: Db, nowMs: number): number {
  return db
    .prepare(`UPDATE jobs SET state = 'queued', lease_token = NULL, lease_until_ms = NULL, updated_at_ms = ? WHERE state = 'leased'`)
    .run(nowMs).changes;
}
