// Access tokens: HS256 JWTs signed with a per-installation secret that never leaves the main process.
// The algorithm, issuer and audience are pinned on verification.
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from '../../../src-shared/app-error';
import type { Role } from '../../../src-shared/schemas/auth';
import type { CoreDeps } from '../context';
import { randomHex } from './secrets';

export const ISSUER = 'verification-console';
export const AUDIENCE = 'verification-console-api';
export const ACCESS_TTL_SECONDS = 15 * 60;

export interface AccessClaims {
  userId: string;
  sessionId: string;
  organizationId: string;
  role: Role;
}

const secretCache = new WeakMap<object, Uint8Array>();

function signingKey(deps: CoreDeps): Uint8Array {
  const cached = secretCache.get(deps.db);
  if (cached) return cached;
  const row = deps.db.prepare("SELECT value FROM settings WHERE key = 'jwt_secret'").get() as { value: string } | undefined;
  let hex = row?.value;
  if (!hex) {
    hex = randomHex(32);
    deps.db.prepare("INSERT OR IGNORE INTO settings (key, value) VALUES ('jwt_secret', ?)").run(hex);
    hex = (deps.db.prepare("SELECT value FROM settings WHERE key = 'jwt_secret'").get() as { value: string }).value;
  }
  const key = Buffer.from(hex, 'hex');
  secretCache.set(deps.db, key);
  return key;
}

export async function signAccessToken(deps: CoreDeps, c: AccessClaims): Promise<string> {
  const now = Math.floor(deps.clock.now() / 1000);
  return new SignJWT({ sid: c.sessionId, org: c.organizationId, role: c.role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(c.userId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + ACCESS_TTL_SECONDS)
    .sign(signingKey(deps));
}

export async function verifyAccessToken(deps: CoreDeps, token: string): Promise<AccessClaims> {
  try {
    const { payload } = await jwtVerify(token, signingKey(deps), {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: new Date(deps.clock.now()),
      requiredClaims: ['sub', 'exp', 'sid', 'org', 'role'],
    });
    const role = payload['role'];
    if (typeof payload.sub !== 'string' || typeof payload['sid'] !== 'string' || typeof payload['org'] !== 'string')
      throw new AppError('TOKEN_INVALID');
    if (role !== 'OWNER' && role !== 'ADMIN' && role !== 'DEVELOPER') throw new AppError('TOKEN_INVALID');
    return { userId: payload.sub, sessionId: payload['sid'], organizationId: payload['org'], role };
  } catch (e) {
    if (e instanceof AppError) throw e;
    if (e instanceof joseErrors.JWTExpired) throw new AppError('TOKEN_EXPIRED');
    throw new AppError('TOKEN_INVALID');
  }
}
