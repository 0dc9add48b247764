// A per-credential fixed-window request budget (the HTTP door spends it; kept in core, beside the store it counts in): at most N requests per credential in a window of
// one minute that opens at the credential's first request after the previous window ended.
// - SQLite (one process per data folder): counted in memory (RateLimiter).
// - PostgreSQL (a team server: any number of instances on one database): counted in the database, one row per
//   credential (SharedRateLimiter), so the budget holds whichever instance answers (docs/team-server.md,
//   "Idempotency and rate limits across instances").
import type { CoreDeps } from '../context';
import type { SqlQueries } from '../../store/sql-port';

const WINDOW_MS = 60_000;

/** What the door asks before admitting a request: 0 when it may go ahead, else the seconds to wait. */
export interface RequestBudget {
  take(credential: string): number | Promise<number>;
}

/** Seconds until the window that began at `start` ends (1 to 60, whatever the clocks say). */
function secondsLeft(start: number, now: number): number {
  return Math.min(60, Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000)));
}

export class RateLimiter implements RequestBudget {
  private windows = new Map<string, { start: number; count: number }>();
  /** perMinute may be a getter: the Settings page changes the budget while the door is up. */
  constructor(
    private readonly perMinute: number | (() => number),
    private readonly now: () => number,
  ) {}

  /** Returns 0 when the request may go ahead, else the seconds to wait. */
  take(key: string): number {
    const perMinute = typeof this.perMinute === 'function' ? this.perMinute() : this.perMinute;
    if (perMinute <= 0) return 0;
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= WINDOW_MS) {
      if (this.windows.size > 50_000) this.windows.clear();
      w = { start: t, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    if (w.count <= perMinute) return 0;
    return Math.max(1, Math.ceil((w.start + WINDOW_MS - t) / 1000));
  }
}

// One statement counts the request and says where the window stands. On a conflict PostgreSQL locks the row and
// computes the new values from its latest version, so concurrent requests of one credential — from any instance —
// each count exactly once. A window that ended starts again at this request.
const COUNT = `INSERT INTO rate_limit_windows (credential, window_start_ms, requests) VALUES (?, ?, 1)
  ON CONFLICT (credential) DO UPDATE SET
    window_start_ms = CASE WHEN excluded.window_start_ms - rate_limit_windows.window_start_ms >= ${WINDOW_MS}
      THEN excluded.window_start_ms ELSE rate_limit_windows.window_start_ms END,
    requests = CASE WHEN excluded.window_start_ms - rate_limit_windows.window_start_ms >= ${WINDOW_MS}
      THEN 1 ELSE rate_limit_windows.requests + 1 END
  RETURNING requests, window_start_ms`;

/** Rows of credentials unused for this long are deleted (at most once per PURGE_EVERY_MS per instance). */
const PURGE_AFTER_MS = 3_600_000;
const PURGE_EVERY_MS = 3_600_000;

export class SharedRateLimiter implements RequestBudget {
  private lastPurge = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly sql: SqlQueries,
    private readonly perMinute: () => number,
    private readonly now: () => number,
    private readonly onPurgeError: (err: unknown) => void = () => {},
  ) {}

  async take(credential: string): Promise<number> {
    const perMinute = this.perMinute();
    if (perMinute <= 0) return 0;
    const t = this.now();
    // Its own short transaction, read committed: the row lock is held only for this statement and its commit. The
    // commit does not wait for the WAL flush: a count lost in a database crash lets at most the requests of that
    // instant through again, while waiting for the flush would serialise one credential's requests on the disk.
    const row = await this.sql.transaction(
      async (tx) => {
        await tx.exec('SET LOCAL synchronous_commit = off');
        return tx.get<{ requests: number; window_start_ms: number }>(COUNT, [credential, t]);
      },
      { isolation: 'read committed' },
    );
    if (t - this.lastPurge >= PURGE_EVERY_MS) {
      this.lastPurge = t;
      this.sql.transaction((tx) => tx.run('DELETE FROM rate_limit_windows WHERE window_start_ms <= ?', [t - PURGE_AFTER_MS])).catch(this.onPurgeError);
    }
    if (!row || row.requests <= perMinute) return 0;
    return secondsLeft(row.window_start_ms, t);
  }
}

/** The budget for a store: in the database when other instances may share it (PostgreSQL), else in memory. */
export function requestBudgetFor(deps: Pick<CoreDeps, 'sql' | 'clock' | 'config' | 'log'>): RequestBudget {
  const perMinute = () => deps.config.rateLimitPerMinute;
  const now = () => deps.clock.now();
  if (deps.sql.engine === 'postgres') {
    return new SharedRateLimiter(deps.sql, perMinute, now, (err) => deps.log.warn({ err: (err as Error).message }, 'could not purge old rate-limit windows; the next pass tries again'));
  }
  return new RateLimiter(perMinute, now);
}
