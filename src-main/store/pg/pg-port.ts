// The SQL port (../sql-port.ts) on PostgreSQL, through node-postgres (`pg`): a connection pool; each top-level
// transaction takes one connection for its whole life (BEGIN … COMMIT, savepoints when nested), a statement outside
// a transaction takes any. Placeholders are rewritten by placeholders.ts; values are read back as the SQLite
// engine returns them (the type parsers below), so the core sees the same rows on both engines.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { AppError } from '../../../src-shared/app-error';
import { exactNumber, SqlPortError, SqlQueriesBase, type IsolationLevel, type SqlParams, type SqlPort, type SqlQueries, type SqlResult, type SqlRow, type TransactionOptions } from '../sql-port';
import { toPgStatement } from './placeholders';
import { redactUrl } from './url';
import { insideTransaction, inTransactionContext } from '../tx-context';
import { belongsToStore } from '../work-signals';

function refuseInsideTransaction(what: string): void {
  if (insideTransaction()) throw new SqlPortError(`the port was used inside a transaction (${what}): use the transaction's own handle`);
}

const OID = { BOOL: 16, INT8: 20, JSON: 114, NUMERIC: 1700, DATE: 1082, TIME: 1083, TIMESTAMP: 1114, TIMESTAMPTZ: 1184, TIMETZ: 1266, INTERVAL: 1186, JSONB: 3802 } as const;

const identity = (s: string) => s;

/**
 * Parsers for this port's connections only (the pg module's global table is left alone): bigint and numeric as JS
 * numbers (refusing any that would lose digits), booleans as 1/0, JSON and date/time values as the text the server
 * prints (the schema stores both as text; an expression that yields them is not turned into objects).
 */
export const PORT_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format === 'binary') return pg.types.getTypeParser(oid, 'binary');
    switch (oid) {
      case OID.INT8:
      case OID.NUMERIC:
        return exactNumber;
      case OID.BOOL:
        return (s: string) => (s === 't' ? 1 : 0);
      case OID.JSON:
      case OID.JSONB:
      case OID.DATE:
      case OID.TIME:
      case OID.TIMETZ:
      case OID.TIMESTAMP:
      case OID.TIMESTAMPTZ:
      case OID.INTERVAL:
        return identity;
      default:
        return pg.types.getTypeParser(oid, 'text');
    }
  }) as pg.CustomTypesConfig['getTypeParser'],
};

type Queryable = Pick<pg.PoolClient, 'query'>;

/**
 * PostgreSQL's text cannot hold U+0000 (SQLite's can): a request string carrying it is refused as invalid input
 * (422) instead of failing as a server error (docs/team-server.md, the dialect table). 22021: a NUL in a text value;
 * 22P05: a \u0000 escape read by a JSON function (the History search index).
 */
const NUL_REFUSED = new Set(['22021', '22P05']);

/**
 * Nor can its JSON functions read an unpaired UTF-16 surrogate escape (`"\ud800"`: valid JSON text, not Unicode),
 * which JSON.parse gives us as a lone surrogate and JSON.stringify writes back as that escape: refused like a NUL.
 * 22P02 is also every other malformed input, so only the surrogate's is mapped.
 */
function loneSurrogate(e: unknown): boolean {
  return pgErrorCode(e) === '22P02' && /surrogate/i.test(String((e as { detail?: unknown }).detail ?? ''));
}

async function execute<T>(c: Queryable, sql: string, params: SqlParams | undefined): Promise<SqlResult<T>> {
  const st = toPgStatement(sql, params);
  const r = await c.query({ text: st.text, values: st.values, types: PORT_TYPES }).catch((e: unknown) => {
    if (NUL_REFUSED.has(pgErrorCode(e) ?? '')) {
      throw new AppError('VALIDATION_ERROR', { message: 'Text with the NUL character (U+0000) cannot be stored by this server (PostgreSQL); remove it from the request.' });
    }
    if (loneSurrogate(e)) {
      throw new AppError('VALIDATION_ERROR', { message: 'Text with an unpaired UTF-16 surrogate (a \\uD800-\\uDFFF escape without its pair) cannot be stored by this server (PostgreSQL); send the character itself or remove it.' });
    }
    throw e;
  });
  const writes = r.command === 'INSERT' || r.command === 'UPDATE' || r.command === 'DELETE' || r.command === 'MERGE';
  return { rows: r.rows as T[], changes: writes ? (r.rowCount ?? 0) : 0 };
}

