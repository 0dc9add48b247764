// PostgreSQL migration 9: a live provider's own CA certificate — the counterpart of SQLite's migration 9. Released:
// never edit.
import type { PgMigration } from '../migrate';

export const pg009ProviderCa: PgMigration = {
  version: 9,
  name: 'provider-ca',
  sql: `
ALTER TABLE provider_configs ADD COLUMN ca_pem text;
`,
};
