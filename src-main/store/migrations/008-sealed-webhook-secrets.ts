// Migration 8: webhook signing secrets are sealed at rest, so the shown `secretPrefix` gets its own column. SQL
// cannot call the secret box: existing plain secrets are sealed at start-up (core/webhooks/secret-sealing.ts).
// Released: never edit; add a new migration instead.
import type { Migration } from '../migrations';

export const m008SealedWebhookSecrets: Migration = {
  version: 8,
  name: 'sealed-webhook-secrets',
  sql: `
ALTER TABLE webhooks ADD COLUMN secret_prefix TEXT;
`,
};
