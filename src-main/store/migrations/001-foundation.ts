// Migration 1: the foundation tables. Released: never edit; add a new migration file instead.
import type { Migration } from '../migrations';

export const m001Foundation: Migration = {
    version: 1,
    name: 'foundation',
    sql: `
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  email TEXT NOT NULL COLLATE NOCASE UNIQUE,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('OWNER','ADMIN','DEVELOPER')),
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL,
  environment TEXT NOT NULL CHECK (environment IN ('sandbox','live')),
  key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active','revoked')),
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
) STRICT;
CREATE INDEX api_keys_org ON api_keys(organization_id, created_at);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT
) STRICT;

CREATE TABLE refresh_tokens (
  token_hash TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
) STRICT;
CREATE INDEX refresh_tokens_session ON refresh_tokens(session_id);

CREATE TABLE login_failures (
  email TEXT NOT NULL COLLATE NOCASE,
  at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX login_failures_email ON login_failures(email, at_ms);

CREATE TABLE idempotency_keys (
  scope TEXT NOT NULL,
  idem_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in_progress','done')),
  owner TEXT NOT NULL,
  status_code INTEGER,
  body TEXT,
  created_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  PRIMARY KEY (scope, idem_key)
) STRICT;
CREATE INDEX idempotency_expiry ON idempotency_keys(expires_at_ms);

CREATE TABLE verifications (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  environment TEXT NOT NULL CHECK (environment IN ('sandbox','live')),
  kind TEXT NOT NULL,
  verification_type TEXT NOT NULL,
  country TEXT NOT NULL,
  identifier TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending','success','failed','error')),
  mode TEXT NOT NULL CHECK (mode IN ('sync','async')),
  request TEXT NOT NULL,
  result TEXT,
  error_code TEXT,
  charge_amount INTEGER NOT NULL DEFAULT 0,
  charge_currency TEXT NOT NULL DEFAULT 'USD',
  charge_status TEXT NOT NULL DEFAULT 'not_charged' CHECK (charge_status IN ('charged','not_charged','reversed')),
  created_at TEXT NOT NULL,
  completed_at TEXT
) STRICT;
CREATE INDEX verifications_list ON verifications(organization_id, environment, created_at DESC, id DESC);
CREATE INDEX verifications_status ON verifications(organization_id, environment, status, created_at DESC);

CREATE TABLE outbox_events (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  environment TEXT NOT NULL,
  event_type TEXT NOT NULL,
  verification_id TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL,
  dispatched_at TEXT
) STRICT;
CREATE INDEX outbox_pending ON outbox_events(dispatched_at, created_at);

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued','leased','done','dead')),
  run_at_ms INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 10,
  lease_token TEXT,
  lease_until_ms INTEGER,
  last_error TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX jobs_ready ON jobs(state, run_at_ms);
`,
  };
