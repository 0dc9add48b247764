// PostgreSQL migration 27: the twin of SQLite's migration 27 — the organizations that had no audit entry when this
// version first opened the database (a store copied from an older SQLite one brings its own row with it). Released:
// never edit; add a new migration instead.
import type { PgMigration } from '../migrate';
import { AUDIT_CHAINS_BEFORE_TRAIL_SETTING } from '../../migrations/027-audit-chains-before-trail';

export const pg027AuditChainsBeforeTrail: PgMigration = {
  version: 27,
  name: 'audit-chains-before-trail',
  sql: `
INSERT INTO settings (key, value)
  SELECT '${AUDIT_CHAINS_BEFORE_TRAIL_SETTING}', json_agg(o.id)::text FROM organizations o
  WHERE NOT EXISTS (SELECT 1 FROM audit_events a WHERE a.organization_id = o.id)
    AND NOT EXISTS (SELECT 1 FROM audit_checkpoints c WHERE c.organization_id = o.id)
  HAVING count(*) > 0
ON CONFLICT (key) DO NOTHING;
`,
};
