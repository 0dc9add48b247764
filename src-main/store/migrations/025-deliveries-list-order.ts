// Migration 25: a webhook's deliveries listed in the index's own order (docs/performance.md, "A webhook's deliveries,
// any page"). The list is `ORDER BY created_at_ms DESC, rowid DESC`; every index entry ends with its rowid, but always
// ascending, so the old index's `created_at_ms DESC` left the tie-break to a sort, and OFFSET then read every row
// before the page: the last page of 50,000 deliveries held the event loop 3.9 s from a cold cache, 100–200 ms warm.
// Ascending, the index read backwards is the statement's order, tie-break included. Released: never edit.
import type { Migration } from '../migrations';

export const m025DeliveriesListOrder: Migration = {
  version: 25,
  name: 'deliveries-list-order',
  sql: `
DROP INDEX webhook_deliveries_list;
CREATE INDEX webhook_deliveries_list ON webhook_deliveries(webhook_id, created_at_ms);
`,
};
