// Where SQLite's and PostgreSQL's SQL differ (docs/team-server.md, "The SQL port"). The port already makes
// placeholders, values and change counts the same; what remains is SQL text. Every difference the core meets is
// listed here with how the core handles it: one text valid on both engines where there is one (SQLite's plan and
// speed unchanged), else a helper of this file, chosen by `dialectOf(q.engine)` or built once per engine with
// `perEngine()`.
//
// | SQLite                                        | PostgreSQL                                  | the core uses                |
// |-----------------------------------------------|---------------------------------------------|------------------------------|
// | INSERT OR IGNORE                              | —                                           | INSERT … ON CONFLICT DO NOTHING (both; SQLite ≥ 3.24) |
// | INSERT OR REPLACE                             | —                                           | INSERT … ON CONFLICT (key) DO UPDATE SET c = excluded.c (both) |
// | json_each(? or column)                        | json_array_elements_text(…::json)           | `jsonArrayValues(param or column)` |
// | json_extract(col, '$.a.b')                    | col::json #>> '{a,b}'                       | `jsonText()`                 |
// | LIKE ignores ASCII case                       | LIKE is case-sensitive; ILIKE               | `caseInsensitiveLike` (audit filters) |
// | COLLATE NOCASE columns (users.email, …)       | citext columns: = ignores case              | nothing to change            |
// | rowid: insertion order, the tie-break after a time column (`created_at DESC, rowid DESC`) | no rowid | `insertionOrder()`: PostgreSQL's primary key `id`, whose ids sort in creation order within a process (core/ids.ts) |
// | scalar max(a, b) / min(a, b)                  | GREATEST / LEAST (aggregates max/min alike) | `greatest()` / `least()`, non-NULL values only (SQLite's answer NULL when one is NULL, PostgreSQL's ignore it) |
// | WHERE 1 (an integer as a condition)           | a condition must be boolean                 | WHERE TRUE (both)            |
// | unquoted aliases keep their case (AS webhookId) | folded to lower case (webhookid)          | quoted: AS "webhookId" (both) |
// | FTS5 MATCH, rowid (History search)            | GIN expression index, tsquery               | core/verification/search.ts by `q.engine`, store/pg/search.ts |
// | `+column` to keep an index out of a plan      | not valid SQL                               | `noIndex()` (History search writes `+` on its SQLite-only path) |
// | text order: bytes (BINARY)                    | the database's collation                    | nothing: the database is created with the C collation (docs/team-server.md, set-up) |
// | NULLs sort first in ASC                       | NULLs sort last in ASC                      | nothing: no ORDER BY of the core sorts a nullable column |
// | integer / integer truncates                   | the same for integer types                  | nothing                      |
// | text may hold U+0000                          | text cannot; json ->> refuses \u0000       | refused: 422 VALIDATION_ERROR on PostgreSQL (pg-port.ts), stored on SQLite |
// | PRAGMA …, temp triggers (demo loader, live events), wal_checkpoint | —                      | engine-specific code paths (`deps.db`, SQLite only) |
// | booleans are 0/1                              | real booleans                               | the port reads them as 1/0; a 1/0 parameter where a boolean is expected is read as one |
// | one writer at a time (BEGIN IMMEDIATE)        | row locks; SELECT … FOR UPDATE [SKIP LOCKED] | `skipLocked()` in the claims |
//
// The claims (jobs, outbox fan-out, webhook attempts; docs/team-server.md "Claims, leases and takeover"): on SQLite
// the one writer makes a SELECT of due rows followed by UPDATEs of them a claim; on PostgreSQL a claim is one
// `UPDATE … WHERE id IN (SELECT id … WHERE <due> ORDER BY … LIMIT n FOR UPDATE SKIP LOCKED) RETURNING …`, so
// instances claiming together take disjoint rows instead of waiting for (or failing on) each other's.
import type { Engine } from '../sql-port';

