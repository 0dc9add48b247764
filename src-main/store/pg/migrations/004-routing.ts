// PostgreSQL migration 4: bank routing — the counterpart of SQLite's migration 4 (WITHOUT ROWID tables are
// ordinary tables here). Released: never edit; add a new migration file instead.
import type { PgMigration } from '../migrate';

export const pg004Routing: PgMigration = {
  version: 4,
  name: 'routing',
  sql: `
CREATE TABLE routing_directories (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('bic','aba','correspondents')),
  imported_at text NOT NULL,
  row_count bigint NOT NULL,
  error_count bigint NOT NULL
);
CREATE INDEX routing_directories_org ON routing_directories(organization_id, kind, imported_at DESC);

CREATE TABLE routing_bics (
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  bic11 text NOT NULL,
  bic text NOT NULL,
  bank_name text NOT NULL,
  city text,
  country text NOT NULL,
  directory_id text NOT NULL REFERENCES routing_directories(id) DEFERRABLE INITIALLY IMMEDIATE,
  PRIMARY KEY (organization_id, bic11)
);

CREATE TABLE routing_abas (
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  routing_number text NOT NULL,
  bank_name text NOT NULL,
  city text,
  state text,
  directory_id text NOT NULL REFERENCES routing_directories(id) DEFERRABLE INITIALLY IMMEDIATE,
  PRIMARY KEY (organization_id, routing_number)
);

CREATE TABLE routing_correspondents (
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  bic11 text NOT NULL,
  correspondent_bic text NOT NULL,
  currency text NOT NULL,
  confidence double precision NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  directory_id text NOT NULL REFERENCES routing_directories(id) DEFERRABLE INITIALLY IMMEDIATE,
  PRIMARY KEY (organization_id, bic11, correspondent_bic, currency)
);

CREATE TABLE routing_checks (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  environment text NOT NULL CHECK (environment IN ('sandbox','live')),
  kind text NOT NULL CHECK (kind IN ('bic','routing','correspondents','batch')),
  request text NOT NULL,
  result text NOT NULL,
  created_at text NOT NULL
);
CREATE INDEX routing_checks_org ON routing_checks(organization_id, environment, created_at DESC);

CREATE TABLE routing_batches (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  environment text NOT NULL CHECK (environment IN ('sandbox','live')),
  input_name text NOT NULL,
  input_path text NOT NULL,
  status text NOT NULL CHECK (status IN ('running','done','failed','cancelled')),
  rows bigint NOT NULL DEFAULT 0,
  valid bigint NOT NULL DEFAULT 0,
  invalid bigint NOT NULL DEFAULT 0,
  reasons text NOT NULL DEFAULT '{}',
  result_path text,
  invalid_only_path text,
  error text,
  started_at text NOT NULL,
  finished_at text
);
CREATE INDEX routing_batches_org ON routing_batches(organization_id, started_at DESC);
`,
};
