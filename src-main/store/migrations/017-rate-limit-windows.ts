// Migration 17: the per-credential request budget counted in the store (issue 17, docs/team-server.md, "Idempotency
// and rate limits across instances"). A team server's instances share one PostgreSQL database and count each
// credential's requests of the current minute in one row of it, so the budget holds whichever instance answers.
// The SQLite service is one process and keeps counting in memory (core/limits/request-budget.ts): on SQLite the table stays
// empty; it exists so that both engines have the same schema (test/integration/pg/schema-parity.test.ts).
// Released: never edit; add a new migration instead.
import type { Migration } from '../migrations';

export const m017RateLimitWindows: Migration = {
  version: 17,
  name: 'rate-limit-windows',
  sql: `
CREATE TABLE rate_limit_windows (
  credential TEXT PRIMARY KEY,
  window_start_ms INTEGER NOT NULL,
  requests INTEGER NOT NULL
) STRICT;
`,
};
