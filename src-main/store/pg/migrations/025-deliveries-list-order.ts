// PostgreSQL migration 25: a webhook's deliveries listed in the index's own order — the twin of SQLite's migration 25
// (docs/performance.md, "A webhook's deliveries, any page"). PostgreSQL's tie-break is the primary key `id`, which
// the old index did not carry (its ties sorted on every page); with it the page's keys can come from the index alone.
// Released: never edit; add a new migration instead.
import type { PgMigration } from '../migrate';

export const pg025DeliveriesListOrder: PgMigration = {
  version: 25,
  name: 'deliveries-list-order',
  sql: `
DROP INDEX webhook_deliveries_list;
CREATE INDEX webhook_deliveries_list ON webhook_deliveries(webhook_id, created_at_ms, id);
`,
};
