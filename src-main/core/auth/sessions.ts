// API sessions: sign-in (the password check and its throttle are sign-in.ts), refresh with rotation and reuse
// detection, sign-out.
import { AppError } from '../../../src-shared/app-error';
import type { Role } from '../../../src-shared/schemas/auth';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import type { Principal } from '../principal';
import { checkPassword, recordSignIn, type AttemptSource, type UserRow } from './sign-in';
import { randomToken, sha256Hex } from './secrets';
import { ACCESS_TTL_SECONDS, signAccessToken, verifyAccessToken } from './tokens';
import { appendAudit, currentActor } from '../audit/audit-log';
import type { SqlQueries } from '../../store/sql-port';

export const REFRESH_TTL_MS = 7 * 24 * 3600 * 1000;

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  user: { id: string; email: string; role: Role; organizationId: string };
}

/** A new refresh token: the value the client gets, and the digest the store keeps. */
function newRefreshToken(): { token: string; hash: string } {
  const token = `rt_${randomToken(32)}`;
  return { token, hash: sha256Hex(token) };
}

/** Stores a refresh token of a session (inside the transaction that opens or rotates it). */
async function storeRefreshToken(tx: SqlQueries, hash: string, sessionId: string, now: number): Promise<void> {
  await tx.run('INSERT INTO refresh_tokens (token_hash, session_id, created_at, expires_at) VALUES (?, ?, ?, ?)', [hash, sessionId, iso(now), iso(now + REFRESH_TTL_MS)]);
}

/** The answer of a sign-in or a refresh, once its refresh token is stored: the access token is signed after the commit. */
async function issuePair(deps: CoreDeps, user: UserRow, sessionId: string, refreshToken: string): Promise<TokenPair> {
  const accessToken = await signAccessToken(deps, {
    userId: user.id,
    sessionId,
    organizationId: user.organization_id,
    role: user.role,
  });
  return {
    accessToken,
    refreshToken,
    tokenType: 'Bearer',
    expiresIn: ACCESS_TTL_SECONDS,
    user: { id: user.id, email: user.email, role: user.role, organizationId: user.organization_id },
  };
}

/** Signs in through the API: the shared, throttled and audited password check, then a session and a token pair. */
export async function login(deps: CoreDeps, email: string, password: string, from: AttemptSource = { ip: null }): Promise<TokenPair> {
  // The password is hashed before any transaction opens (checkPassword), never inside one.
  const user = await checkPassword(deps, email, password, from);
  const now = deps.clock.now();
  const sessionId = newId('ses');
  const refreshToken = newRefreshToken();
  const who = await currentActor(deps.sql);
  await deps.sql.transaction(async (tx) => {
    await recordSignIn({ ...deps, sql: tx }, user, { id: sessionId, createdAtMs: now, expiresAtMs: now + REFRESH_TTL_MS }, { ip: from.ip }, who);
    await storeRefreshToken(tx, refreshToken.hash, sessionId, now);
  });
  return issuePair(deps, user, sessionId, refreshToken.token);
}

type Refreshed = { kind: 'ok'; user: UserRow; sessionId: string } | { kind: 'invalid' | 'expired' | 'reused' };

export async function refresh(deps: CoreDeps, refreshToken: string): Promise<TokenPair> {
  const now = deps.clock.now();
  const hash = sha256Hex(refreshToken);
  const next = newRefreshToken();
  // The check and the writes in one transaction: of two presentations of one token, exactly one rotates it and the
  // other sees it used (and ends the session); the new token is stored with the old one's claim.
  const who = await currentActor(deps.sql);
  const outcome = await deps.sql.transaction(async (tx): Promise<Refreshed> => {
    const row = await tx.get<{ session_id: string; expires_at: string; used_at: string | null; revoked_at: string | null; user_id: string }>(
      `SELECT r.session_id, r.expires_at, r.used_at, s.revoked_at, s.user_id FROM refresh_tokens r
       JOIN sessions s ON s.id = r.session_id WHERE r.token_hash = ?`,
      [hash],
    );
    if (!row || row.revoked_at) return { kind: 'invalid' };
    if (row.used_at) {
      // A refresh token presented twice means it leaked: end the whole session (decisions §6).
      await tx.run('UPDATE sessions SET revoked_at = ? WHERE id = ?', [iso(now), row.session_id]);
      const owner = await tx.get<{ organization_id: string; email: string }>('SELECT organization_id, email FROM users WHERE id = ?', [row.user_id]);
      if (owner) {
        await appendAudit({ ...deps, sql: tx }, owner.organization_id, {
          action: 'auth.refresh_reuse_detected',
          target: { type: 'session', id: row.session_id },
          detail: { email: owner.email, sessionRevoked: true },
          actor: { type: 'user', id: row.user_id, label: owner.email },
        }, who);
      }
      return { kind: 'reused' };
    }
    if (Date.parse(row.expires_at) <= now) return { kind: 'expired' };
    const claimed = await tx.run('UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL', [iso(now), hash]);
    if (claimed.changes !== 1) return { kind: 'invalid' };
    const user = await tx.get<UserRow>('SELECT id, organization_id, email, password_hash, role FROM users WHERE id = ?', [row.user_id]);
    // Nothing is written for a vanished user: the claim rolls back with the transaction.
    if (!user) throw new AppError('TOKEN_INVALID');
    await storeRefreshToken(tx, next.hash, row.session_id, now);
    return { kind: 'ok', user, sessionId: row.session_id };
  });
  if (outcome.kind === 'reused') throw new AppError('TOKEN_INVALID', { message: 'This refresh token was already used; the session has been revoked.' });
  if (outcome.kind === 'expired') throw new AppError('TOKEN_EXPIRED');
  if (outcome.kind !== 'ok') throw new AppError('TOKEN_INVALID');
  return issuePair(deps, outcome.user, outcome.sessionId, next.token);
}

export async function logout(deps: CoreDeps, p: Principal): Promise<void> {
  if (!p.sessionId) throw new AppError('TOKEN_INVALID');
  const sessionId = p.sessionId;
  const at = iso(deps.clock.now());
  await deps.sql.transaction((tx) => tx.run('UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [at, sessionId]));
}

/** Resolves a Bearer token to a principal; the session must still be live, so logout takes effect at once. */
export async function authenticateBearer(
  deps: CoreDeps,
  token: string,
  environment: 'sandbox' | 'live',
): Promise<Principal> {
  const claims = await verifyAccessToken(deps, token);
  const s = await deps.sql.get<{ revoked_at: string | null }>('SELECT revoked_at FROM sessions WHERE id = ?', [claims.sessionId]);
  if (!s || s.revoked_at) throw new AppError('TOKEN_INVALID');
  return {
    kind: 'user',
    organizationId: claims.organizationId,
    environment,
    role: claims.role,
    userId: claims.userId,
    sessionId: claims.sessionId,
  };
}
