// Migration 16: the two "what is left to do" indexes keep only the rows still to do (docs/performance.md, issue 16
// item 2). `outbox_pending` is read only for events not yet fanned out (`dispatched_at IS NULL`) and
// `webhook_deliveries_due` only for pending deliveries; as full indexes every dispatched event and every finished
// delivery stayed in them, and each fan-out and each final attempt moved an entry instead of deleting it.
// Released: never edit; add a new migration instead.
import type { Migration } from '../migrations';

export const m016PartialQueueIndexes: Migration = {
  version: 16,
  name: 'partial-queue-indexes',
  sql: `
DROP INDEX outbox_pending;
CREATE INDEX outbox_pending ON outbox_events(created_at) WHERE dispatched_at IS NULL;
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at_ms) WHERE status = 'pending';
`,
};
