// Credential checks for the HTTP door: X-API-Key for verification routes, Bearer tokens for management routes,
// either for /client/webhooks. The principal is attached to the request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../src-shared/app-error';
import { authenticateBearer } from '../core/auth/sessions';
import { authenticateApiKey, cachedApiKeyPrincipal } from '../core/keys/keys-service';
import type { Principal } from '../core/principal';
import type { CoreRuntime } from '../core/runtime';
import type { RequestBudget } from '../core/limits/request-budget';
import { currentAuditContext } from '../core/audit/audit-context';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new AppError('API_KEY_MISSING');
  return req.principal;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  if (Array.isArray(v)) throw new AppError('API_KEY_INVALID', { message: 'Send exactly one X-API-Key header.' });
  return v;
}

function bearerToken(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  // The scheme's name is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are Bearer.
  const m = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(h);
  if (!m) throw new AppError('TOKEN_INVALID');
  return m[1];
}

function environmentHeader(req: FastifyRequest): 'sandbox' | 'live' {
  const e = req.headers['x-environment'];
  if (e === undefined) return 'sandbox';
  if (e === 'sandbox' || e === 'live') return e;
  throw new AppError('VALIDATION_ERROR', { details: [{ field: 'X-Environment', message: 'must be sandbox or live' }] });
}

export type AuthMode = 'apiKey' | 'bearer' | 'either';

function refuseOverBudget(reply: FastifyReply, wait: number): void {
  if (wait > 0) {
    reply.header('Retry-After', String(wait));
    throw new AppError('RATE_LIMITED', { retryAfterSeconds: wait });
  }
}

export function authHook(rt: CoreRuntime, mode: AuthMode, limiter: RequestBudget) {
  /** Attaches the principal and spends one request of its budget: synchronous when the budget is in memory. */
  const admit = (req: FastifyRequest, reply: FastifyReply, p: Principal): Promise<void> | undefined => {
    req.principal = p;
    const audit = currentAuditContext();
    if (audit) audit.principal = p;
    const wait = limiter.take(p.keyId ?? p.userId ?? p.organizationId);
    if (typeof wait !== 'number') return wait.then((w) => refuseOverBudget(reply, w));
    refuseOverBudget(reply, wait);
    return undefined;
  };
  // API keys: a callback hook. A key in the cache is answered synchronously (no promise per request); a key the
  // cache does not know (or an engine without the cache) is read from the store first.
  if (mode === 'apiKey') {
    return (req: FastifyRequest, reply: FastifyReply, next: (err?: Error) => void): void => {
      /** The key to look up in the store, when the cache did not know it. */
      let lookUp: string | undefined;
      let admitted: Promise<void> | undefined;
      try {
        const raw = headerValue(req.headers['x-api-key']);
        const cached = cachedApiKeyPrincipal(rt.deps, raw);
        if (cached) admitted = admit(req, reply, cached);
        else lookUp = raw;
      } catch (err) {
        next(err as Error);
        return;
      }
      if (lookUp === undefined) {
        if (admitted) admitted.then(() => next(), (err: unknown) => next(err as Error));
        else next();
        return;
      }
      authenticateApiKey(rt.deps, lookUp)
        .then((p) => admit(req, reply, p))
        .then(
          () => next(),
          (err: unknown) => next(err as Error),
        );
    };
  }
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const key = headerValue(req.headers['x-api-key']);
    const token = bearerToken(req);
    if (mode === 'bearer') {
      if (!token) throw new AppError('TOKEN_INVALID', { message: 'Send an access token in the Authorization: Bearer header.' });
      await admit(req, reply, await authenticateBearer(rt.deps, token, environmentHeader(req)));
    } else if (token) {
      await admit(req, reply, await authenticateBearer(rt.deps, token, environmentHeader(req)));
    } else {
      await admit(req, reply, await authenticateApiKey(rt.deps, key));
    }
  };
}
