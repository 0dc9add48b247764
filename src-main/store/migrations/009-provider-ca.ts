// Migration 9: a live provider may carry its own trusted CA certificate (PEM) for a private upstream's TLS
// (docs/providers.md). Released: never edit; add a new migration instead.
import type { Migration } from '../migrations';

export const m009ProviderCa: Migration = {
  version: 9,
  name: 'provider-ca',
  sql: `
ALTER TABLE provider_configs ADD COLUMN ca_pem TEXT;
`,
};
