// Migration 22: the pending deliveries of each webhook in due order (docs/performance.md, "Claims that do not read a
// backlog"). The dispatcher's claims and its next due time pass over webhooks at their per-endpoint limit, and the
// due index (next_attempt_at_ms) holds every webhook's deliveries mixed: passing over one webhook with a backlog of
// 50,000 due deliveries read all of them, 50–200 ms per claim on the event loop. By this index a claim finds, for
// each webhook with pending deliveries, its oldest one in a seek. Released: never edit; add a new migration instead.
import type { Migration } from '../migrations';

export const m022DeliveriesByWebhook: Migration = {
  version: 22,
  name: 'deliveries-by-webhook',
  sql: `
CREATE INDEX webhook_deliveries_pending_hook ON webhook_deliveries(webhook_id, next_attempt_at_ms) WHERE status = 'pending';
`,
};
