// Migration 2: billing (decisions §9) — wallets, the append-only ledger, prices, enabled services, usage records.
// Released: never edit; add a new migration file instead.
import type { Migration } from '../migrations';

export const m002Billing: Migration = {
  version: 2,
  name: 'billing',
  sql: `
CREATE TABLE wallets (
  organization_id TEXT PRIMARY KEY REFERENCES organizations(id),
  balance INTEGER NOT NULL CHECK (balance >= 0),
  currency TEXT NOT NULL CHECK (length(currency) = 3),
  status TEXT NOT NULL CHECK (status IN ('active','suspended')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE ledger_entries (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  amount INTEGER NOT NULL,
  currency TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('topup','charge','reversal')),
  service TEXT,
  verification_id TEXT,
  refers_to TEXT UNIQUE REFERENCES ledger_entries(id),
  created_at TEXT NOT NULL,
  CHECK ((kind = 'reversal') = (refers_to IS NOT NULL)),
  CHECK ((kind = 'charge' AND amount < 0) OR (kind <> 'charge' AND amount > 0))
) STRICT;
CREATE INDEX ledger_org ON ledger_entries(organization_id, created_at);
CREATE INDEX ledger_verification ON ledger_entries(verification_id);

-- The ledger is append-only: no statement may change or remove an entry.
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;

CREATE TABLE prices (
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  service TEXT NOT NULL,
  amount INTEGER NOT NULL CHECK (amount >= 0),
  currency TEXT NOT NULL CHECK (length(currency) = 3),
  updated_at TEXT NOT NULL,
  PRIMARY KEY (organization_id, service)
) STRICT;

CREATE TABLE enabled_services (
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  service TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (organization_id, service)
) STRICT;

CREATE TABLE usage_records (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  ledger_entry_id TEXT NOT NULL UNIQUE REFERENCES ledger_entries(id),
  verification_id TEXT NOT NULL,
  service TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('charge','reversal')),
  amount INTEGER NOT NULL,
  currency TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX usage_org ON usage_records(organization_id, created_at DESC, id DESC);
`,
};
