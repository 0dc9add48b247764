// Which transaction a piece of code runs in, whatever the engine: the ports refuse to be used from inside one of
// their own transactions (the statement would run outside it — on PostgreSQL on another connection, where it could
// wait for the transaction's own locks for ever). Follows the async context, so calls at any depth are seen.
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<object>();

/** Runs `fn` as the body of transaction `tx`. */
export function inTransactionContext<T>(tx: object, fn: () => T): T {
  return current.run(tx, fn);
}

/** True when the calling code runs inside some transaction of a port. */
export function insideTransaction(): boolean {
  return current.getStore() !== undefined;
}

/**
 * Contexts a transaction body must see as its caller set them (the audit trail's door and actor, the console's
 * user): the group commit runs bodies later, from its own flush, so the port captures these when a transaction is
 * asked for and restores them around its body. Cheaper than AsyncLocalStorage.snapshot() (an AsyncResource and a
 * deprecated bind per call), which showed in the request path's profile.
 */
const carried: AsyncLocalStorage<unknown>[] = [];

export function carryIntoTransactions(storage: AsyncLocalStorage<never> | AsyncLocalStorage<unknown>): void {
  carried.push(storage as AsyncLocalStorage<unknown>);
}

/** The carried contexts of the calling code, as a function that runs `fn` inside them. */
export function captureCallerContext(): <T>(fn: () => T) => T {
  const values = carried.map((s) => s.getStore());
  return <T>(fn: () => T): T => {
    let run = fn;
    for (let i = carried.length - 1; i >= 0; i--) {
      const s = carried[i]!;
      const v = values[i];
      const inner = run;
      // A caller without one runs its body without one: the flush that runs it keeps the context of whichever caller
      // woke the committer, and a background write would otherwise be attributed to some request's actor.
      run = v === undefined ? () => s.exit(inner) : () => s.run(v, inner);
    }
    return run();
  };
}

/** Runs `fn` outside any transaction's async context (a wake-up signalled from inside one, for instance). */
export function outsideTransaction<T>(fn: () => T): T {
  return current.exit(fn);
}
