// PostgreSQL migration 21: nothing to do — the twin of SQLite's migration 21 (versions stay paired), which corrects
// the delete trigger of the FTS5 search index's watermark. PostgreSQL's search is the expression index of migration
// 10, maintained by PostgreSQL itself with each row. Released: never edit; add a new migration instead.
import type { PgMigration } from '../migrate';

export const pg021SearchDeleteWatermark: PgMigration = {
  version: 21,
  name: 'search-delete-watermark',
  sql: `SELECT 1;`,
};