const ISOLATION: Record<IsolationLevel, string> = { 'read committed': 'READ COMMITTED', 'repeatable read': 'REPEATABLE READ', serializable: 'SERIALIZABLE' };

abstract class PgQueries extends SqlQueriesBase {
  readonly engine = 'postgres' as const;
}

/** A transaction (or a savepoint inside one) on one connection. */
class PgTransaction extends PgQueries {
  readonly inTransaction = true;
  private busy = false;
  private done = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly depth: number,
    private readonly store: object,
  ) {
    super();
    belongsToStore(this, store);
  }

  private guard(): void {
    if (this.done) throw new SqlPortError('this transaction has already ended: use the port, or a transaction still open');
    if (this.busy) throw new SqlPortError('a nested transaction of this transaction is running: wait for it before using the outer one');
  }

  finish(): void {
    this.done = true;
  }

  async query<T = SqlRow>(sql: string, params?: SqlParams): Promise<SqlResult<T>> {
    this.guard();
    return execute<T>(this.client, sql, params);
  }

  async exec(sql: string): Promise<void> {
    this.guard();
    await this.client.query(sql);
  }

  async transaction<T>(fn: (tx: SqlQueries) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    this.guard();
    const name = `vc_sp_${this.depth}`;
    this.busy = true;
    const tx = new PgTransaction(this.client, this.depth + 1, this.store);
    try {
      await this.client.query(`SAVEPOINT ${name}`);
      try {
        const result = await inTransactionContext(tx, () => fn(tx));
        await this.client.query(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (e) {
        await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
        await this.client.query(`RELEASE SAVEPOINT ${name}`);
        throw e;
      }
    } finally {
      tx.finish();
      this.busy = false;
    }
  }
}

/**
 * The first key of a transaction queue's advisory lock (TransactionOptions.queue), ("vq", hash of the queue's name):
 * a class of its own, never one of the app's ("vc", n) locks nor a sign-in's ("vl", …).
 */
export const QUEUE_LOCK_CLASS = 0x7671;

/** The second key of a queue's lock: 32 bits of the SHA-256 of its name (two names may share a lock: they then queue together). */
export function queueLockKey(queue: string): number {
  return createHash('sha256').update(queue).digest().readInt32BE(0);
}

/** A transaction's wait for its queue's lock outlasted `queueWaitMs`: it never began, nothing was written. */
export class QueueWaitTimeout extends Error {
  override name = 'QueueWaitTimeout';
  constructor(
    readonly queue: string,
    readonly waitedMs: number,
    options?: { cause: unknown },
  ) {
    super(`waited ${waitedMs} ms for the transaction queue ${queue}`, options);
  }
}

export interface PgTransactionOptions extends TransactionOptions {
  /** How long to wait for the queue's lock (`queue`), in ms; default: as long as it takes. */
  queueWaitMs?: number;
}

export interface PgPortOptions {
  /** Connections in the pool (default 10). */
  max?: number;
  /** Shown in pg_stat_activity (default "vconsole"). */
  applicationName?: string;
  /** Where errors of idle connections go (a restarted server, a dropped network); default: ignored, the next query reports. */
  onIdleError?: (e: Error) => void;
}

export class PgPort extends PgQueries implements SqlPort {
  readonly inTransaction = false;
  readonly pool: pg.Pool;
  /** The URL without its password, for messages. */
  readonly where: string;
  private closed = false;

  constructor(url: string, o: PgPortOptions = {}) {
    super();
    this.where = redactUrl(url);
    this.pool = new pg.Pool({ connectionString: url, max: o.max ?? 10, application_name: o.applicationName ?? 'vconsole' });
    this.pool.on('error', (e) => o.onIdleError?.(e));
    belongsToStore(this, this);
  }

  private check(what = 'a statement'): void {
    if (this.closed) throw new SqlPortError('the SQL port is closed');
    refuseInsideTransaction(what);
  }

  async query<T = SqlRow>(sql: string, params?: SqlParams): Promise<SqlResult<T>> {
    this.check();
    return execute<T>(this.pool, sql, params);
  }

  async exec(sql: string): Promise<void> {
    this.check();
    await this.pool.query(sql);
  }

  /** Runs `fn` with one connection of the pool to itself (session state: advisory locks, LISTEN, SET). */
  /**
   * One pooled connection for `fn`. `fn` calls `markBroken` when it leaves session state it could not undo (an
   * advisory lock it failed to release, say): the connection is then closed instead of going back to the pool.
   */
  withClient<T>(fn: (client: pg.PoolClient, markBroken: (e: Error) => void) => Promise<T>): Promise<T> {
    return this.borrow(fn);
  }

  /**
   * A connection that failed (the server went away) or whose transaction could not be rolled back is closed rather
   * than given back to the pool.
   */
  private async borrow<T>(fn: (client: pg.PoolClient, markBroken: (e: Error) => void) => Promise<T>): Promise<T> {
    this.check();
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const onError = (e: Error) => (broken = e);
    client.on('error', onError);
    try {
      return await fn(client, onError);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  async transaction<T>(fn: (tx: SqlQueries) => Promise<T>, options: PgTransactionOptions = {}): Promise<T> {
    this.check('transaction()');
    return this.borrow(async (client, markBroken) => {
      // The queue's lock before BEGIN: a lock taken inside a REPEATABLE READ or SERIALIZABLE transaction is taken
      // after its snapshot (its first statement takes one), and the row written by the transaction it waited for
      // would still fail it at its own write. Held by the connection (session level) across COMMIT, released after.
      const lock = options.queue === undefined ? null : await this.takeQueue(client, options.queue, options.queueWaitMs);
      try {
        await client.query(options.isolation ? `BEGIN ISOLATION LEVEL ${ISOLATION[options.isolation]}` : 'BEGIN');
        const tx = new PgTransaction(client, 1, this);
        try {
          const result = await inTransactionContext(tx, () => fn(tx));
          await client.query('COMMIT');
          return result;
        } catch (e) {
          await client.query('ROLLBACK').catch((re: Error) => markBroken(re));
          throw e;
        } finally {
          tx.finish();
        }
      } finally {
        // A lock that could not be released goes with its connection, which is closed instead of pooled.
        if (lock !== null) await client.query(`SELECT pg_advisory_unlock(${QUEUE_LOCK_CLASS}, ${lock})`).catch((e: Error) => markBroken(e));
      }
    });
  }

  /**
   * Waits for the queue's lock on `client` (at most `waitMs` when given: QueueWaitTimeout) and returns its key. One
   * round trip: the wait's lock_timeout is set LOCAL to the statements' implicit transaction, so it ends with them
   * (the session lock does not).
   */
  private async takeQueue(client: pg.PoolClient, queue: string, waitMs: number | undefined): Promise<number> {
    const key = queueLockKey(queue);
    const timeout = waitMs === undefined ? 0 : Math.max(1, Math.ceil(waitMs));
    const started = Date.now();
    try {
      await client.query(`SET LOCAL lock_timeout = ${timeout}; SELECT pg_advisory_lock(${QUEUE_LOCK_CLASS}, ${key})`);
    } catch (e) {
      // 55P03: lock_not_available (the lock_timeout).
      if (pgErrorCode(e) === '55P03') throw new QueueWaitTimeout(queue, Date.now() - started, { cause: e });
      throw e;
    }
    return key;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

export function createPgPort(url: string, o: PgPortOptions = {}): PgPort {
  return new PgPort(url, o);
}

/** PostgreSQL's error code of a failure (SQLSTATE, e.g. 23505 for a unique violation), or null. */
export function pgErrorCode(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/**
 * Unique violations that mean "another transaction got there first", never a duplicate the caller asked for: an audit
 * entry is written at its chain's head + 1 (core/audit/audit-log.ts), and two transactions that read the same head
 * collide on the chain's key. PostgreSQL reports that as a serialization failure when it counts the head's read as
 * reading the key, and as this unique violation when it does not (a READ COMMITTED transaction, or a SERIALIZABLE one
 * whose read the index's page layout leaves out: seen once in a test of concurrent failed sign-ins). Run again, the
 * transaction reads the new head.
 */
const RACE_CONSTRAINTS = new Set(['audit_events_pkey']);

/**
 * A failure that the same transaction, run again, may not meet: a serialization failure, a deadlock, or a unique
 * violation of a key written as "the last one + 1" (RACE_CONSTRAINTS).
 */
export function isRetryableTransactionError(e: unknown): boolean {
  const code = pgErrorCode(e);
  if (code === '23505') return RACE_CONSTRAINTS.has(String((e as { constraint?: unknown }).constraint));
  return code === '40001' || code === '40P01';
}
