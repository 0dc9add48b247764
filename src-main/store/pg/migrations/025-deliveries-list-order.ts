// PostgreSQL migration 25: a webhook's deliveries listed in the index's own order — the twin of SQLite's migration 25
// (docs/performance.md, "A webhook's deliveries, any page"). PostgreSQL's tie-break is the primary key `id`, which
// neither list index carried (every matching row read and sorted for a page filtered by status: 16.8 ms for 13,000 of
// 50,000); with it a page's keys come from the index alone, in order. SQLite's entries carry theirs as the rowid.
// Released: never edit; add a new migration instead.
import type { PgMigration } from '../migrate';

export const pg025DeliveriesListOrder: PgMigration = {
  version: 25,
  name: 'deliveries-list-order',
  sql: `
DROP INDEX webhook_deliveries_list;
CREATE INDEX webhook_deliveries_list ON webhook_deliveries(webhook_id, created_at_ms, id);
DROP INDEX webhook_deliveries_hook_status;
CREATE INDEX webhook_deliveries_hook_status ON webhook_deliveries(webhook_id, status, created_at_ms, id);
`,
};
