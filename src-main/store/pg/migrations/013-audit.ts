// PostgreSQL migration 13: the audit trail — the counterpart of SQLite's migration 13. Append-only: triggers refuse
// UPDATE and TRUNCATE always, DELETE unless the retention's guard row exists (inserted and removed inside the
// pruning transaction, so no other transaction ever sees it). Released: never edit; add a new migration.
import type { PgMigration } from '../migrate';

export const pg013Audit: PgMigration = {
  version: 13,
  name: 'audit',
  sql: `
CREATE TABLE audit_events (
  organization_id text NOT NULL,
  seq bigint NOT NULL,
  id text NOT NULL UNIQUE,
  at text NOT NULL,
  actor_type text NOT NULL CHECK (actor_type IN ('user','apiKey','console','cli','system')),
  actor_id text,
  actor_label text NOT NULL,
  door text NOT NULL CHECK (door IN ('api','console','cli','system')),
  action text NOT NULL,
  target_type text,
  target_id text,
  detail text NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (organization_id, seq)
);
CREATE INDEX audit_events_at ON audit_events (organization_id, at);
CREATE INDEX audit_events_action ON audit_events (organization_id, action, seq);
CREATE TABLE audit_checkpoints (
  organization_id text PRIMARY KEY,
  seq bigint NOT NULL,
  hash text NOT NULL,
  pruned_at text NOT NULL
);
CREATE TABLE audit_prune_guard (active bigint NOT NULL);

CREATE FUNCTION vc_audit_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM audit_prune_guard) THEN
    RAISE EXCEPTION 'audit events are append-only' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN OLD;
END
$fn$;
CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events FOR EACH ROW EXECUTE FUNCTION vc_refuse_change('audit events');
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION vc_audit_refuse_delete();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION vc_refuse_change('audit events');
`,
};
