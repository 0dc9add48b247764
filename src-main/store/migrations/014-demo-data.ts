// Migration 14: demo data (issue 23, docs/demo.md). Every row the demo loader writes is listed here, by table and
// primary key, in the transaction that writes it (temporary triggers on the loader's own connection), so
// `vconsole demo remove` deletes exactly those rows and never a row a user or the API wrote. Released: never edit;
// add a new migration.
import type { Migration } from '../migrations';

export const m014DemoData: Migration = {
  version: 14,
  name: 'demo-data',
  sql: `
CREATE TABLE demo_records (
  table_name TEXT NOT NULL,
  record_id TEXT NOT NULL,
  PRIMARY KEY (table_name, record_id)
) STRICT, WITHOUT ROWID;
`,
};
