// PostgreSQL migration 11: webhook operations — the counterpart of SQLite's migration 11. Released: never edit.
import type { PgMigration } from '../migrate';

export const pg011WebhookOps: PgMigration = {
  version: 11,
  name: 'webhook-ops',
  sql: `
ALTER TABLE webhook_deliveries ADD COLUMN origin text NOT NULL DEFAULT 'event' CHECK (origin IN ('event','recovery','trigger'));
ALTER TABLE webhook_deliveries ADD COLUMN original_event_id text;
ALTER TABLE webhook_deliveries ADD COLUMN recovery_id text;
ALTER TABLE webhook_deliveries ADD COLUMN dropped_reason text CHECK (dropped_reason IN ('webhook_failed','webhook_paused','webhook_deleted'));
ALTER TABLE webhook_deliveries ADD COLUMN dropped_at_ms bigint;
CREATE UNIQUE INDEX webhook_deliveries_recovered ON webhook_deliveries(recovery_id, original_event_id) WHERE recovery_id IS NOT NULL;
CREATE INDEX webhook_deliveries_original ON webhook_deliveries(webhook_id, original_event_id) WHERE original_event_id IS NOT NULL;

CREATE TABLE webhook_failures (
  id text PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhooks(id) DEFERRABLE INITIALLY IMMEDIATE,
  organization_id text NOT NULL,
  environment text NOT NULL,
  failed_at_ms bigint NOT NULL,
  delivery_id text NOT NULL,
  last_status_code bigint,
  last_error text,
  dropped_deliveries bigint NOT NULL,
  undelivered_since_ms bigint NOT NULL,
  resolved_at_ms bigint,
  resolution text CHECK (resolution IN ('reenabled','paused','deleted'))
);
CREATE INDEX webhook_failures_open ON webhook_failures(organization_id, environment, resolved_at_ms);
CREATE INDEX webhook_failures_hook ON webhook_failures(webhook_id, failed_at_ms DESC);

CREATE TABLE webhook_recoveries (
  id text PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhooks(id) DEFERRABLE INITIALLY IMMEDIATE,
  organization_id text NOT NULL,
  environment text NOT NULL,
  since_ms bigint NOT NULL,
  until_ms bigint NOT NULL,
  queued bigint NOT NULL,
  skipped bigint NOT NULL,
  reenabled bigint NOT NULL CHECK (reenabled IN (0,1)),
  requested_by text NOT NULL,
  created_at_ms bigint NOT NULL
);
CREATE INDEX webhook_recoveries_hook ON webhook_recoveries(webhook_id, created_at_ms DESC);
CREATE INDEX outbox_scope_time ON outbox_events(organization_id, environment, created_at);
`,
};
