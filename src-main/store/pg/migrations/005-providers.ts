// PostgreSQL migration 5: live providers — the counterpart of SQLite's migration 5. Released: never edit; add a new
// migration file instead.
import type { PgMigration } from '../migrate';

export const pg005Providers: PgMigration = {
  version: 5,
  name: 'providers',
  sql: `
CREATE TABLE provider_configs (
  id text PRIMARY KEY,
  adapter text NOT NULL CHECK (adapter IN ('generic','epc-vop','uk-cop','stand-in')),
  base_url text NOT NULL,
  auth_scheme text NOT NULL CHECK (auth_scheme IN ('bearer','api-key')),
  secret_sealed text,
  secret_last4 text,
  timeout_ms bigint NOT NULL CHECK (timeout_ms > 0),
  deadline_ms bigint NOT NULL CHECK (deadline_ms > 0),
  max_concurrency bigint NOT NULL CHECK (max_concurrency > 0),
  max_queue bigint NOT NULL CHECK (max_queue >= 0),
  retries bigint NOT NULL CHECK (retries BETWEEN 0 AND 5),
  breaker_threshold bigint NOT NULL CHECK (breaker_threshold > 0),
  breaker_cooldown_ms bigint NOT NULL CHECK (breaker_cooldown_ms > 0),
  mapping text,
  created_at text NOT NULL,
  updated_at text NOT NULL
);

CREATE TABLE provider_routes (
  route text PRIMARY KEY,
  provider_id text NOT NULL REFERENCES provider_configs(id) ON DELETE CASCADE DEFERRABLE INITIALLY IMMEDIATE
);
CREATE INDEX provider_routes_provider ON provider_routes(provider_id);

CREATE TABLE provider_cache_ttl (
  kind text PRIMARY KEY CHECK (kind IN ('account','phone','identity','face','address')),
  ttl_seconds bigint NOT NULL CHECK (ttl_seconds >= 0)
);

CREATE TABLE verification_cache (
  key text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) DEFERRABLE INITIALLY IMMEDIATE,
  kind text NOT NULL,
  answer text NOT NULL,
  stored_at_ms bigint NOT NULL,
  expires_at_ms bigint NOT NULL
);
CREATE INDEX verification_cache_expiry ON verification_cache(expires_at_ms);
`,
};
