// Filtered, paginated list queries: the WHERE clause of optional equality filters and a created_at range, the
// page and the total, written once for every list endpoint (newest first, decisions §1).
import type { Db } from './database';

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
    return this.clauses.length > 0 ? this.clauses.join(' AND ') : '1';
  }
}

export function listPage<Row>(
  db: Db,
  o: { select: string; from: string; filter: ListFilter; orderBy: string; limit: number; offset: number },
): { rows: Row[]; total: number } {
  const w = o.filter.sql();
  const rows = db
    .prepare(`SELECT ${o.select} FROM ${o.from} WHERE ${w} ORDER BY ${o.orderBy} LIMIT ? OFFSET ?`)
    .all(...o.filter.args, o.limit, o.offset) as Row[];
  const { n } = db.prepare(`SELECT count(*) AS n FROM ${o.from} WHERE ${w}`).get(...o.filter.args) as { n: number };
  return { rows, total: n };
}
