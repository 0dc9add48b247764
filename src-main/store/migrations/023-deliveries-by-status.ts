// Migration 23: each webhook's deliveries by status in creation order (docs/performance.md, "Console reads that do not
// read the store"). The dashboard's delivery counts and last failures, and the deliveries panel filtered by status
// (its page and its total), went through `webhook_deliveries_list (webhook_id, created_at_ms)` and read every delivery
// of the period or of the webhook row by row to look at its status: 450–490 ms for the dashboard's 30 days over
// 270,000 deliveries, 90 ms for the total of one webhook's failed deliveries out of 50,000. By this index each count
// is a range of the index alone. Released: never edit; add a new migration instead.
import type { Migration } from '../migrations';

export const m023DeliveriesByStatus: Migration = {
  version: 23,
  name: 'deliveries-by-status',
  sql: `
CREATE INDEX webhook_deliveries_hook_status ON webhook_deliveries(webhook_id, status, created_at_ms);
`,
};
