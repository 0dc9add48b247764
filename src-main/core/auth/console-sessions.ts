// Signed-in web console sessions (team sign-in, docs/team-server.md): server-side, referenced by an opaque cookie
// whose SHA-256 digest is all the store keeps. A session is a row of `sessions` (so revoking a user's sessions — a
// role change, a deactivation — ends it at once) and a row of `console_sessions` (cookie digest, address, last use).
// It ends on sign-out, CONSOLE_SESSION_TTL_MS after sign-in, or after CONSOLE_IDLE_MS without a call.
import type { Role } from '../../../src-shared/schemas/auth';
import { appendAudit, currentActor } from '../audit/audit-log';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import { randomToken, sha256Hex } from './secrets';
import { checkPassword, recordSignIn, type AttemptSource } from './sign-in';

/** A console session lasts at most this long after sign-in. */
export const CONSOLE_SESSION_TTL_MS = 12 * 3600_000;
/** …and ends after this long without a console call. */
export const CONSOLE_IDLE_MS = 60 * 60_000;
/** Last use is written at most this often per session (a read per call, a write per minute at most). */
const TOUCH_EVERY_MS = 60_000;

/** Who is signed in to the console: what every channel call is checked and audited as. */
export interface ConsoleUser {
  userId: string;
  email: string;
  role: Role;
  organizationId: string;
  sessionId: string;
  /** When the session ends at the latest (ms since the epoch), idle expiry aside. */
  expiresAtMs: number;
}

export interface ConsoleSignIn {
  /** The cookie value: shown once, stored only as a digest. */
  token: string;
  user: ConsoleUser;
  /** The session the browser held before and that this sign-in ended (its open streams end too), if any. */
  replaced: string | null;
}

/**
 * Checks the password (throttled, audited) and opens a console session. `replacing` is the cookie the browser
 * still sent: once the new session is open, that one ends (one browser, one session); a failed sign-in leaves it.
 */
export async function consoleSignIn(
  deps: CoreDeps,
  email: string,
  password: string,
  from: AttemptSource & { userAgent: string | null },
  replacing?: string,
): Promise<ConsoleSignIn> {
  const user = await checkPassword(deps, email, password, from);
  const now = deps.clock.now();
  const sessionId = newId('ses');
  const token = randomToken(32);
  const expiresAtMs = now + CONSOLE_SESSION_TTL_MS;
  const tokenHash = sha256Hex(token);
  // Taken in the request's context, before the transaction (which may run in another's, with the group commit).
  const who = await currentActor(deps.sql);
  await deps.sql.transaction(async (tx) => {
    await recordSignIn({ ...deps, sql: tx }, user, { id: sessionId, createdAtMs: now, expiresAtMs }, { ip: from.ip, userAgent: from.userAgent }, who);
    await tx.run('INSERT INTO console_sessions (token_hash, session_id, ip, user_agent, last_seen_at_ms) VALUES (?, ?, ?, ?, ?)', [
      tokenHash,
      sessionId,
      from.ip,
      from.userAgent,
      now,
    ]);
  });
  const replaced = replacing ? await consoleSignOut(deps, replacing) : null;
  return { token, user: { userId: user.id, email: user.email, role: user.role, organizationId: user.organization_id, sessionId, expiresAtMs }, replaced };
}

interface SessionRow {
  session_id: string;
  last_seen_at_ms: number;
  expires_at: string;
  revoked_at: string | null;
  user_id: string;
  email: string;
  role: Role;
  organization_id: string;
  deactivated_at: string | null;
}

/**
 * The signed-in user of a cookie, or null when it names no live session (unknown, signed out, revoked, expired,
 * idle too long, or its user deactivated). The role is read from the user now, not remembered from sign-in. A call
 * counts as use (the idle clock restarts) unless `touch` is false.
 */
export async function consoleSessionUser(deps: CoreDeps, token: string | undefined, o: { touch?: boolean } = {}): Promise<ConsoleUser | null> {
  if (!token || token.length > 200) return null;
  const hash = sha256Hex(token);
  const row = await deps.sql.get<SessionRow>(
    `SELECT c.session_id, c.last_seen_at_ms, s.expires_at, s.revoked_at, u.id AS user_id, u.email, u.role, u.organization_id, u.deactivated_at
     FROM console_sessions c JOIN sessions s ON s.id = c.session_id JOIN users u ON u.id = s.user_id
     WHERE c.token_hash = ?`,
    [hash],
  );
  if (!row || row.revoked_at || row.deactivated_at) return null;
  const now = deps.clock.now();
  const expiresAtMs = Date.parse(row.expires_at);
  if (expiresAtMs <= now || row.last_seen_at_ms + CONSOLE_IDLE_MS <= now) return null;
  // A look that is not a use (an open event stream checking its session) leaves the idle clock running.
  if (o.touch !== false && now - row.last_seen_at_ms >= TOUCH_EVERY_MS) {
    await deps.sql.transaction((tx) => tx.run('UPDATE console_sessions SET last_seen_at_ms = ? WHERE token_hash = ? AND last_seen_at_ms < ?', [now, hash, now]));
  }
  return { userId: row.user_id, email: row.email, role: row.role, organizationId: row.organization_id, sessionId: row.session_id, expiresAtMs };
}

/** Ends the cookie's session (idempotent) and records the sign-out; the id of the session it ended, if any. */
export async function consoleSignOut(deps: CoreDeps, token: string | undefined): Promise<string | null> {
  const user = await consoleSessionUser(deps, token);
  if (!user) return null;
  const who = await currentActor(deps.sql);
  const now = deps.clock.now();
  await deps.sql.transaction(async (tx) => {
    const changed = (await tx.run('UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [iso(now), user.sessionId])).changes;
    if (changed === 1) {
      await appendAudit(
        { ...deps, sql: tx },
        user.organizationId,
        { action: 'auth.logout', target: { type: 'session', id: user.sessionId }, detail: { email: user.email }, actor: { type: 'user', id: user.userId, label: user.email } },
        who,
      );
    }
  });
  return user.sessionId;
}
