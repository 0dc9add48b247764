// PostgreSQL migration 8: the shown prefix of a sealed webhook secret — the counterpart of SQLite's migration 8.
// Released: never edit.
import type { PgMigration } from '../migrate';

export const pg008SealedWebhookSecrets: PgMigration = {
  version: 8,
  name: 'sealed-webhook-secrets',
  sql: `
ALTER TABLE webhooks ADD COLUMN secret_prefix text;
`,
};
