// Migration 5: live-mode providers (docs/providers.md) — upstream adapter configurations with sealed credentials,
// the routes that pick one per kind and corridor, the per-kind cache time to live and the cache of definitive answers.
// Released: never edit; add a new migration file instead.
import type { Migration } from '../migrations';

export const m005Providers: Migration = {
  version: 5,
  name: 'providers',
  sql: `
CREATE TABLE provider_configs (
  id TEXT PRIMARY KEY,
  adapter TEXT NOT NULL CHECK (adapter IN ('generic','epc-vop','uk-cop','stand-in')),
  base_url TEXT NOT NULL,
  auth_scheme TEXT NOT NULL CHECK (auth_scheme IN ('bearer','api-key')),
  -- The credential sealed by the SecretBox (never the plain value) and its last four characters for display.
  secret_sealed TEXT,
  secret_last4 TEXT,
  timeout_ms INTEGER NOT NULL CHECK (timeout_ms > 0),
  deadline_ms INTEGER NOT NULL CHECK (deadline_ms > 0),
  max_concurrency INTEGER NOT NULL CHECK (max_concurrency > 0),
  max_queue INTEGER NOT NULL CHECK (max_queue >= 0),
  retries INTEGER NOT NULL CHECK (retries BETWEEN 0 AND 5),
  breaker_threshold INTEGER NOT NULL CHECK (breaker_threshold > 0),
  breaker_cooldown_ms INTEGER NOT NULL CHECK (breaker_cooldown_ms > 0),
  mapping TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

-- A route is "kind:COUNTRY" or "kind:*"; the exact country wins over the wildcard.
CREATE TABLE provider_routes (
  route TEXT PRIMARY KEY,
  provider_id TEXT NOT NULL REFERENCES provider_configs(id) ON DELETE CASCADE
) STRICT;
CREATE INDEX provider_routes_provider ON provider_routes(provider_id);

CREATE TABLE provider_cache_ttl (
  kind TEXT PRIMARY KEY CHECK (kind IN ('account','phone','identity','face','address')),
  ttl_seconds INTEGER NOT NULL CHECK (ttl_seconds >= 0)
) STRICT;

-- Definitive answers only (success / failed); key = sha256(organization, kind, normalised query).
CREATE TABLE verification_cache (
  key TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id),
  kind TEXT NOT NULL,
  answer TEXT NOT NULL,
  stored_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX verification_cache_expiry ON verification_cache(expires_at_ms);
`,
};
