// Work signals: a write that creates work for a background loop (an outbox event, a job) announces it, and the
// loop wakes instead of polling (the polls stay as the safety net).
//
// - SQLite (one process owns the store): listeners of the same store run in a microtask, outside the transaction
//   that raised the signal (they start transactions of their own). The group commit runs transactions one after
//   another on one connection, so a listener's transaction is queued behind the one that raised the signal and sees
//   its writes; if that one rolled back, the wake-up finds nothing, which is harmless.
// - PostgreSQL (several instances share the store): the signal becomes a NOTIFY sent by the raising transaction
//   (delivered only if it commits, and to every instance, this one included), and each instance's LISTEN connection
//   calls its listeners (store/pg/pg-service.ts registers the engine's hook).
import type { Db } from './database';
import type { SqlQueries } from './sql-port';
import { outsideTransaction } from './tx-context';

export type WorkTopic = 'outbox' | 'jobs';

/** handle (a port, one of its transactions, a better-sqlite3 connection) → the store it belongs to. */
const storeKeys = new WeakMap<object, object>();
/** store → the engine's way of announcing work beyond this process (PostgreSQL's NOTIFY). */
const remote = new WeakMap<object, (handle: object, topic: WorkTopic) => void>();
const listeners = new WeakMap<object, Map<WorkTopic, Set<() => void>>>();
const raised = new WeakMap<object, Set<WorkTopic>>();

/** Records which store a handle of a port belongs to (the ports call it for every handle they make). */
export function belongsToStore(handle: object, store: object): void {
  storeKeys.set(handle, store);
}

/** An engine whose signals travel beyond this process: `announce` is called instead of the local dispatch. */
export function announceWorkThrough(store: object, announce: (handle: object, topic: WorkTopic) => void): void {
  remote.set(store, announce);
}

function storeOf(handle: Db | SqlQueries | object): object {
  const key = storeKeys.get(handle);
  if (key) return key;
  if ('prepare' in handle) return handle;
  throw new Error('work signals need a handle of a store opened by this process');
}

/**
 * Announces that work of `topic` was written. Pass the transaction's handle when inside one. Listeners run once per
 * microtask however often it is raised (SQLite), or once per notification (PostgreSQL).
 */
export function signalWork(handle: Db | SqlQueries, topic: WorkTopic): void {
  const store = storeOf(handle);
  const announce = remote.get(store);
  if (announce) {
    announce(handle, topic);
    return;
  }
  deliverWork(store, topic);
}

/** Calls the listeners of `topic` on `store` (from a microtask, outside any transaction). */
export function deliverWork(store: object, topic: WorkTopic): void {
  let pending = raised.get(store);
  if (!pending) {
    pending = new Set();
    raised.set(store, pending);
  }
  if (pending.has(topic)) return;
  pending.add(topic);
  const due = pending;
  queueMicrotask(() =>
    outsideTransaction(() => {
      due.delete(topic);
      for (const fn of listeners.get(store)?.get(topic) ?? []) fn();
    }),
  );
}

/** Calls `fn` after each signal of `topic` on this store; returns the unsubscribe function. */
export function onWork(handle: Db | SqlQueries, topic: WorkTopic, fn: () => void): () => void {
  const store = storeOf(handle);
  let byTopic = listeners.get(store);
  if (!byTopic) {
    byTopic = new Map();
    listeners.set(store, byTopic);
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
