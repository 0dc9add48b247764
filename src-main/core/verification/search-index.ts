// The History search index kept off the write path (SQLite; issue 16, item 2; docs/console-live.md, "Search").
// Migration 20 dropped the triggers that wrote an FTS5 row inside every check's transaction. Instead:
// - `verification_search_state.indexed_through` (the watermark): every row with a rowid at most this is indexed;
// - `verification_search_dirty`: indexed rows whose searchable columns changed since (noted by a trigger);
// and this indexer brings the index up to date in batches, each one write transaction through the SQL port:
// the rows above the watermark in rowid order (one INSERT … SELECT with migration 10's own document expression),
// then the dirty rows (their index row replaced), then the watermark moves. Two callers:
// - the service's background loop (startSearchIndexer, started by feature-search.ts where the queue runs): a look
//   every 250 ms, a batch when something is waiting, the next batch soon after a full one; a failed batch is
//   logged and tried again later, backing off up to a minute (a full or read-only disk must not spin);
// - every search that reads the index (search.ts) first catches up to completion, so a check written a moment ago
//   is found, and a check whose names changed is found by its new names only. A search is a person's action: the
//   catch-up is paid there, not on every check.
// PostgreSQL has nothing to do here: its search is an expression index PostgreSQL maintains with each row.
import type { Logger } from '../context';
import type { SqlQueries } from '../../store/sql-port';
import { SEARCH_INDEX_COLUMNS, searchDocumentSql } from '../../store/migrations/010-search-provenance';

/**
 * Rows indexed (and dirty rows re-indexed) per transaction at most: about 2 ms of the loop's time per batch at the
 * median, 15–18 ms when FTS5 merges segments (docs/performance.md).
 */
export const SEARCH_INDEX_BATCH_ROWS = 500;
/** How often the background loop looks for rows to index. */
export const SEARCH_INDEX_EVERY_MS = 250;
/** The pause after a full batch before the next (the writes of requests go between). */
const BETWEEN_BATCHES_MS = 10;
/** The longest pause after failed batches (doubling from SEARCH_INDEX_EVERY_MS). */
const MAX_BACKOFF_MS = 60_000;

/**
 * The rows as the document expression reads them, except that a request or result SQLite's JSON functions refuse
 * reads as NULL (its names are then not indexed): valid JSON nested deeper than 1,000, which a live provider's
 * answer can be (an address is stored as it came, address-spec.ts). Read as it is, one such row would fail every
 * batch, so every search, for good; under migration 10's triggers it failed only its own write. About 0.4 µs a row.
 */
const readable = (where: string) => `(SELECT rowid AS rowid, organization_id, environment, identifier, country,
    iif(json_valid(request), request, NULL) AS request, iif(json_valid(result), result, NULL) AS result
  FROM verifications WHERE ${where}) v`;
const INSERT_RANGE = `INSERT INTO verification_search (${SEARCH_INDEX_COLUMNS})
  SELECT v.rowid, ${searchDocumentSql('v')} FROM ${readable('rowid > ? AND rowid <= ?')}`;
// The dirty rows drive, each row found by its rowid: written as a join, the planner walked every row of the table
// up to the last dirty one instead (about 230 ms of the loop per batch at 1,000,000 rows; now about 0.25 ms).
const INSERT_DIRTY = `INSERT INTO verification_search (${SEARCH_INDEX_COLUMNS})
  SELECT v.rowid, ${searchDocumentSql('v')} FROM ${readable('rowid IN (SELECT verification_rowid FROM verification_search_dirty WHERE verification_rowid <= ?)')}`;

/** The indexer's two statements (tests read their query plans). */
export const SEARCH_INDEX_SQL = { range: INSERT_RANGE, dirty: INSERT_DIRTY } as const;

export interface SearchIndexBatch {
  /** Rows above the watermark indexed. */
  indexed: number;
  /** Dirty rows whose index row was replaced. */
  reindexed: number;
  /** A limit was reached: there may be more to do. */
  more: boolean;
}

/** Whether the index lags behind the rows (a read; false on PostgreSQL). */
export async function searchIndexBehind(q: SqlQueries): Promise<boolean> {
  if (q.engine !== 'sqlite') return false;
  const r = await q.get<{ behind: number }>(
    `SELECT (SELECT coalesce(max(rowid), 0) FROM verifications) > (SELECT indexed_through FROM verification_search_state WHERE id = 1)
       OR EXISTS (SELECT 1 FROM verification_search_dirty) AS behind`,
  );
  return r?.behind === 1;
}

