// The one asynchronous door through which the core writes to storage. The SQLite engine implements it with a group
// commit whose WAL sync runs off the event loop (group-commit.ts); a PostgreSQL engine (issue 17) implements the
// same contract with its own transactions. docs/performance.md, "The write port", states the contract in full.

/**
 * What the store's engine guarantees (the core reaches it through the SQL port's transactions, service-port.ts):
 * - `commit(fn)` runs `fn` as one atomic write (with the SQLite engine, inside a transaction shared with the writes
 *   queued beside it; each write is its own savepoint, so a throwing `fn` rolls back alone and only its promise
 *   rejects; an asynchronous `fn` is awaited before the next write starts). The promise resolves only once the write is durable: it survives a
 *   power cut, not just a crash of the process. Whatever depends on the write (an answer, a webhook, an event)
 *   is sent after the promise resolves, never before.
 * - `durable()` resolves once every write committed before the call is durable. It is the barrier for outputs
 *   built from reads: a read may see a write that is committed but not yet durable (another request's), so an
 *   answer, webhook or event carrying read data waits for it. It resolves at once when nothing is outstanding.
 * - `close()` waits for the syncs in flight, then releases the engine's threads; later commits reject.
 */
export interface WritePort {
  commit(fn: () => unknown): Promise<void>;
  durable(): Promise<void>;
  close(): Promise<void>;
}

/** Test instrumentation: sees each group commit and each completed sync, in order, and may delay the latter. */
export interface DurabilityObserver {
  /** A group transaction committed (not yet durable); `seq` numbers the commits from 1. */
  committed?(seq: number): void;
  /**
   * The WAL sync covering every commit up to `seq` has completed on disk; its waiters are released after the
   * returned promise settles (a test can hold them back to prove nothing leaves early).
   */
  synced?(seq: number): void | Promise<void>;
}
