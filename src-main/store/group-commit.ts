// Group commit: the writes of concurrent requests are committed together in one transaction, and each caller is
// answered only once that commit is durable. With the off-loop sync (service processes), the group transaction
// commits under synchronous=NORMAL — SQLite writes the WAL frames but does not sync them — and a dedicated thread
// (wal-sync.ts) then fdatasyncs the WAL; the callers' promises resolve after that sync, so "acknowledged" still
// means "on disk" (synchronous=FULL's guarantee) while the event loop keeps serving. Syncs coalesce: one sync
// covers every commit made before it started. Without it (CLI, unit tests) each group transaction commits under
// the connection's synchronous=FULL. docs/performance.md, "Durability off the event loop", gives the argument.
import type { Db } from './database';
import { StoreError } from './database';
import { WalSyncer } from './wal-sync';
import type { DurabilityObserver, WritePort } from './write-port';

interface Pending {
  /** A write: synchronous (the store's own callers) or asynchronous (the SQL port's transactions, service-port.ts). */
  fn: () => unknown;
  resolve: () => void;
  reject: (e: unknown) => void;
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export interface GroupCommitOptions {
  /** Most writes in one transaction (default 256). */
  maxBatch?: number;
  /**
   * Sync the WAL on a worker thread instead of inside COMMIT (default false: synchronous=FULL on the loop). Only
   * for a file database in WAL mode; ignored for ':memory:'.
   */
  offLoopSync?: boolean;
  observe?: DurabilityObserver;
  /**
   * Tests only: stands in for the WAL syncer's fdatasync (with offLoopSync), to make a sync fail or hang. The
   * connection still commits under NORMAL and checkpoints as SQLite does by default.
   */
  syncForTests?: () => Promise<void>;
  /** Where a failing checkpoint is reported (the service's logger). */
  warn?: (message: string) => void;
}

// The committer of each store, so the background loops (job worker, webhook dispatcher) share its fsyncs without
// each composition root having to hand it to them. One service process owns one store and one committer.
const committers = new WeakMap<Db, GroupCommitter>();

export class GroupCommitter implements WritePort {
  private queue: Pending[] = [];
  private scheduled = false;
  /** Set while a flush runs a group whose writes are asynchronous (it spans awaits): no second flush may start. */
  private flushing = false;
  private readonly maxBatch: number;
  /**
   * Runs one write in a savepoint. Built once: better-sqlite3's transaction() builds a new wrapper on every call,
   * which showed as 3.5 % of the async pipeline's CPU when done per write.
   */
  private readonly tx: { begin: () => void; commit: () => void; rollback: () => void; savepoint: () => void; release: () => void; rollbackTo: () => void };
  private readonly syncer: (Pick<WalSyncer, 'sync' | 'close'> & Partial<Pick<WalSyncer, 'afterSync' | 'restartMissed'>>) | null;
  private readonly observe: DurabilityObserver;
  private readonly normal: () => void;
  private readonly full: () => void;
  /** Rows inserted, updated or deleted on this connection so far (SQLite's total_changes()). */
  private readonly totalChanges: () => number;
  /** Group transactions committed, and the highest of them known to be on disk. */
  private committedSeq = 0;
  private syncedSeq = 0;
  private syncing: Promise<void> | null = null;
  private waiters: Waiter[] = [];
  /** Set once a sync failed: what the disk holds is unknown, so no later write may be acknowledged. */
  private failure: StoreError | null = null;
  private closed = false;

  constructor(
    private readonly db: Db,
    o: GroupCommitOptions = {},
  ) {
    committers.set(db, this);
    this.maxBatch = o.maxBatch ?? 256;
    this.observe = o.observe ?? {};
    // The group transaction (BEGIN IMMEDIATE … COMMIT) around a savepoint per write, from statements compiled once
    // (better-sqlite3's transaction() builds new wrappers on every call, and cannot await an asynchronous write).
    const stmt = (sql: string) => {
      const st = db.prepare(sql);
      return () => void st.run();
    };
    this.tx = {
      begin: stmt('BEGIN IMMEDIATE'),
      commit: stmt('COMMIT'),
      rollback: stmt('ROLLBACK'),
      savepoint: stmt('SAVEPOINT vc_group_write'),
      release: stmt('RELEASE vc_group_write'),
      rollbackTo: stmt('ROLLBACK TO vc_group_write'),
    };
    const offLoop = o.offLoopSync === true && !db.memory;
    const stand = o.syncForTests;
    this.syncer = !offLoop ? null : stand ? { sync: stand, close: async () => undefined } : new WalSyncer(db, o.warn);
    const setNormal = db.prepare('PRAGMA synchronous = NORMAL');
    const setFull = db.prepare('PRAGMA synchronous = FULL');
    this.normal = () => void setNormal.run();
    this.full = () => void setFull.run();
    const changes = db.prepare('SELECT total_changes()').pluck();
    this.totalChanges = () => changes.get() as number;
  }

