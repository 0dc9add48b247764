// The asynchronous SQL port: one way to read and write the store whatever the engine (SQLite through better-sqlite3,
// PostgreSQL through node-postgres, issue 17). Today the core still calls better-sqlite3 directly; this is the
// interface it will be converted to, and what the engine-neutral tools already use (`vconsole db copy`, the store
// invariants of core/store-invariants.ts). docs/team-server.md, "The SQL port", states the contract.
//
// What is the same on both engines (the port makes it so):
// - Placeholders: `?` (positional, with an array) or `@name` (named, with an object), as better-sqlite3 takes them;
//   the PostgreSQL engine rewrites them to `$1…` (store/pg/placeholders.ts).
// - Values in: string, number, bigint, boolean (stored as 1/0, as SQLite does), null, Buffer. `undefined` is refused.
// - Values out: INTEGER/bigint and aggregate numbers as JS numbers (a value beyond 2^53 throws rather than loses
//   digits), REAL/double as numbers, TEXT as strings, booleans of expressions as 1/0, JSON as its text, BLOB/bytea
//   as Buffers, timestamps as the text the database prints (the schema stores ISO text, never timestamp types).
// - `run()` returns the rows changed.
// - `transaction(fn)`: everything `fn` does through `tx` commits together or not at all; a nested call is a
//   savepoint. A transaction's statements run one at a time, in order; statements outside it never see its writes
//   before it commits.
// What differs, and is not hidden: the SQL dialect itself (store/pg/dialect.ts lists the differences and gives
// the helpers).

export type Engine = 'sqlite' | 'postgres';

export type SqlValue = string | number | bigint | boolean | null | Buffer | Uint8Array;
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;
export type SqlRow = Record<string, unknown>;

export interface SqlResult<T = SqlRow> {
  rows: T[];
  /** Rows inserted, updated or deleted by the statement (0 for a query). */
  changes: number;
}

export type IsolationLevel = 'read committed' | 'repeatable read' | 'serializable';

export interface TransactionOptions {
  /**
   * PostgreSQL only (SQLite transactions are always serializable): the isolation level of a top-level transaction.
   * Default: the server's (read committed).
   */
  isolation?: IsolationLevel;
  /**
   * PostgreSQL only (SQLite runs one writer at a time): top-level transactions given the same `queue` run one after
   * another, across every instance on the database. The port takes an advisory lock named by it before the
   * transaction begins and releases it once the transaction has ended, so the transaction's snapshot is taken after
   * the previous one committed: the hot rows they all read and write (a wallet's balance, the organization's audit
   * chain head) are waited for instead of met as serialization failures. docs/team-server.md, "The SQL port".
   */
  queue?: string;
}

export interface SqlQueries {
  readonly engine: Engine;
  /** True for a transaction's handle (and its savepoints), false for the port itself. */
  readonly inTransaction: boolean;
  query<T = SqlRow>(sql: string, params?: SqlParams): Promise<SqlResult<T>>;
  all<T = SqlRow>(sql: string, params?: SqlParams): Promise<T[]>;
  /** The first row, or undefined. */
  get<T = SqlRow>(sql: string, params?: SqlParams): Promise<T | undefined>;
  run(sql: string, params?: SqlParams): Promise<{ changes: number }>;
  /** A script of statements without parameters (DDL, migrations). */
  exec(sql: string): Promise<void>;
  transaction<T>(fn: (tx: SqlQueries) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** What both engines build on: `all`, `get` and `run` read their answer off `query`. */
export abstract class SqlQueriesBase implements SqlQueries {
  abstract readonly engine: Engine;
  abstract readonly inTransaction: boolean;
  abstract query<T = SqlRow>(sql: string, params?: SqlParams): Promise<SqlResult<T>>;
  abstract exec(sql: string): Promise<void>;
  abstract transaction<T>(fn: (tx: SqlQueries) => Promise<T>, options?: TransactionOptions): Promise<T>;

  async all<T = SqlRow>(sql: string, params?: SqlParams): Promise<T[]> {
    return (await this.query<T>(sql, params)).rows;
  }

  async get<T = SqlRow>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return (await this.query<T>(sql, params)).rows[0];
  }

  async run(sql: string, params?: SqlParams): Promise<{ changes: number }> {
    return { changes: (await this.query(sql, params)).changes };
  }
}

export interface SqlPort extends SqlQueries {
  /** Waits for the statements in flight, then releases the connection(s). Later calls reject. */
  close(): Promise<void>;
}

export class SqlPortError extends Error {
  override name = 'SqlPortError';
}

/** Checks and normalises one parameter value (both engines take the same values). */
export function normaliseParam(v: SqlValue | undefined, where: string): Exclude<SqlValue, boolean> {
  if (v === undefined) throw new SqlPortError(`parameter ${where} is undefined: pass null for NULL`);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Uint8Array && !Buffer.isBuffer(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return v;
}

export function isNamedParams(p: SqlParams | undefined): p is Readonly<Record<string, SqlValue>> {
  return p !== undefined && !Array.isArray(p);
}

/** A number read from the database, refused when it cannot be a JS number exactly. */
export function exactNumber(text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n)) throw new SqlPortError(`the value ${text} is not a finite number`);
  if (Number.isInteger(n) && !Number.isSafeInteger(n) && /^-?\d+$/.test(text)) throw new SqlPortError(`the integer ${text} is beyond 2^53 and cannot be read as a JS number exactly`);
  return n;
}
