// PostgreSQL migration 22: the pending deliveries of each webhook in due order — the twin of SQLite's migration 22
// (docs/performance.md, "Claims that do not read a backlog"). Released: never edit; add a new migration instead.
import type { PgMigration } from '../migrate';

export const pg022DeliveriesByWebhook: PgMigration = {
  version: 22,
  name: 'deliveries-by-webhook',
  sql: `
CREATE INDEX webhook_deliveries_pending_hook ON webhook_deliveries(webhook_id, next_attempt_at_ms) WHERE status = 'pending';
`,
};
