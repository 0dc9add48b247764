// The SQL port (sql-port.ts) on SQLite: better-sqlite3's synchronous calls behind the asynchronous interface.
//
// One connection, one transaction at a time. better-sqlite3 runs statements synchronously, but a transaction of
// the port spans awaits, so the port owns the connection: a transaction holds a FIFO lock until it ends, and
// statements from outside it wait for that (otherwise they would run inside it on the shared connection and see,
// or join, its uncommitted writes). Top-level transactions start with BEGIN IMMEDIATE (the write lock up front: no
// SQLITE_BUSY when a reader upgrades), nested ones are savepoints.
//
// Durability is the connection's: openDatabase() sets synchronous=FULL, so a commit is on disk when it returns. The
// service's group commit (group-commit.ts) is the other way to write the same file; when the core is converted to
// this port, its SQLite engine routes commits through that committer (docs/team-server.md, "The SQL port").
import type Database from 'better-sqlite3';
import type { Db } from './database';
import {
  isNamedParams,
  normaliseParam,
  SqlPortError,
  SqlQueriesBase,
  type SqlParams,
  type SqlPort,
  type SqlQueries,
  type SqlResult,
  type SqlRow,
  type SqlValue,
  type TransactionOptions,
} from './sql-port';

type Bind = unknown[] | [Record<string, unknown>];

/** Parameters as better-sqlite3 binds them (booleans as 0/1): named ones as one object, positional ones as a list. */
export function binds(params: SqlParams | undefined): Bind {
  if (params === undefined) return [];
  if (isNamedParams(params)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(params)) out[k] = normaliseParam(v as SqlValue | undefined, `@${k}`);
    return [out];
  }
  return params.map((v, i) => normaliseParam(v, `${i + 1}`));
}

function exactRow(row: Record<string, unknown>): void {
  for (const k in row) {
    const v = row[k];
    if (typeof v === 'bigint') {
      if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw new SqlPortError(`the integer ${v} in column ${k} is beyond 2^53 and cannot be read as a JS number exactly`);
      row[k] = Number(v);
    }
  }
}

/**
 * Integers are read as BigInt and turned into numbers only when exact (better-sqlite3 would round them silently);
 * the statement's own mode is put back, since prepared statements are shared with the rest of the process.
 */
function execute<T>(db: Db, sql: string, params: SqlParams | undefined): SqlResult<T> {
  const stmt: Database.Statement = db.prepare(sql);
  const args = binds(params);
  if (stmt.reader) {
    let rows: Record<string, unknown>[];
    stmt.safeIntegers(true);
    try {
      rows = stmt.all(...args) as Record<string, unknown>[];
    } finally {
      stmt.safeIntegers(false);
    }
    for (const r of rows) exactRow(r);
    // A write with RETURNING is a reader too: one row per row it changed.
    return { rows: rows as T[], changes: /^\s*(insert|update|delete|replace)\b/i.test(sql) ? rows.length : 0 };
  }
  const r = stmt.run(...args);
  return { rows: [], changes: r.changes };
}

/** A FIFO lock: one holder at a time, in the order they asked (the port's transactions; service-port.ts too). */
export class Lock {
  private tail: Promise<void> = Promise.resolve();
  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const ready = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return ready;
  }
}

class SqliteQueries extends SqlQueriesBase {
  readonly engine = 'sqlite' as const;
  /** Set while a nested savepoint of this transaction runs: the outer transaction must wait for it. */
  private busy = false;
  private done = false;

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  constructor(
    protected readonly db: Db,
    private readonly depth: number,
    private readonly run_: <T>(f: () => T) => Promise<T>,
  ) {
    super();
  }

  protected guard(): void {
    if (this.done) throw new SqlPortError('this transaction has already ended: use the port, or a transaction still open');
    if (this.busy) throw new SqlPortError('a nested transaction of this transaction is running: wait for it before using the outer one');
  }

  finish(): void {
    this.done = true;
  }

  query<T = SqlRow>(sql: string, params?: SqlParams): Promise<SqlResult<T>> {
    return this.run_(() => {
      this.guard();
      return execute<T>(this.db, sql, params);
    });
  }

  exec(sql: string): Promise<void> {
    return this.run_(() => {
      this.guard();
      this.db.exec(sql);
    });
  }

  async transaction<T>(fn: (tx: SqlQueries) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    this.guard();
    const name = `vc_sp_${this.depth}`;
    this.busy = true;
    const tx = new SqliteQueries(this.db, this.depth + 1, this.run_);
    try {
      this.db.exec(`SAVEPOINT ${name}`);
      try {
        const result = await fn(tx);
        this.db.exec(`RELEASE ${name}`);
        return result;
      } catch (e) {
        // A statement error may already have rolled back the whole transaction (SQLITE_FULL…): then nothing to undo.
        if (this.db.inTransaction) {
          this.db.exec(`ROLLBACK TO ${name}`);
          this.db.exec(`RELEASE ${name}`);
        }
        throw e;
      }
    } finally {
      tx.finish();
      this.busy = false;
    }
  }
}

class SqlitePort extends SqliteQueries implements SqlPort {
  private readonly lock = new Lock();
  private closed = false;

  constructor(
    db: Db,
    private readonly closeDb: boolean,
  ) {
    super(db, 0, async <T>(f: () => T): Promise<T> => {
      const release = await this.lock.acquire();
      try {
        if (this.closed) throw new SqlPortError('the SQL port is closed');
        return f();
      } finally {
        release();
      }
    });
  }

  override async transaction<T>(fn: (tx: SqlQueries) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    const release = await this.lock.acquire();
    const tx = new SqliteQueries(this.db, 1, async <R>(f: () => R): Promise<R> => f());
    try {
      if (this.closed) throw new SqlPortError('the SQL port is closed');
      if (this.db.inTransaction) throw new SqlPortError('the connection is already inside a transaction not opened by this port');
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(tx);
        this.db.exec('COMMIT');
        return result;
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw e;
      }
    } finally {
      tx.finish();
      release();
    }
  }

  async close(): Promise<void> {
    const release = await this.lock.acquire();
    try {
      if (this.closed) return;
      this.closed = true;
      if (this.closeDb) this.db.close();
    } finally {
      release();
    }
  }
}

/**
 * The SQL port over an open better-sqlite3 connection. The port must be the connection's only user while it is
 * open (see above). `close()` closes the connection only with `{ closeConnection: true }`.
 */
export function createSqlitePort(db: Db, o: { closeConnection?: boolean } = {}): SqlPort {
  return new SqlitePort(db, o.closeConnection === true);
}