export interface Dialect {
  readonly engine: Engine;
  /**
   * The column that orders a table's rows as they were inserted, for a tie-break after a time column (`created_at
   * DESC, ${insertionOrder()} DESC`). SQLite: the rowid (every index entry carries it, so the sort stays in the
   * index). PostgreSQL has no rowid: the primary key `id`, whose ids start with their creation time (core/ids.ts).
   * Only for tables whose primary key is an `id` made by newId.
   */
  insertionOrder(alias?: string): string;
  /** The larger of non-NULL values (SQLite's scalar max(a, b), PostgreSQL's GREATEST; they differ on NULL). */
  greatest(...values: string[]): string;
  /** The smaller of non-NULL values (SQLite's scalar min(a, b), PostgreSQL's LEAST; they differ on NULL). */
  least(...values: string[]): string;
  /** The elements of a JSON array given as one parameter (`?`), as rows of a column named `value`. */
  jsonArrayValues(param?: string): string;
  /** The text at a path of a JSON text column (`['a', 'b']` → $.a.b), NULL when absent. */
  jsonText(column: string, path: readonly string[]): string;
  /** LIKE that ignores case (ASCII at least), as SQLite's LIKE does. */
  readonly caseInsensitiveLike: 'LIKE' | 'ILIKE';
  /** A column reference the planner may not use an index for (SQLite: `+col`; PostgreSQL has no such hint). */
  noIndex(column: string): string;
  /**
   * The locking clause that ends a claim's row selection: ` FOR UPDATE SKIP LOCKED` on PostgreSQL (rows another
   * transaction has locked are passed over, not waited for; each row locked is re-checked at its latest version),
   * '' on SQLite (one writer at a time: nothing to lock).
   */
  skipLocked(): string;
  /** The locking clause of a read that is about to be written back: ` FOR UPDATE` on PostgreSQL, '' on SQLite. */
  forUpdate(): string;
}

const ident = /^[A-Za-z_][A-Za-z0-9_]*$/;
function checkPath(path: readonly string[]): void {
  for (const p of path) if (!ident.test(p)) throw new Error(`JSON path element ${JSON.stringify(p)} is not a plain name`);
}

const qualified = (alias: string | undefined, column: string) => (alias ? `${alias}.${column}` : column);

function twoOrMore(values: string[]): string {
  if (values.length < 2) throw new Error('greatest/least take two values or more');
  return values.join(', ');
}

export const SQLITE_DIALECT: Dialect = {
  engine: 'sqlite',
  insertionOrder: (alias) => qualified(alias, 'rowid'),
  greatest: (...values) => `max(${twoOrMore(values)})`,
  least: (...values) => `min(${twoOrMore(values)})`,
  jsonArrayValues: (param = '?') => `(SELECT value FROM json_each(${param}))`,
  jsonText(column, path) {
    checkPath(path);
    return `json_extract(${column}, '$.${path.join('.')}')`;
  },
  caseInsensitiveLike: 'LIKE',
  noIndex: (column) => `+${column}`,
  skipLocked: () => '',
  forUpdate: () => '',
};

export const POSTGRES_DIALECT: Dialect = {
  engine: 'postgres',
  insertionOrder: (alias) => qualified(alias, 'id'),
  greatest: (...values) => `GREATEST(${twoOrMore(values)})`,
  least: (...values) => `LEAST(${twoOrMore(values)})`,
  jsonArrayValues: (param = '?') => `(SELECT value FROM json_array_elements_text(${param}::json) AS j(value))`,
  jsonText(column, path) {
    checkPath(path);
    return `(${column}::json #>> '{${path.join(',')}}')`;
  },
  caseInsensitiveLike: 'ILIKE',
  noIndex: (column) => column,
  skipLocked: () => ' FOR UPDATE SKIP LOCKED',
  forUpdate: () => ' FOR UPDATE',
};

export function dialectOf(engine: Engine): Dialect {
  return engine === 'postgres' ? POSTGRES_DIALECT : SQLITE_DIALECT;
}

/**
 * A statement written once per engine, built at load: `const SQL = perEngine((d) => `… ${d.insertionOrder()}`)`,
 * then `q.all(SQL[q.engine])` — no text is built per call.
 */
export function perEngine(build: (d: Dialect) => string): Readonly<Record<Engine, string>> {
  return { sqlite: build(SQLITE_DIALECT), postgres: build(POSTGRES_DIALECT) };
}
