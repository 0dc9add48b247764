// Migration 27: the organizations that existed, with no audit entry, when this version first opened the store
// (docs/audit.md, "Where a chain starts"). Migration 13 started the audit trail without a creation entry for the
// organizations already there, so such an organization's chain is empty until something is audited, and an empty
// chain is its history, not a deletion. Every other organization's chain holds at least its creation entry. Recorded
// once, as a settings row (copied with the store by backups and `vconsole db copy`); none on a new store. Released:
// never edit; add a new migration instead.
import type { Migration } from '../migrations';

/** The `settings` row: a JSON array of organization ids. */
export const AUDIT_CHAINS_BEFORE_TRAIL_SETTING = 'audit.chains_before_trail';

export const m027AuditChainsBeforeTrail: Migration = {
  version: 27,
  name: 'audit-chains-before-trail',
  sql: `
INSERT INTO settings (key, value)
  SELECT '${AUDIT_CHAINS_BEFORE_TRAIL_SETTING}', json_group_array(o.id) FROM organizations o
  WHERE NOT EXISTS (SELECT 1 FROM audit_events a WHERE a.organization_id = o.id)
    AND NOT EXISTS (SELECT 1 FROM audit_checkpoints c WHERE c.organization_id = o.id)
  HAVING count(*) > 0;
`,
};
