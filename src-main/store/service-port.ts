// The SQL port (sql-port.ts) as the service's store on SQLite: what the core reads and writes through (issue 17,
// docs/team-server.md "The SQL port"). One connection, better-sqlite3's synchronous statements underneath.
//
// - A statement outside a transaction runs at once on the connection (a resolved promise). A statement that writes
//   is not allowed there: every write is a `transaction()`, so it is atomic and, in a service, durable when its
//   promise resolves.
// - `transaction(fn)` at the top goes through the store's group commit when the service has one
//   (group-commit.ts): `fn` runs in a savepoint of a transaction shared with the writes queued beside it, and its
//   promise resolves once the commit's WAL sync is done. Without a committer (a CLI process, a unit test) it is
//   its own BEGIN IMMEDIATE … COMMIT under synchronous=FULL. One top-level transaction runs at a time.
// - Inside `fn`, use only its `tx` (nested `tx.transaction()` is a savepoint). Using the port itself from inside
//   a transaction is refused with an error: on PostgreSQL that statement would run on another connection, outside
//   the transaction, and could wait for its locks for ever. The check follows the async context
//   (AsyncLocalStorage), so it finds calls made through any depth of functions.
// - `fn` awaits only the store's statements, never other I/O (a provider call, a password hash, a timer): the
//   group holds the connection until `fn` ends.
import type Database from 'better-sqlite3';
import type { Db } from './database';
import type { GroupCommitter } from './group-commit';
import { captureCallerContext, insideTransaction, inTransactionContext } from './tx-context';
import { belongsToStore } from './work-signals';
import { Lock } from './sqlite-port';
import {
  isNamedParams,
  normaliseParam,
  SqlPortError,
  type SqlParams,
  type SqlQueries,
  type SqlResult,
  type SqlRow,
  type SqlValue,
  type TransactionOptions,
} from './sql-port';

export { outsideTransaction } from './tx-context';

function bind(params: SqlParams | undefined): unknown[] {
  if (params === undefined) return [];
  if (isNamedParams(params)) {
    const out: Record<string, unknown> = {};
    for (const k in params) out[k] = normaliseParam(params[k] as SqlValue | undefined, `@${k}`);
    return [out];
  }
  const out = new Array<unknown>(params.length);
  for (let i = 0; i < params.length; i++) out[i] = normaliseParam(params[i], `${i + 1}`);
  return out;
}

const WRITE_WITH_RETURNING = /^\s*(insert|update|delete|replace)\b/i;

class Queries implements SqlQueries {
  readonly engine = 'sqlite' as const;
  /** Set while a nested savepoint runs: the outer transaction must wait for it. */
  private busy = false;
  private done = false;

