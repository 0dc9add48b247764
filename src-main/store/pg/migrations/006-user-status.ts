// PostgreSQL migration 6: users can be deactivated — the counterpart of SQLite's migration 6. Released: never edit.
import type { PgMigration } from '../migrate';

export const pg006UserStatus: PgMigration = {
  version: 6,
  name: 'user-status',
  sql: `
ALTER TABLE users ADD COLUMN deactivated_at text;
`,
};
