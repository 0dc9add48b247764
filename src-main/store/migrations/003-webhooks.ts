// Migration 3: webhook endpoints, their deliveries and every attempt of a delivery (interface §2.7/§2.8).
// Released: never edit; add a new migration file instead.
import type { Migration } from '../migrations';

export const m003Webhooks: Migration = {
  version: 3,
  name: 'webhooks',
  sql: `
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  environment TEXT NOT NULL CHECK (environment IN ('sandbox','live')),
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active','inactive','failed')),
  description TEXT,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at_ms INTEGER,
  active_since_ms INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
) STRICT;
CREATE INDEX webhooks_org ON webhooks(organization_id, environment, created_at DESC);

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id),
  organization_id TEXT NOT NULL,
  environment TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  verification_id TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending','success','failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at_ms INTEGER,
  lease_until_ms INTEGER,
  last_attempt_at TEXT,
  last_status_code INTEGER,
  last_response_body TEXT,
  last_response_headers TEXT,
  last_error TEXT,
  sent_headers TEXT,
  created_at_ms INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (webhook_id, event_id)
) STRICT;
CREATE INDEX webhook_deliveries_list ON webhook_deliveries(webhook_id, created_at_ms DESC);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at_ms);

CREATE TABLE webhook_attempts (
  seq INTEGER PRIMARY KEY,
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id),
  attempt INTEGER,
  kind TEXT NOT NULL CHECK (kind IN ('scheduled','manual','replay','forward')),
  url TEXT NOT NULL,
  started_at TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  response_body TEXT,
  response_headers TEXT,
  next_attempt_at TEXT
) STRICT;
CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, seq);
`,
};
