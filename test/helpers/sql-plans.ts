// The statements a piece of the core runs, and how SQLite plans them: for tests that hold a read to its index (a
// statement that reads a growing table row by row passes every functional test and only shows on a large store).
import type { SqlPort, SqlQueries, SqlValue } from '../../src-main/store/sql-port';

export interface Recorded {
  sql: string;
  params: SqlValue[];
}

/** `port` that records every statement run through it or through its transactions (in `seen`). */
export function recordingPort<P extends SqlQueries>(port: P): { port: P; seen: Recorded[] } {
  const seen: Recorded[] = [];
  const recording = <Q extends SqlQueries>(q: Q): Q =>
    new Proxy(q, {
      get(target, prop, receiver) {
        if (prop === 'all' || prop === 'get' || prop === 'run') {
          return (sql: string, params: SqlValue[] = []) => {
            seen.push({ sql, params });
            return (target[prop] as (s: string, p: SqlValue[]) => unknown).call(target, sql, params);
          };
        }
        if (prop === 'transaction') {
          return (fn: (tx: SqlQueries) => Promise<unknown>, o?: unknown) => (target.transaction as (f: typeof fn, o?: unknown) => Promise<unknown>).call(target, (tx: SqlQueries) => fn(recording(tx)), o);
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
  return { port: recording(port), seen };
}

/** SQLite's plan of a statement (EXPLAIN QUERY PLAN), one line per step. */
export async function sqlitePlan(port: SqlQueries | SqlPort, sql: string, params: SqlValue[]): Promise<string[]> {
  return (await port.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((r) => r.detail);
}
