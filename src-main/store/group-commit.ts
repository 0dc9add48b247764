// Group commit: the writes of concurrent requests are committed together in one transaction, and each caller is
// answered only after that commit. With synchronous=FULL every commit costs an fsync; sharing it keeps durability
// while the cost per request falls. Each write runs in its own savepoint, so one failing write rolls back alone.
import type { Db } from './database';

interface Pending {
  fn: () => void;
  resolve: () => void;
  reject: (e: unknown) => void;
}

// The committer of each store, so the background loops (job worker, webhook dispatcher) share its fsyncs without
// each composition root having to hand it to them. One service process owns one store and one committer.
const committers = new WeakMap<Db, GroupCommitter>();

export class GroupCommitter {
  private queue: Pending[] = [];
  private scheduled = false;
  /**
   * Runs one write in a savepoint. Built once: better-sqlite3's transaction() builds a new wrapper on every call,
   * which showed as 3.5 % of the async pipeline's CPU when done per write.
   */
  private readonly inSavepoint: (fn: () => void) => void;

  constructor(
    private readonly db: Db,
    private readonly maxBatch = 256,
  ) {
    committers.set(db, this);
    this.inSavepoint = db.transaction((fn: () => void) => fn());
  }

  /** Runs `fn` inside a transaction shared with other writes queued in the same tick; resolves after commit. */
  commit(fn: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ fn, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      const outcomes: (unknown | null)[] = [];
      try {
        this.db.transaction(() => {
          for (const p of batch) {
            try {
              // A nested better-sqlite3 transaction is a savepoint.
              this.inSavepoint(p.fn);
              outcomes.push(null);
            } catch (e) {
              // SQLITE_FULL, SQLITE_IOERR and the like may roll the whole transaction back, not just the savepoint:
              // every write of the batch is gone then, and a later one would run outside any transaction. Fail the
              // whole batch with that error (found by test/reliability/storage-faults.test.ts).
              if (!this.db.inTransaction) throw e;
              outcomes.push(e ?? new Error('write failed'));
            }
          }
        }).immediate();
      } catch (e) {
        for (const p of batch) p.reject(e);
        continue;
      }
      batch.forEach((p, i) => (outcomes[i] === null ? p.resolve() : p.reject(outcomes[i])));
    }
  }
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

// Work signals: a write that creates work for a background loop (an outbox event, a job) announces it, and the
// loop wakes instead of polling. better-sqlite3 is synchronous, so by the time the microtask runs the transaction
// that raised the signal has committed (or rolled back: then the wake-up finds nothing, which is harmless).
type Topic = 'outbox' | 'jobs';
const listeners = new WeakMap<Db, Map<Topic, Set<() => void>>>();
const raised = new WeakMap<Db, Set<Topic>>();

/** Announces that work of `topic` was written; listeners run once per microtask however often it is raised. */
export function signalWork(db: Db, topic: Topic): void {
  let pending = raised.get(db);
  if (!pending) {
    pending = new Set();
    raised.set(db, pending);
  }
  if (pending.has(topic)) return;
  pending.add(topic);
  queueMicrotask(() => {
    pending.delete(topic);
    for (const fn of listeners.get(db)?.get(topic) ?? []) fn();
  });
}

/** Calls `fn` after each signal of `topic` on this store; returns the unsubscribe function. */
export function onWork(db: Db, topic: Topic, fn: () => void): () => void {
  let byTopic = listeners.get(db);
  if (!byTopic) {
    byTopic = new Map();
    listeners.set(db, byTopic);
  }
  let set = byTopic.get(topic);
  if (!set) {
    set = new Set();
    byTopic.set(topic, set);
  }
  set.add(fn);
  const mine = set;
  return () => {
    mine.delete(fn);
  };
}
