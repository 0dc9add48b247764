// PostgreSQL migration 14: the demo loader's record of its rows — the counterpart of SQLite's migration 14. Released:
// never edit.
import type { PgMigration } from '../migrate';

export const pg014DemoData: PgMigration = {
  version: 14,
  name: 'demo-data',
  sql: `
CREATE TABLE demo_records (
  table_name text NOT NULL,
  record_id text NOT NULL,
  PRIMARY KEY (table_name, record_id)
);
`,
};
