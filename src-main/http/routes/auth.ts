// Session routes (interface §4.5, decisions §6).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z as zod } from 'zod';
import { LoginRequestSchema, RefreshRequestSchema, TokenPairSchema } from '../../../src-shared/schemas/auth';
import { ErrorBodySchema } from '../../../src-shared/schemas/common';
import { login, logout, refresh } from '../../core/auth/sessions';
import { principalOf } from '../auth';
import type { HttpDoor } from '../app';

export function registerAuthRoutes(door: HttpDoor): void {
  const { app, rt } = door;
  const z = app.withTypeProvider<ZodTypeProvider>();
  z.post(
    '/auth/login',
    {
      schema: {
        summary: 'Sign in',
        operationId: 'login',
        description:
          'Exchanges the email and password of a console user for an access token (Bearer, 15 minutes) and a refresh token. Unknown emails and wrong passwords get the same answer; repeated failures for one account, or from one client address, answer 429 `TOO_MANY_LOGIN_ATTEMPTS` with `Retry-After`.',
        tags: ['auth'],
        security: [],
        responseDescriptions: { 200: 'Signed in: the token pair and the user.' },
        body: LoginRequestSchema,
        response: { 200: TokenPairSchema, 401: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema },
      },
    },
    async (req) => login(rt.deps, req.body.email, req.body.password, { ip: req.ip }),
  );
  z.post(
    '/auth/refresh',
    {
      schema: {
        summary: 'Rotate the refresh token',
        operationId: 'refreshSession',
        description:
          'Trades a refresh token for a new token pair. Each refresh token works once: a reused one revokes its whole session (401 `TOKEN_INVALID`).',
        tags: ['auth'],
        security: [],
        responseDescriptions: { 200: 'A new token pair; the refresh token sent is now spent.' },
        body: RefreshRequestSchema,
        response: { 200: TokenPairSchema, 401: ErrorBodySchema, 422: ErrorBodySchema },
      },
    },
    async (req) => refresh(rt.deps, req.body.refreshToken),
  );
  z.post(
    '/auth/logout',
    {
      onRequest: door.auth('bearer'),
      schema: {
        summary: 'Sign out',
        operationId: 'logout',
        description: 'Ends the session of the Bearer token: its access tokens and its refresh token stop working at once.',
        tags: ['auth'],
        security: [{ bearer: [] }],
        responseDescriptions: { 204: 'Signed out; the session is revoked.' },
        response: { 204: zod.null().meta({ description: 'Signed out' }), 401: ErrorBodySchema },
      },
    },
    async (req, reply) => {
      await logout(rt.deps, principalOf(req));
      return reply.code(204).send(null);
    },
  );
}
