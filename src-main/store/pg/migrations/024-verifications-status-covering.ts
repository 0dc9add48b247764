// PostgreSQL migration 24: the verifications by status index also carries each check's country, kind and type — the
// twin of SQLite's migration 24 (docs/performance.md, "Counts the index answers"); here the counts become index-only
// scans once autovacuum has marked the pages visible. Released: never edit; add a new migration instead.
import type { PgMigration } from '../migrate';

export const pg024VerificationsStatusCovering: PgMigration = {
  version: 24,
  name: 'verifications-status-covering',
  sql: `
DROP INDEX verifications_status;
CREATE INDEX verifications_status ON verifications(organization_id, environment, status, created_at DESC, country, kind, verification_type);
`,
};
