// Migration 11: webhook operations (docs/webhooks.md "When an endpoint fails", "Recovery", "Sample events"):
// why a delivery stopped, the durable record of each webhook failure (the alert, the audit seam), and recoveries
// that redeliver a period's events as new deliveries linked to their original event.
// Released: never edit; add a new migration instead.
import type { Migration } from '../migrations';

export const m011WebhookOps: Migration = {
  version: 11,
  name: 'webhook-ops',
  sql: `
ALTER TABLE webhook_deliveries ADD COLUMN origin TEXT NOT NULL DEFAULT 'event' CHECK (origin IN ('event','recovery','trigger'));
ALTER TABLE webhook_deliveries ADD COLUMN original_event_id TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN recovery_id TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN dropped_reason TEXT CHECK (dropped_reason IN ('webhook_failed','webhook_paused','webhook_deleted'));
ALTER TABLE webhook_deliveries ADD COLUMN dropped_at_ms INTEGER;
CREATE UNIQUE INDEX webhook_deliveries_recovered ON webhook_deliveries(recovery_id, original_event_id) WHERE recovery_id IS NOT NULL;
CREATE INDEX webhook_deliveries_original ON webhook_deliveries(webhook_id, original_event_id) WHERE original_event_id IS NOT NULL;

CREATE TABLE webhook_failures (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id),
  organization_id TEXT NOT NULL,
  environment TEXT NOT NULL,
  failed_at_ms INTEGER NOT NULL,
  delivery_id TEXT NOT NULL,
  last_status_code INTEGER,
  last_error TEXT,
  dropped_deliveries INTEGER NOT NULL,
  undelivered_since_ms INTEGER NOT NULL,
  resolved_at_ms INTEGER,
  resolution TEXT CHECK (resolution IN ('reenabled','paused','deleted'))
) STRICT;
CREATE INDEX webhook_failures_open ON webhook_failures(organization_id, environment, resolved_at_ms);
CREATE INDEX webhook_failures_hook ON webhook_failures(webhook_id, failed_at_ms DESC);

CREATE TABLE webhook_recoveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id),
  organization_id TEXT NOT NULL,
  environment TEXT NOT NULL,
  since_ms INTEGER NOT NULL,
  until_ms INTEGER NOT NULL,
  queued INTEGER NOT NULL,
  skipped INTEGER NOT NULL,
  reenabled INTEGER NOT NULL CHECK (reenabled IN (0,1)),
  requested_by TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_recoveries_hook ON webhook_recoveries(webhook_id, created_at_ms DESC);
CREATE INDEX outbox_scope_time ON outbox_events(organization_id, environment, created_at);
`,
};
