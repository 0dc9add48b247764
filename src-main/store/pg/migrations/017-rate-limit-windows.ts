// PostgreSQL migration 17: each credential's requests of its current one-minute window, counted by every instance of
// a team server in one row (core/limits/request-budget.ts, docs/team-server.md) — the counterpart of SQLite's migration 17.
// Released: never edit.
import type { PgMigration } from '../migrate';

export const pg017RateLimitWindows: PgMigration = {
  version: 17,
  name: 'rate-limit-windows',
  sql: `
CREATE TABLE rate_limit_windows (
  credential text PRIMARY KEY,
  window_start_ms bigint NOT NULL,
  requests bigint NOT NULL
);
`,
};
