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
        tags: ['auth'],
        body: LoginRequestSchema,
        response: { 200: TokenPairSchema, 401: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema },
      },
    },
    async (req) => login(rt.deps, req.body.email, req.body.password),
  );
  z.post(
    '/auth/refresh',
    {
      schema: {
        summary: 'Rotate the refresh token',
        tags: ['auth'],
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
      schema: { summary: 'Sign out', tags: ['auth'], security: [{ bearer: [] }], response: { 204: zod.null().meta({ description: 'Signed out' }), 401: ErrorBodySchema } },
    },
    async (req, reply) => {
      logout(rt.deps, principalOf(req));
      return reply.code(204).send(null);
    },
  );
}
