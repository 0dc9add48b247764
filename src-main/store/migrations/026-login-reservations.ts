// Migration 26: sign-in attempts still being hashed, held in the store (core/auth/sign-in.ts, docs/team-server.md
// "Failed sign-ins"). An attempt reserves a row before its password is hashed; the row counts toward its account's
// limit of failures (decisions §6) until the hash answers, then becomes a failure (login_failures) or is deleted. On a
// team server every instance sees every other's reservations, so concurrent guesses sent to several instances cannot
// slip past the limit. A reservation counts only until `until_ms` (an instance that died mid-check leaves its rows
// behind; they stop counting then). Released: never edit; add a new migration instead.
import type { Migration } from '../migrations';

export const m026LoginReservations: Migration = {
  version: 26,
  name: 'login-reservations',
  sql: `
CREATE TABLE login_reservations (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL COLLATE NOCASE,
  until_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX login_reservations_email ON login_reservations(email, until_ms);
`,
};
