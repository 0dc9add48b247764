// Where SQLite's and PostgreSQL's SQL differ, for the core's conversion to the SQL port (docs/team-server.md, "The SQL
// port"). The port already makes placeholders, values and change counts the same; what remains is SQL text, listed
// here with what the core uses today (counted in src-main when this was written) and the form that works on both.
//
// | SQLite (core today)                          | PostgreSQL                                   | on both / helper            |
// |----------------------------------------------|----------------------------------------------|-----------------------------|
// | INSERT OR IGNORE (3 uses)                    | —                                            | INSERT … ON CONFLICT DO NOTHING (SQLite ≥ 3.24) |
// | INSERT OR REPLACE (4)                        | —                                            | INSERT … ON CONFLICT (key) DO UPDATE SET … = excluded.… |
// | json_each(?) (5: lists of ids, event types)  | json_array_elements_text(?::json)            | `jsonArrayValues()`         |
// | json_extract(col, '$.a.b')                   | col::json #>> '{a,b}'                        | `jsonText()`                |
// | LIKE is case-insensitive for ASCII (2)       | LIKE is case-sensitive                       | `caseInsensitiveLike`       |
// | COLLATE NOCASE columns (users.email, …)      | citext columns: = is case-insensitive        | nothing to change           |
// | rowid, FTS5 MATCH (History search)           | primary key; GIN expression index, tsquery   | store/pg/search.ts          |
// | `+column` to keep an index out of a plan     | not valid SQL                                | `noIndex()`                 |
// | PRAGMA …, temp triggers (demo loader, live events), wal_checkpoint | —                       | engine-specific code paths  |
// | booleans are 0/1                             | real booleans                                | the port reads them as 1/0  |
// | one writer at a time (BEGIN IMMEDIATE)       | row locks; SELECT … FOR UPDATE [SKIP LOCKED] | engine-specific claims      |
import type { Engine } from '../sql-port';

export interface Dialect {
  readonly engine: Engine;
  /** The elements of a JSON array given as one parameter (`?`), as rows of a column named `value`. */
  jsonArrayValues(param?: string): string;
  /** The text at a path of a JSON text column (`['a', 'b']` → $.a.b), NULL when absent. */
  jsonText(column: string, path: readonly string[]): string;
  /** LIKE that ignores case (ASCII at least), as SQLite's LIKE does. */
  readonly caseInsensitiveLike: 'LIKE' | 'ILIKE';
  /** A column reference the planner may not use an index for (SQLite: `+col`; PostgreSQL has no such hint). */
  noIndex(column: string): string;
}

const ident = /^[A-Za-z_][A-Za-z0-9_]*$/;
function checkPath(path: readonly string[]): void {
  for (const p of path) if (!ident.test(p)) throw new Error(`JSON path element ${JSON.stringify(p)} is not a plain name`);
}

export const SQLITE_DIALECT: Dialect = {
  engine: 'sqlite',
  jsonArrayValues: (param = '?') => `(SELECT value FROM json_each(${param}))`,
  jsonText(column, path) {
    checkPath(path);
    return `json_extract(${column}, '$.${path.join('.')}')`;
  },
  caseInsensitiveLike: 'LIKE',
  noIndex: (column) => `+${column}`,
};

export const POSTGRES_DIALECT: Dialect = {
  engine: 'postgres',
  jsonArrayValues: (param = '?') => `(SELECT value FROM json_array_elements_text(${param}::json) AS j(value))`,
  jsonText(column, path) {
    checkPath(path);
    return `(${column}::json #>> '{${path.join(',')}}')`;
  },
  caseInsensitiveLike: 'ILIKE',
  noIndex: (column) => column,
};

export function dialectOf(engine: Engine): Dialect {
  return engine === 'postgres' ? POSTGRES_DIALECT : SQLITE_DIALECT;
}