  constructor(
    protected readonly db: Db,
    /** 0: the port itself; 1: a top-level transaction; more: savepoints. */
    private readonly depth: number,
  ) {
    belongsToStore(this, db);
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  protected check(_sql: string, _stmt: Database.Statement | null): void {
    if (this.done) throw new SqlPortError('this transaction has already ended: use the port, or a transaction still open');
    if (this.busy) throw new SqlPortError('a nested transaction of this transaction is running: wait for it before using the outer one');
  }

  private prepare(sql: string): Database.Statement {
    const stmt = this.db.prepare(sql);
    this.check(sql, stmt);
    return stmt;
  }

  query<T = SqlRow>(sql: string, params?: SqlParams): Promise<SqlResult<T>> {
    try {
      const stmt = this.prepare(sql);
      const args = bind(params);
      if (stmt.reader) {
        const rows = stmt.all(...args) as T[];
        return Promise.resolve({ rows, changes: WRITE_WITH_RETURNING.test(sql) ? rows.length : 0 });
      }
      return Promise.resolve({ rows: [], changes: stmt.run(...args).changes });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  all<T = SqlRow>(sql: string, params?: SqlParams): Promise<T[]> {
    try {
      return Promise.resolve(this.prepare(sql).all(...bind(params)) as T[]);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  get<T = SqlRow>(sql: string, params?: SqlParams): Promise<T | undefined> {
    try {
      return Promise.resolve(this.prepare(sql).get(...bind(params)) as T | undefined);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  run(sql: string, params?: SqlParams): Promise<{ changes: number }> {
    try {
      const stmt = this.prepare(sql);
      const args = bind(params);
      if (stmt.reader) return Promise.resolve({ changes: (stmt.all(...args) as unknown[]).length });
      return Promise.resolve({ changes: stmt.run(...args).changes });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  exec(sql: string): Promise<void> {
    try {
      this.check(sql, null);
      this.db.exec(sql);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  finish(): void {
    this.done = true;
  }

  /** A savepoint inside this transaction. */
  async transaction<T>(fn: (tx: SqlQueries) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    if (this.done) throw new SqlPortError('this transaction has already ended: use the port, or a transaction still open');
    if (this.busy) throw new SqlPortError('a nested transaction of this transaction is running: wait for it before using the outer one');
    const name = `vc_sp_${this.depth}`;
    this.busy = true;
    const tx = new Queries(this.db, this.depth + 1);
    try {
      this.db.prepare(`SAVEPOINT ${name}`).run();
      try {
        const result = await inTransactionContext(tx, () => fn(tx));
        this.db.prepare(`RELEASE ${name}`).run();
        return result;
      } catch (e) {
        // A statement error may already have rolled back the whole transaction (SQLITE_FULL…): nothing to undo.
        if (this.db.inTransaction) {
          this.db.prepare(`ROLLBACK TO ${name}`).run();
          this.db.prepare(`RELEASE ${name}`).run();
        }
        throw e;
      }
    } finally {
      tx.finish();
      this.busy = false;
    }
  }
}

class ServicePort extends Queries {
  /** Top-level transactions without a committer, one at a time. */
  private readonly lock = new Lock();

  constructor(
    db: Db,
    private readonly committer: (fn: () => Promise<void>) => Promise<void>,
  ) {
    super(db, 0);
  }

  /**
   * A read from outside a transaction while a group transaction is open on the connection (another flow's
   * continuation, run between two awaited statements of that transaction) would see its uncommitted writes, which
   * may still roll back: it waits until the transaction has ended. A transaction awaits only the store, so that is
   * within the same turn of the event loop.
   */
  private afterOpenTransaction<R>(read: () => Promise<R>): Promise<R> {
    return new Promise<void>((r) => setImmediate(r)).then(() => (this.db.inTransaction && !insideTransaction() ? this.afterOpenTransaction(read) : read()));
  }

  override query<T = SqlRow>(sql: string, params?: SqlParams): Promise<SqlResult<T>> {
    return this.db.inTransaction && !insideTransaction() ? this.afterOpenTransaction(() => super.query<T>(sql, params)) : super.query<T>(sql, params);
  }

  override all<T = SqlRow>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.db.inTransaction && !insideTransaction() ? this.afterOpenTransaction(() => super.all<T>(sql, params)) : super.all<T>(sql, params);
  }

  override get<T = SqlRow>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return this.db.inTransaction && !insideTransaction() ? this.afterOpenTransaction(() => super.get<T>(sql, params)) : super.get<T>(sql, params);
  }

  protected override check(sql: string, stmt: Database.Statement | null): void {
    if (insideTransaction()) {
      throw new SqlPortError(`the port was used inside a transaction: use the transaction's own handle (statement: ${sql.slice(0, 80)})`);
    }
    if (stmt && !stmt.readonly) throw new SqlPortError(`a write outside a transaction: run it in transaction() (statement: ${sql.slice(0, 80)})`);
    if (!stmt && !/^\s*(select|pragma)\b/i.test(sql)) throw new SqlPortError('exec() outside a transaction: run it in transaction()');
  }

  override async transaction<T>(fn: (tx: SqlQueries) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    if (insideTransaction()) {
      throw new SqlPortError("transaction() on the port inside a transaction: use the transaction's own handle (tx.transaction() nests)");
    }
    let out!: T;
    // The group commit runs `fn` later, from its own flush: in the async context of the code that asked for it, so
    // what that context carries (the door and actor of the audit trail) is this caller's, not the flush's.
    const inCaller = captureCallerContext();
    await this.committer(async () => {
      const tx = new Queries(this.db, 1);
      try {
        out = await inCaller(() => inTransactionContext(tx, () => fn(tx)));
      } finally {
        tx.finish();
      }
    });
    return out;
  }

  /** Without a committer: one BEGIN IMMEDIATE … COMMIT at a time. */
  async ownTransaction(fn: () => Promise<void>): Promise<void> {
    const release = await this.lock.acquire();
    try {
      if (this.db.inTransaction) throw new SqlPortError('the connection is already inside a transaction not opened by this port');
      this.db.prepare('BEGIN IMMEDIATE').run();
      try {
        await fn();
        this.db.prepare('COMMIT').run();
      } catch (e) {
        if (this.db.inTransaction) this.db.prepare('ROLLBACK').run();
        throw e;
      }
    } finally {
      release();
    }
  }
}

/**
 * The service's port over its store. With `commit` (the service's group commit, wrapped by whatever watches the
 * store's health), top-level transactions ride it; without, each is its own immediate transaction.
 */
export function createServicePort(db: Db, commit?: GroupCommitter['commit'] | ((fn: () => unknown) => Promise<void>)): SqlQueries {
  const holder: { port?: ServicePort } = {};
  const committer = commit ? (fn: () => Promise<void>) => commit(fn) : (fn: () => Promise<void>) => holder.port!.ownTransaction(fn);
  holder.port = new ServicePort(db, committer);
  return holder.port;
}
