// Migration 19: nothing to do on SQLite. Its PostgreSQL twin drops the write counter of `verifications` (migration 7):
// on a shared store every insert of every instance updated that one row, so concurrent checks conflicted under
// SERIALIZABLE and ran again until their retries ran out; PostgreSQL counts the rows of a list page each time instead
// (store/list-query.ts). SQLite keeps the counter (one writer; the count cache saves a scan per page).
// Released: never edit; add a new migration instead.
import type { Migration } from '../migrations';

export const m019PgCounterOff: Migration = {
  version: 19,
  name: 'pg-counter-off',
  sql: `SELECT 1;`,
};
