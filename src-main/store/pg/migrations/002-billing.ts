// PostgreSQL migration 2: billing — the counterpart of SQLite's migration 2. The wallet never goes below zero (CHECK),
// a charge has at most one reversal (UNIQUE refers_to), and the ledger is append-only: triggers refuse UPDATE,
// DELETE and TRUNCATE. Released: never edit; add a new migration file instead.
import type { PgMigration } from '../migrate';

export const pg002Billing: PgMigration = {
  version: 2,
  name: 'billing',
  sql: `
CREATE TABLE wallets (
  organization_id text PRIMARY KEY REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  balance bigint NOT NULL CHECK (balance >= 0),
  currency text NOT NULL CHECK (length(currency) = 3),
  status text NOT NULL CHECK (status IN ('active','suspended')),
  created_at text NOT NULL,
  updated_at text NOT NULL
);

CREATE TABLE ledger_entries (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  amount bigint NOT NULL,
  currency text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('topup','charge','reversal')),
  service text,
  verification_id text,
  refers_to text UNIQUE REFERENCES ledger_entries(id) DEFERRABLE INITIALLY IMMEDIATE,
  created_at text NOT NULL,
  CHECK ((kind = 'reversal') = (refers_to IS NOT NULL)),
  CHECK ((kind = 'charge' AND amount < 0) OR (kind <> 'charge' AND amount > 0))
);
CREATE INDEX ledger_org ON ledger_entries(organization_id, created_at);
CREATE INDEX ledger_verification ON ledger_entries(verification_id);

-- Append-only tables: a trigger that refuses the change, naming what is protected (TG_ARGV[0]).
CREATE FUNCTION vc_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION '% are append-only', TG_ARGV[0] USING ERRCODE = 'integrity_constraint_violation';
END
$fn$;
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION vc_refuse_change('ledger entries');
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION vc_refuse_change('ledger entries');
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION vc_refuse_change('ledger entries');

CREATE TABLE prices (
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  service text NOT NULL,
  amount bigint NOT NULL CHECK (amount >= 0),
  currency text NOT NULL CHECK (length(currency) = 3),
  updated_at text NOT NULL,
  PRIMARY KEY (organization_id, service)
);

CREATE TABLE enabled_services (
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  service text NOT NULL,
  created_at text NOT NULL,
  PRIMARY KEY (organization_id, service)
);

CREATE TABLE usage_records (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  ledger_entry_id text NOT NULL UNIQUE REFERENCES ledger_entries(id) DEFERRABLE INITIALLY IMMEDIATE,
  verification_id text NOT NULL,
  service text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('charge','reversal')),
  amount bigint NOT NULL,
  currency text NOT NULL,
  created_at text NOT NULL
);
CREATE INDEX usage_org ON usage_records(organization_id, created_at DESC, id DESC);
`,
};
