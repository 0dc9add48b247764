// PostgreSQL migration 20: nothing to do — the twin of SQLite's migration 20 (versions stay paired), which takes the
// FTS5 History search index off SQLite's write path (an indexer brings it up to date in batches). PostgreSQL has no
// copy to keep: its search is the expression index of migration 10, maintained by PostgreSQL itself with each row.
// Released: never edit; add a new migration instead.
import type { PgMigration } from '../migrate';

export const pg020SearchDeferred: PgMigration = {
  version: 20,
  name: 'search-deferred',
  sql: `SELECT 1;`,
};
