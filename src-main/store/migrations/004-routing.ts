// Migration 4: bank routing (decisions §5) — imported live directories (BIC, ABA, correspondents), the record of
// every routing check (`rte_`), and the history of batch-CSV validations (`bat_`).
// Released: never edit; add a new migration file instead.
import type { Migration } from '../migrations';

export const m004Routing: Migration = {
  version: 4,
  name: 'routing',
  sql: `
CREATE TABLE routing_directories (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('bic','aba','correspondents')),
  imported_at TEXT NOT NULL,
  row_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL
) STRICT;
CREATE INDEX routing_directories_org ON routing_directories(organization_id, kind, imported_at DESC);

-- One current set of entries per organization and kind: a newer import of a kind replaces the older one.
CREATE TABLE routing_bics (
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  bic11 TEXT NOT NULL,
  bic TEXT NOT NULL,
  bank_name TEXT NOT NULL,
  city TEXT,
  country TEXT NOT NULL,
  directory_id TEXT NOT NULL REFERENCES routing_directories(id),
  PRIMARY KEY (organization_id, bic11)
) STRICT, WITHOUT ROWID;

CREATE TABLE routing_abas (
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  routing_number TEXT NOT NULL,
  bank_name TEXT NOT NULL,
  city TEXT,
  state TEXT,
  directory_id TEXT NOT NULL REFERENCES routing_directories(id),
  PRIMARY KEY (organization_id, routing_number)
) STRICT, WITHOUT ROWID;

CREATE TABLE routing_correspondents (
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  bic11 TEXT NOT NULL,
  correspondent_bic TEXT NOT NULL,
  currency TEXT NOT NULL,
  confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  directory_id TEXT NOT NULL REFERENCES routing_directories(id),
  PRIMARY KEY (organization_id, bic11, correspondent_bic, currency)
) STRICT, WITHOUT ROWID;

CREATE TABLE routing_checks (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  environment TEXT NOT NULL CHECK (environment IN ('sandbox','live')),
  kind TEXT NOT NULL CHECK (kind IN ('bic','routing','correspondents','batch')),
  request TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX routing_checks_org ON routing_checks(organization_id, environment, created_at DESC);

CREATE TABLE routing_batches (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  environment TEXT NOT NULL CHECK (environment IN ('sandbox','live')),
  input_name TEXT NOT NULL,
  input_path TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running','done','failed','cancelled')),
  rows INTEGER NOT NULL DEFAULT 0,
  valid INTEGER NOT NULL DEFAULT 0,
  invalid INTEGER NOT NULL DEFAULT 0,
  reasons TEXT NOT NULL DEFAULT '{}',
  result_path TEXT,
  invalid_only_path TEXT,
  error TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT
) STRICT;
CREATE INDEX routing_batches_org ON routing_batches(organization_id, started_at DESC);
`,
};
