// Migration 7: a write counter per listed table, kept by triggers, so a list page can reuse its `total` while
// nothing that could change a count was written (docs/performance.md). Released: never edit; add a new migration.
import type { Migration } from '../migrations';

export const m007TableVersions: Migration = {
  version: 7,
  name: 'table-versions',
  sql: `
CREATE TABLE table_versions (
  name TEXT PRIMARY KEY,
  version INTEGER NOT NULL
) STRICT;
INSERT INTO table_versions (name, version) VALUES ('verifications', 0);
CREATE TRIGGER verifications_version_insert AFTER INSERT ON verifications
BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'verifications'; END;
CREATE TRIGGER verifications_version_delete AFTER DELETE ON verifications
BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'verifications'; END;
CREATE TRIGGER verifications_version_update
AFTER UPDATE ON verifications
BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'verifications'; END;
`,
};
