// Access tokens: HS256 JWTs signed with a per-installation secret that never leaves the main process.
// The algorithm, issuer and audience are pinned on verification. Verification is synchronous HMAC (node:crypto,
// microseconds): jose verifies through WebCrypto, whose jobs queue on libuv's thread pool, where a few slow
// password hashes could make every Bearer request wait (issue 16). jose still signs (a login's slow path).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SignJWT } from 'jose';
import { AppError } from '../../../src-shared/app-error';
import type { Role } from '../../../src-shared/schemas/auth';
import type { CoreDeps } from '../context';
import { randomHex } from './secrets';
import type { SqlQueries } from '../../store/sql-port';

export const ISSUER = 'verification-console';
export const AUDIENCE = 'verification-console-api';
export const ACCESS_TTL_SECONDS = 15 * 60;

export interface AccessClaims {
  userId: string;
  sessionId: string;
  organizationId: string;
  role: Role;
}

/** The signing key of each store (keyed by its port): read once, then kept. */
const secretCache = new WeakMap<object, Uint8Array>();

const READ_SECRET = "SELECT value FROM settings WHERE key = 'jwt_secret'";

async function signingKey(deps: Pick<CoreDeps, 'sql'>): Promise<Uint8Array> {
  const cached = secretCache.get(deps.sql);
  if (cached) return cached;
  let hex = (await deps.sql.get<{ value: string }>(READ_SECRET))?.value;
  if (!hex) {
    // The first token of the installation: a new secret, unless another sign-in (or instance) stored one first.
    const fresh = randomHex(32);
    const write = async (tx: SqlQueries) => {
      await tx.run("INSERT INTO settings (key, value) VALUES ('jwt_secret', ?) ON CONFLICT (key) DO NOTHING", [fresh]);
      return (await tx.get<{ value: string }>(READ_SECRET))!.value;
    };
    hex = deps.sql.inTransaction ? await write(deps.sql) : await deps.sql.transaction(write);
  }
  const key = Buffer.from(hex, 'hex');
  secretCache.set(deps.sql, key);
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
    .sign(await signingKey(deps));
}

const B64URL = /^[A-Za-z0-9_-]+$/;

function jsonSegment(segment: string): Record<string, unknown> {
  if (!B64URL.test(segment)) throw new AppError('TOKEN_INVALID');
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    throw new AppError('TOKEN_INVALID');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new AppError('TOKEN_INVALID');
  return v as Record<string, unknown>;
}

/**
 * Verifies a compact HS256 JWT the way jose's jwtVerify did with `algorithms: ['HS256']`, the pinned issuer and
 * audience and the required claims: the header must say HS256 (no `none`, no other algorithm, no `crit`), the
 * signature is checked in constant time before any claim is trusted, then exp (expired when `exp <= now`), nbf,
 * iat, iss and aud. Synchronous, so it never waits on a thread pool; `key` is the store's signing key
 * (verifyAccessToken reads it once, then takes it from its cache).
 */
export function verifyAccessTokenSync(deps: Pick<CoreDeps, 'clock'>, token: string, key: Uint8Array): AccessClaims {
  const parts = token.split('.');
  if (parts.length !== 3) throw new AppError('TOKEN_INVALID');
  const [h, p, sig] = parts as [string, string, string];
  const header = jsonSegment(h);
  if (header['alg'] !== 'HS256' || 'crit' in header || 'b64' in header) throw new AppError('TOKEN_INVALID');
  if (!B64URL.test(sig)) throw new AppError('TOKEN_INVALID');
  const given = Buffer.from(sig, 'base64url');
  const expected = createHmac('sha256', key).update(`${h}.${p}`).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new AppError('TOKEN_INVALID');
  const payload = jsonSegment(p);
  for (const claim of ['sub', 'exp', 'sid', 'org', 'role']) if (!(claim in payload)) throw new AppError('TOKEN_INVALID');
  const now = Math.floor(deps.clock.now() / 1000);
  const { exp, nbf, iat, iss, aud } = payload;
  if (typeof exp !== 'number' || (nbf !== undefined && typeof nbf !== 'number') || (iat !== undefined && typeof iat !== 'number'))
    throw new AppError('TOKEN_INVALID');
  if (iss !== ISSUER) throw new AppError('TOKEN_INVALID');
  if (!(aud === AUDIENCE || (Array.isArray(aud) && aud.includes(AUDIENCE)))) throw new AppError('TOKEN_INVALID');
  if (typeof nbf === 'number' && nbf > now) throw new AppError('TOKEN_INVALID');
  if (exp <= now) throw new AppError('TOKEN_EXPIRED');
  const role = payload['role'];
  if (typeof payload['sub'] !== 'string' || typeof payload['sid'] !== 'string' || typeof payload['org'] !== 'string')
    throw new AppError('TOKEN_INVALID');
  if (role !== 'OWNER' && role !== 'ADMIN' && role !== 'DEVELOPER') throw new AppError('TOKEN_INVALID');
  return { userId: payload['sub'], sessionId: payload['sid'], organizationId: payload['org'], role };
}

/** Verifies an access token with the store's signing key; it settles without waiting on any thread pool. */
export async function verifyAccessToken(deps: CoreDeps, token: string): Promise<AccessClaims> {
  return verifyAccessTokenSync(deps, token, secretCache.get(deps.sql) ?? (await signingKey(deps)));
}
