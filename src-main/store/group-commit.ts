// Group commit: the writes of concurrent requests are committed together in one transaction, and each caller is
// answered only after that commit. With synchronous=FULL every commit costs an fsync; sharing it keeps durability
// while the cost per request falls. Each write runs in its own savepoint, so one failing write rolls back alone.
import type { Db } from './database';

interface Pending {
  fn: () => void;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class GroupCommitter {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly maxBatch = 256,
  ) {}

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
              this.db.transaction(p.fn)();
              outcomes.push(null);
            } catch (e) {
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
