// PostgreSQL migration 23: each webhook's deliveries by status in creation order — the twin of SQLite's migration 23
// (docs/performance.md, "Console reads that do not read the store"). Released: never edit; add a new migration instead.
import type { PgMigration } from '../migrate';

export const pg023DeliveriesByStatus: PgMigration = {
  version: 23,
  name: 'deliveries-by-status',
  sql: `
CREATE INDEX webhook_deliveries_hook_status ON webhook_deliveries(webhook_id, status, created_at_ms);
`,
};
