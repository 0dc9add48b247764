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

/** Runs `fn` outside any transaction's async context (a wake-up signalled from inside one, for instance). */
export function outsideTransaction<T>(fn: () => T): T {
  return current.exit(fn);
}
