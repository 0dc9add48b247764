// PostgreSQL migration 15: team sign-in's console sessions and failed sign-ins per client address — the counterpart of
// SQLite's migration 15 (docs/team-server.md, "Team sign-in and TLS"). Released: never edit.
import type { PgMigration } from '../migrate';

export const pg015ConsoleSessions: PgMigration = {
  version: 15,
  name: 'console-sessions',
  sql: `
CREATE TABLE console_sessions (
  token_hash text PRIMARY KEY,
  session_id text NOT NULL UNIQUE REFERENCES sessions(id) ON DELETE CASCADE DEFERRABLE INITIALLY IMMEDIATE,
  ip text,
  user_agent text,
  last_seen_at_ms bigint NOT NULL
);
ALTER TABLE login_failures ADD COLUMN ip text;
CREATE INDEX login_failures_ip ON login_failures(ip, at_ms);
`,
};
