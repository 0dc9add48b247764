// Migration 13: the audit trail (docs/audit.md). Append-only and hash-chained per organization: each entry carries
// the previous entry's hash and its own (SHA-256 over a canonical encoding), so an edit, a deletion or a reordering
// made with another tool is found by `vconsole audit verify`. Triggers refuse UPDATE and DELETE; retention prunes
// old entries only while a guard row exists (inside the pruning transaction), recording a checkpoint from which
// the chain still verifies. Released: never edit; add a new migration.
import type { Migration } from '../migrations';

export const m013Audit: Migration = {
  version: 13,
  name: 'audit',
  sql: `
CREATE TABLE audit_events (
  organization_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL UNIQUE,
  at TEXT NOT NULL,
  actor_type TEXT NOT NULL CHECK (actor_type IN ('user','apiKey','console','cli','system')),
  actor_id TEXT,
  actor_label TEXT NOT NULL,
  door TEXT NOT NULL CHECK (door IN ('api','console','cli','system')),
  action TEXT NOT NULL,
  target_type TEXT,
  target_id TEXT,
  detail TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY (organization_id, seq)
) STRICT;
CREATE INDEX audit_events_at ON audit_events (organization_id, at);
CREATE INDEX audit_events_action ON audit_events (organization_id, action, seq);
CREATE TABLE audit_checkpoints (
  organization_id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL,
  pruned_at TEXT NOT NULL
) STRICT;
CREATE TABLE audit_prune_guard (active INTEGER NOT NULL) STRICT;
CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
WHEN NOT EXISTS (SELECT 1 FROM audit_prune_guard)
BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;
`,
};