/** The watermark: every row with a rowid at most this is indexed, unless dirty (tests and tools read it). */
export async function searchIndexedThrough(q: SqlQueries): Promise<number> {
  return (await q.get<{ w: number }>('SELECT indexed_through AS w FROM verification_search_state WHERE id = 1'))!.w;
}

/** One batch, in one write transaction (a savepoint when `q` is a transaction): at most `batchRows` new and `batchRows` dirty rows. */
export async function indexSearchBatch(q: SqlQueries, batchRows: number = SEARCH_INDEX_BATCH_ROWS): Promise<SearchIndexBatch> {
  if (q.engine !== 'sqlite') return { indexed: 0, reindexed: 0, more: false };
  return q.transaction(async (tx) => {
    const from = await searchIndexedThrough(tx);
    const next = (await tx.get<{ upto: number | null; n: number }>(
      'SELECT max(r) AS upto, count(*) AS n FROM (SELECT rowid AS r FROM verifications WHERE rowid > ? ORDER BY rowid LIMIT ?)',
      [from, batchRows],
    ))!;
    if (next.n > 0) {
      await tx.run(INSERT_RANGE, [from, next.upto!]);
      const moved = await tx.run('UPDATE verification_search_state SET indexed_through = ? WHERE id = 1', [next.upto!]);
      // Without its one row the watermark could never move, and every batch would index the same rows again.
      if (moved.changes !== 1) throw new Error('the search index has lost its state row (verification_search_state)');
    }
    const dirty = (await tx.all<{ r: number }>('SELECT verification_rowid AS r FROM verification_search_dirty ORDER BY verification_rowid LIMIT ?', [batchRows])).map((d) => d.r);
    if (dirty.length > 0) {
      // One by one, as migration 10's update trigger did: a rowid lookup is what FTS5 deletes by.
      for (const r of dirty) await tx.run('DELETE FROM verification_search WHERE rowid = ?', [r]);
      const last = dirty[dirty.length - 1]!;
      await tx.run(INSERT_DIRTY, [last]);
      await tx.run('DELETE FROM verification_search_dirty WHERE verification_rowid <= ?', [last]);
    }
    return { indexed: next.n, reindexed: dirty.length, more: next.n === batchRows || dirty.length === batchRows };
  });
}

/**
 * Brings the index up to date: batches until one is not full. Nothing is written when nothing lags. A search
 * calls this before it reads the index; if the store refuses the write (a full disk), the search fails with that
 * error rather than answer from an index that misses rows.
 */
export async function catchUpSearchIndex(q: SqlQueries, o: { batchRows?: number } = {}): Promise<{ indexed: number; reindexed: number; batches: number }> {
  const total = { indexed: 0, reindexed: 0, batches: 0 };
  if (q.engine !== 'sqlite' || !(await searchIndexBehind(q))) return total;
  for (;;) {
    const b = await indexSearchBatch(q, o.batchRows);
    total.indexed += b.indexed;
    total.reindexed += b.reindexed;
    total.batches++;
    if (!b.more) return total;
  }
}

export interface SearchIndexer {
  /** Stops the loop; resolves once a batch in progress has ended. */
  stop(): Promise<void>;
}

/** The background loop (SQLite only: on PostgreSQL it does nothing and stop() resolves at once). */
export function startSearchIndexer(deps: { sql: SqlQueries; log: Logger }, o: { everyMs?: number; batchRows?: number } = {}): SearchIndexer {
  const everyMs = o.everyMs ?? SEARCH_INDEX_EVERY_MS;
  if (deps.sql.engine !== 'sqlite') return { stop: async () => undefined };
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let failures = 0;

  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, ms);
    // The loop never keeps a process alive on its own.
    timer.unref();
  };
  const pass = async (): Promise<number> => {
    try {
      if (!(await searchIndexBehind(deps.sql))) return everyMs;
      const b = await indexSearchBatch(deps.sql, o.batchRows);
      if (failures > 0) deps.log.info({ after: failures }, 'search index: batches succeed again');
      failures = 0;
      return b.more ? BETWEEN_BATCHES_MS : everyMs;
    } catch (err) {
      failures++;
      const wait = Math.min(MAX_BACKOFF_MS, everyMs * 2 ** failures);
      deps.log.warn({ err: err instanceof Error ? err.message : String(err), failures, retryInMs: wait }, 'search index: a batch failed; History searches catch up themselves, the loop tries again later');
      return wait;
    }
  };
  function tick() {
    timer = null;
    if (stopped || running) return;
    running = pass().then((next) => {
      running = null;
      schedule(next);
    });
  }
  schedule(everyMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
