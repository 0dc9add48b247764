// Migration 15: team sign-in for the web console (issue 17 item 3, docs/team-server.md). A signed-in console
// session is a row of `sessions` (so a role change or a deactivation, which revoke a user's sessions, end it too)
// plus the SHA-256 digest of its cookie and when it was last used (idle expiry). Failed sign-ins also record the
// client address, so they are throttled per address as well as per account. Released: never edit; add a new one.
import type { Migration } from '../migrations';

export const m015ConsoleSessions: Migration = {
  version: 15,
  name: 'console-sessions',
  sql: `
CREATE TABLE console_sessions (
  token_hash TEXT PRIMARY KEY,
  session_id TEXT NOT NULL UNIQUE REFERENCES sessions(id) ON DELETE CASCADE,
  ip TEXT,
  user_agent TEXT,
  last_seen_at_ms INTEGER NOT NULL
) STRICT;
ALTER TABLE login_failures ADD COLUMN ip TEXT;
CREATE INDEX login_failures_ip ON login_failures(ip, at_ms);
`,
};
