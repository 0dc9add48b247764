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
import { appendAudit } from '../audit/audit-log';

export const REFRESH_TTL_MS = 7 * 24 * 3600 * 1000;

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  user: { id: string; email: string; role: Role; organizationId: string };
}

async function issuePair(deps: CoreDeps, user: UserRow, sessionId: string): Promise<TokenPair> {
  const now = deps.clock.now();
  const refreshToken = `rt_${randomToken(32)}`;
  deps.db
    .prepare('INSERT INTO refresh_tokens (token_hash, session_id, created_at, expires_at) VALUES (?, ?, ?, ?)')
    .run(sha256Hex(refreshToken), sessionId, iso(now), iso(now + REFRESH_TTL_MS));
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
  const user = await checkPassword(deps, email, password, from);
  const now = deps.clock.now();
  const sessionId = newId('ses');
  deps.db.transaction(() => recordSignIn(deps, user, { id: sessionId, createdAtMs: now, expiresAtMs: now + REFRESH_TTL_MS }, { ip: from.ip }))();
  return issuePair(deps, user, sessionId);
}

export async function refresh(deps: CoreDeps, refreshToken: string): Promise<TokenPair> {
  const now = deps.clock.now();
  const row = deps.db
    .prepare(
      `SELECT r.session_id, r.expires_at, r.used_at, s.revoked_at, s.user_id FROM refresh_tokens r
       JOIN sessions s ON s.id = r.session_id WHERE r.token_hash = ?`,
    )
    .get(sha256Hex(refreshToken)) as
    | { session_id: string; expires_at: string; used_at: string | null; revoked_at: string | null; user_id: string }
    | undefined;
  if (!row || row.revoked_at) throw new AppError('TOKEN_INVALID');
  if (row.used_at) {
    // A refresh token presented twice means it leaked: end the whole session (decisions §6).
    deps.db.transaction(() => {
      deps.db.prepare('UPDATE sessions SET revoked_at = ? WHERE id = ?').run(iso(now), row.session_id);
      const owner = deps.db.prepare('SELECT organization_id, email FROM users WHERE id = ?').get(row.user_id) as { organization_id: string; email: string } | undefined;
      if (owner) {
        appendAudit(deps, owner.organization_id, {
          action: 'auth.refresh_reuse_detected',
          target: { type: 'session', id: row.session_id },
          detail: { email: owner.email, sessionRevoked: true },
          actor: { type: 'user', id: row.user_id, label: owner.email },
        });
      }
    })();
    throw new AppError('TOKEN_INVALID', { message: 'This refresh token was already used; the session has been revoked.' });
  }
  if (Date.parse(row.expires_at) <= now) throw new AppError('TOKEN_EXPIRED');
  const claimed = deps.db
    .prepare('UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL')
    .run(iso(now), sha256Hex(refreshToken));
  if (claimed.changes !== 1) throw new AppError('TOKEN_INVALID');
  const user = deps.db
    .prepare('SELECT id, organization_id, email, password_hash, role FROM users WHERE id = ?')
    .get(row.user_id) as UserRow | undefined;
  if (!user) throw new AppError('TOKEN_INVALID');
  return issuePair(deps, user, row.session_id);
}

export function logout(deps: CoreDeps, p: Principal): void {
  if (!p.sessionId) throw new AppError('TOKEN_INVALID');
  deps.db.prepare('UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(iso(deps.clock.now()), p.sessionId);
}

/** Resolves a Bearer token to a principal; the session must still be live, so logout takes effect at once. */
export async function authenticateBearer(
  deps: CoreDeps,
  token: string,
  environment: 'sandbox' | 'live',
): Promise<Principal> {
  const claims = await verifyAccessToken(deps, token);
  const s = deps.db.prepare('SELECT revoked_at FROM sessions WHERE id = ?').get(claims.sessionId) as
    | { revoked_at: string | null }
    | undefined;
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
