// PostgreSQL migration 1: the foundation tables — the counterpart of SQLite's migration 1 (store/migrations/). Types:
// TEXT → text (JSON and ISO timestamps stay the exact text the core writes), INTEGER → bigint, REAL → double
// precision, COLLATE NOCASE → citext. Foreign keys are DEFERRABLE INITIALLY IMMEDIATE: checked per statement as in
// SQLite, deferrable by a copy. Released: never edit; add a new migration file instead.
import type { PgMigration } from '../migrate';

export const pg001Foundation: PgMigration = {
  version: 1,
  name: 'foundation',
  sql: `
DO $$ BEGIN
  IF current_setting('server_encoding') <> 'UTF8' THEN
    RAISE EXCEPTION 'the database must use the UTF8 encoding (it uses %): create it with ENCODING ''UTF8''', current_setting('server_encoding');
  END IF;
END $$;

CREATE EXTENSION IF NOT EXISTS citext;

CREATE TABLE settings (
  key text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE organizations (
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at text NOT NULL
);

CREATE TABLE users (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  email citext NOT NULL UNIQUE,
  password_hash text NOT NULL,
  role text NOT NULL CHECK (role IN ('OWNER','ADMIN','DEVELOPER')),
  created_at text NOT NULL
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  name text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('sandbox','live')),
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  status text NOT NULL CHECK (status IN ('active','revoked')),
  created_at text NOT NULL,
  last_used_at text,
  revoked_at text
);
CREATE INDEX api_keys_org ON api_keys(organization_id, created_at);

CREATE TABLE sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users(id) DEFERRABLE INITIALLY IMMEDIATE,
  created_at text NOT NULL,
  expires_at text NOT NULL,
  revoked_at text
);

CREATE TABLE refresh_tokens (
  token_hash text PRIMARY KEY,
  session_id text NOT NULL REFERENCES sessions(id) DEFERRABLE INITIALLY IMMEDIATE,
  created_at text NOT NULL,
  expires_at text NOT NULL,
  used_at text
);
CREATE INDEX refresh_tokens_session ON refresh_tokens(session_id);

CREATE TABLE login_failures (
  email citext NOT NULL,
  at_ms bigint NOT NULL
);
CREATE INDEX login_failures_email ON login_failures(email, at_ms);

CREATE TABLE idempotency_keys (
  scope text NOT NULL,
  idem_key text NOT NULL,
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress','done')),
  owner text NOT NULL,
  status_code bigint,
  body text,
  created_at_ms bigint NOT NULL,
  expires_at_ms bigint NOT NULL,
  PRIMARY KEY (scope, idem_key)
);
CREATE INDEX idempotency_expiry ON idempotency_keys(expires_at_ms);

CREATE TABLE verifications (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  environment text NOT NULL CHECK (environment IN ('sandbox','live')),
  kind text NOT NULL,
  verification_type text NOT NULL,
  country text NOT NULL,
  identifier text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending','success','failed','error')),
  mode text NOT NULL CHECK (mode IN ('sync','async')),
  request text NOT NULL,
  result text,
  error_code text,
  charge_amount bigint NOT NULL DEFAULT 0,
  charge_currency text NOT NULL DEFAULT 'USD',
  charge_status text NOT NULL DEFAULT 'not_charged' CHECK (charge_status IN ('charged','not_charged','reversed')),
  created_at text NOT NULL,
  completed_at text
);
CREATE INDEX verifications_list ON verifications(organization_id, environment, created_at DESC, id DESC);
CREATE INDEX verifications_status ON verifications(organization_id, environment, status, created_at DESC);

CREATE TABLE outbox_events (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  environment text NOT NULL,
  event_type text NOT NULL,
  verification_id text NOT NULL,
  payload text NOT NULL,
  created_at text NOT NULL,
  dispatched_at text
);
CREATE INDEX outbox_pending ON outbox_events(dispatched_at, created_at);

CREATE TABLE jobs (
  id text PRIMARY KEY,
  kind text NOT NULL,
  payload text NOT NULL,
  state text NOT NULL CHECK (state IN ('queued','leased','done','dead')),
  run_at_ms bigint NOT NULL,
  attempts bigint NOT NULL DEFAULT 0,
  max_attempts bigint NOT NULL DEFAULT 10,
  lease_token text,
  lease_until_ms bigint,
  last_error text,
  created_at_ms bigint NOT NULL,
  updated_at_ms bigint NOT NULL
);
CREATE INDEX jobs_ready ON jobs(state, run_at_ms);
`,
};