  /**
   * Runs `fn` inside a transaction shared with other writes queued in the same tick; resolves once durable. An
   * asynchronous `fn` (the SQL port's transactions) holds the connection across its awaits: it must await only
   * the store's own statements, never I/O (docs/team-server.md, "The SQL port").
   */
  commit(fn: () => unknown): Promise<void> {
    if (this.closed) return Promise.reject(new StoreError('The store is closing; the write was not made.'));
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ fn, resolve, reject });
      this.scheduleFlush();
    });
  }

  /**
   * Writes wait while a sync is in flight and go in one batch once it is done (a pipeline of depth one): then no
   * commit is ever made while a sync runs, so when a sync completes, everything committed is on disk and the
   * answers it releases pass the durable() barrier at once instead of waiting for one more sync. Batches grow
   * with the load, so throughput is not bounded by the sync's duration.
   */
  private scheduleFlush(): void {
    if (this.scheduled || this.syncing || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Resolves once every group transaction committed so far is on disk (at once when none is outstanding). */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.syncedSeq >= this.committedSeq) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ seq: this.committedSeq, resolve, reject }));
  }

  /** True when no committed write is waiting for its sync: an output may leave without awaiting durable(). */
  isDurable(): boolean {
    return this.failure === null && this.syncedSeq >= this.committedSeq;
  }

  /** The WAL has missed a restart: another connection kept it in use (WalSyncer.restartMissed). */
  walRestartMissed(): boolean {
    return this.syncer?.restartMissed === true;
  }

  /** Commits what is queued, waits until it is on disk, then ends the sync thread. Later commits reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.flushing) await new Promise((r) => setImmediate(r));
    if (this.queue.length > 0) await this.flush();
    this.closed = true;
    await this.durable().catch(() => undefined);
    await this.syncer?.close();
  }

  /**
   * Runs one batch in one transaction, each write in its own savepoint. Synchronous writes run without an await,
   * so a batch of them commits in one turn of the loop; an asynchronous write is awaited before the next begins.
   */
  private group(batch: Pending[], outcomes: (unknown | null)[]): void | Promise<void> {
    const t = this.tx;
    t.begin();
    const fail = (e: unknown) => {
      if (this.db.inTransaction) t.rollback();
      throw e;
    };
    const finish = (e: unknown) => {
      if (e === undefined) {
        t.release();
        outcomes.push(null);
        return;
      }
      // SQLITE_FULL, SQLITE_IOERR and the like may roll the whole transaction back, not just the savepoint:
      // every write of the batch is gone then, and a later one would run outside any transaction. Fail the
      // whole batch with that error (found by test/reliability/storage-faults.test.ts).
      if (!this.db.inTransaction) throw e;
      t.rollbackTo();
      t.release();
      outcomes.push(e ?? new Error('write failed'));
    };
    const from = (start: number): void | Promise<void> => {
      for (let i = start; i < batch.length; i++) {
        t.savepoint();
        let r: unknown;
        try {
          r = batch[i]!.fn();
        } catch (e) {
          finish(e);
          continue;
        }
        if (r && typeof (r as Promise<void>).then === 'function') {
          return (r as Promise<void>).then(
            () => {
              finish(undefined);
              return from(i + 1);
            },
            (e: unknown) => {
              finish(e);
              return from(i + 1);
            },
          );
        }
        finish(undefined);
      }
      t.commit();
    };
    try {
      const r = from(0);
      if (r) return r.catch(fail);
    } catch (e) {
      fail(e);
    }
  }

  private flush(): void | Promise<void> {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      const outcomes: (unknown | null)[] = [];
      if (this.syncer) this.normal();
      const changesBefore = this.syncer ? this.totalChanges() : 0;
      let pending: void | Promise<void>;
      try {
        pending = this.group(batch, outcomes);
      } catch (e) {
        if (this.syncer) this.full();
        for (const p of batch) p.reject(e);
        continue;
      }
      if (pending) {
        // An asynchronous write: finish this batch after it, then go on with the queue.
        this.flushing = true;
        return pending
          .then(
            () => {
              if (this.syncer) this.full();
              this.settle(batch, outcomes, changesBefore);
            },
            (e: unknown) => {
              if (this.syncer) this.full();
              for (const p of batch) p.reject(e);
            },
          )
          .finally(() => {
            this.flushing = false;
            if (this.queue.length > 0) {
              if (this.syncing) return;
              void this.flush();
            }
          });
      }
      // Every other transaction on this connection (console writes, migrations) keeps FULL and its inline sync.
      if (this.syncer) this.full();
      this.settle(batch, outcomes, changesBefore);
    }
  }

  /** After a batch committed: its callers wait for the sync that covers it (or learn of their own failure). */
  private settle(batch: Pending[], outcomes: (unknown | null)[], changesBefore: number): void {
    if (this.syncer && this.totalChanges() === changesBefore) {
      // A group transaction that changed no row wrote nothing to the WAL (the idle polls of the job worker and the
      // dispatcher, every 200 ms): no sync of its own. Its callers may have read what earlier commits wrote, so
      // they still pass only once everything committed so far is on disk — at once when it already is. (Every
      // write through this port changes rows; schema changes are the migrations', outside it.)
      const upTo = this.committedSeq;
      batch.forEach((p, i) => {
        if (outcomes[i] !== null) p.reject(outcomes[i]);
        else if (this.failure) p.reject(this.failure);
        else if (this.syncedSeq >= upTo) p.resolve();
        else this.waiters.push({ seq: upTo, resolve: p.resolve, reject: p.reject });
      });
      return;
    }
    const seq = ++this.committedSeq;
    this.observe.committed?.(seq);
    if (!this.syncer) {
      // Committed under FULL: already on disk.
      this.syncedSeq = seq;
      batch.forEach((p, i) => (outcomes[i] === null ? p.resolve() : p.reject(outcomes[i])));
      return;
    }
    // A write that failed alone rolled back: its caller learns at once. The others wait for the sync.
    batch.forEach((p, i) => {
      if (outcomes[i] !== null) p.reject(outcomes[i]);
      else if (this.failure) p.reject(this.failure);
      else this.waiters.push({ seq, resolve: p.resolve, reject: p.reject });
    });
    this.startSync();
  }

  /** Starts a sync unless one is running; when it ends, the next one covers whatever committed meanwhile. */
  private startSync(): void {
    const syncer = this.syncer;
    if (this.syncing || !syncer || this.failure) return;
    const target = this.committedSeq;
    this.syncing = syncer
      .sync()
      .then(() => this.observe.synced?.(target))
      .then(
        () => {
          this.syncedSeq = Math.max(this.syncedSeq, target);
          this.release(target, null);
          // The answers are released; new writes wait while the syncer needs them to (the short last pass of a
          // checkpoint cycle, wal-sync.ts).
          return syncer.afterSync?.();
        },
        (err: unknown) => {
          // fsync failure: the kernel may have dropped the dirty pages, so a later successful sync proves nothing
          // (PostgreSQL's "fsyncgate"). Stop acknowledging writes; a restart recovers from what is on disk.
          // SQLITE_IOERR_FSYNC: what SQLite itself reports for a failed sync, so storage-fault handling reads it as
          // an I/O fault of the data folder.
          this.failure = Object.assign(
            new StoreError(`The disk did not confirm a write (${err instanceof Error ? err.message : String(err)}); restart the service.`),
            { code: 'SQLITE_IOERR_FSYNC' },
          );
          this.release(Infinity, this.failure);
        },
      )
      .finally(() => {
        this.syncing = null;
        if (this.committedSeq > this.syncedSeq && !this.failure) this.startSync();
        // After a macrotask boundary, so the callers just released answer (and pass the barrier) first.
        else if (this.queue.length > 0) this.scheduleFlush();
      });
  }

  private release(upTo: number, err: StoreError | null): void {
    const keep: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.seq > upTo) keep.push(w);
      else if (err) w.reject(err);
      else w.resolve();
    }
    this.waiters = keep;
  }
}

/** The store's committer, if a service built one (the HTTP door uses it as the barrier for answers). */
export function committerOf(db: Db): GroupCommitter | undefined {
  return committers.get(db);
}

/**
 * Runs `fn` through the store's group commit and returns its result after the commit; a store without a
 * committer (a CLI process, a unit test) gets its own immediate transaction, committed before this resolves.
 */
export function commitThrough<T>(db: Db, fn: () => T): Promise<T> {
  const committer = committers.get(db);
  if (!committer) {
    try {
      return Promise.resolve(db.transaction(fn).immediate());
    } catch (e) {
      return Promise.reject(e);
    }
  }
  let out: T;
  return committer.commit(() => {
    out = fn();
  }).then(() => out);
}

// Work signals moved to work-signals.ts (engine-neutral); re-exported for the modules that import them from here.
export { onWork, signalWork } from './work-signals';
