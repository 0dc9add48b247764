// Housekeeping of the queue's own tables (docs/reliability.md, "Housekeeping"): finished jobs and expired idempotency
// keys are removed once an hour, so neither table grows for ever in a service that never restarts. Nothing a user
// can see is removed: a finished job's result lives in its verification or delivery, and an idempotency key is
// answered only until it expires (RETENTION_MS). Keys in flight are never touched: on a team server a key in flight
// is a claim whose lease its instance renews; a claim whose lease expired (its instance died) is removed.
import type { CoreDeps } from '../core/context';
import { purgeDone } from './queue';

/** Finished jobs are kept this long (for inspection after an incident), then removed. */
export const DONE_JOB_RETENTION_MS = 7 * 24 * 3_600_000;
export const HOUSEKEEPING_EVERY_MS = 3_600_000;

export interface HousekeepingResult {
  jobs: number;
  idempotencyKeys: number;
}

/** One pass: removes done jobs older than the retention, and idempotency keys (answers, claims) past their expiry. */
export async function housekeeping(deps: CoreDeps): Promise<HousekeepingResult> {
  const now = deps.clock.now();
  return deps.sql.transaction(async (tx): Promise<HousekeepingResult> => ({
    jobs: await purgeDone(tx, now - DONE_JOB_RETENTION_MS),
    idempotencyKeys: (await tx.run('DELETE FROM idempotency_keys WHERE expires_at_ms <= ?', [now])).changes,
  }));
}
