// Filtered, paginated list queries: the WHERE clause of optional equality filters and a created_at range, the
// page and the total, written once for every list endpoint (newest first, decisions §1).
import type { LongReads } from './reader-thread';
import type { SqlQueries } from './sql-port';

type Value = string | number;

export class ListFilter {
  readonly clauses: string[] = [];
  readonly args: Value[] = [];

  /** Adds `column = value`; skipped when value is undefined (an absent filter). */
  eq(column: string, value: Value | undefined): this {
    if (value !== undefined) {
      this.clauses.push(`${column} = ?`);
      this.args.push(value);
    }
    return this;
  }

  /** Adds a raw condition with its arguments. */
  where(sql: string, ...args: Value[]): this {
    this.clauses.push(sql);
    this.args.push(...args);
    return this;
  }

  /** `from` and `to` are ISO dates or date-times; a bare date as `to` includes that whole day. */
  createdBetween(from: string | undefined, to: string | undefined, column = 'created_at'): this {
    if (from) this.where(`${column} >= ?`, new Date(from).toISOString());
    if (to) {
      const end = /^\d{4}-\d{2}-\d{2}$/.test(to) ? Date.parse(to) + 86_400_000 : Date.parse(to) + 1;
      this.where(`${column} < ?`, new Date(end).toISOString());
    }
    return this;
  }

  sql(): string {
    return this.clauses.length > 0 ? this.clauses.join(' AND ') : 'TRUE';
  }
}

// Counting a large table costs a scan of its index (about 50 ms per million rows); a page's `total` is reused
// while the table's write counter (table_versions, kept by triggers, so it sees every connection's writes) has
// not moved. Tables without a counter are counted every time.
const COUNT_CACHE_SIZE = 500;
const countCaches = new WeakMap<object, Map<string, { version: number; n: number }>>();

async function tableVersion(q: SqlQueries, table: string): Promise<number | null> {
  try {
    const row = await q.get<{ version: number }>('SELECT version FROM table_versions WHERE name = ?', [table]);
    return row ? row.version : null;
  } catch {
    // A store opened without the table_versions migration (tests with their own migration list).
    return null;
  }
}

async function countRows(q: SqlQueries, from: string, where: string, args: Value[], countWith?: LongReads): Promise<number> {
  const sql = `SELECT count(*) AS n FROM ${from} WHERE ${where}`;
  // A count reads every matching row (40 ms for 417,000 checks, 360 ms with a type filter): off the event loop where
  // the store allows — never inside a transaction, whose own writes only its connection sees.
  const counter = countWith && !q.inTransaction ? countWith : q;
  const count = async () => (await counter.get<{ n: number }>(sql, args))!.n;
  // Inside a transaction the counter may yet roll back with the rows it counted: count afresh. PostgreSQL keeps no
  // counter (migration 19: one row updated by every insert would serialise the instances): count every time.
  const version = q.inTransaction || q.engine !== 'sqlite' ? null : await tableVersion(q, from);
  if (version === null) return count();
  let cache = countCaches.get(q);
  if (!cache) {
    cache = new Map();
    countCaches.set(q, cache);
  }
  const key = `${sql}\u0000${JSON.stringify(args)}`;
  const hit = cache.get(key);
  if (hit && hit.version === version) return hit.n;
  const n = await count();
  if (cache.size >= COUNT_CACHE_SIZE) cache.clear();
  cache.set(key, { version, n });
  return n;
}

export async function listPage<Row>(
  q: SqlQueries,
  o: {
    select: string;
    from: string;
    filter: ListFilter;
    orderBy: string;
    limit: number;
    offset: number;
    countWith?: LongReads | undefined;
    /**
     * Where the page is read when the filter has columns the ordering index does not carry, so the page's statement
     * walks that index row by row until it has a page (CoreDeps.longReads): off the event loop where the store
     * allows. The total is then counted first, and a page past it is not read at all.
     */
    pageWith?: LongReads | undefined;
  },
): Promise<{ rows: Row[]; total: number }> {
  const w = o.filter.sql();
  const sql = `SELECT ${o.select} FROM ${o.from} WHERE ${w} ORDER BY ${o.orderBy} LIMIT ? OFFSET ?`;
  const args = [...o.filter.args, o.limit, o.offset];
  if (o.pageWith && !q.inTransaction) {
    const total = await countRows(q, o.from, w, o.filter.args, o.countWith);
    return { rows: total > o.offset ? await o.pageWith.all<Row>(sql, args) : [], total };
  }
  const rows = await q.all<Row>(sql, args);
  return { rows, total: await countRows(q, o.from, w, o.filter.args, o.countWith) };
}
