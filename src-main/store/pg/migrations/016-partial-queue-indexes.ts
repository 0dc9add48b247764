// PostgreSQL migration 16: the "what is left to do" indexes hold only the rows still to do — the counterpart of
// SQLite's migration 16 (docs/performance.md, fix 22). Released: never edit.
import type { PgMigration } from '../migrate';

export const pg016PartialQueueIndexes: PgMigration = {
  version: 16,
  name: 'partial-queue-indexes',
  sql: `
DROP INDEX outbox_pending;
CREATE INDEX outbox_pending ON outbox_events(created_at) WHERE dispatched_at IS NULL;
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at_ms) WHERE status = 'pending';
`,
};
