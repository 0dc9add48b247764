// Migration 6: users can be deactivated (docs/settings.md). The row stays, for the audit trail and for keys and
// sessions that point at it. Released: never edit; add a new migration file instead.
import type { Migration } from '../migrations';

export const m006UserStatus: Migration = {
  version: 6,
  name: 'user-status',
  sql: `
ALTER TABLE users ADD COLUMN deactivated_at TEXT;
`,
};
