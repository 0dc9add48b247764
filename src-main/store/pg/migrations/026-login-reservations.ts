// PostgreSQL migration 26: sign-in attempts still being hashed, held in the store — the twin of SQLite's migration 26
// (core/auth/sign-in.ts, docs/team-server.md "Failed sign-ins"). Each row is an attempt of some instance whose password
// check has not answered yet; it counts toward its account's limit until it is settled or `until_ms` passes.
// Released: never edit; add a new migration instead.
import type { PgMigration } from '../migrate';

export const pg026LoginReservations: PgMigration = {
  version: 26,
  name: 'login-reservations',
  sql: `
CREATE TABLE login_reservations (
  id text PRIMARY KEY,
  email citext NOT NULL,
  until_ms bigint NOT NULL
);
CREATE INDEX login_reservations_email ON login_reservations(email, until_ms);
`,
};
