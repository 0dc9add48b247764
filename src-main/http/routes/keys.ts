// API key management (interface §4.4, decisions §6): OWNER and ADMIN only.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBodySchema, listEnvelope, PageQuerySchema, toEnvelope } from '../../../src-shared/schemas/common';
import { ApiKeySchema, CreatedKeySchema, CreateKeyRequestSchema, RevokedKeySchema } from '../../../src-shared/schemas/keys';
import { createKey, listKeysFor, revokeKeyFor } from '../../core/keys/keys-service';
import { principalOf } from '../auth';
import type { HttpDoor } from '../app';

export function registerKeyRoutes(door: HttpDoor): void {
  const { app, rt } = door;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const errors = { 401: ErrorBodySchema, 403: ErrorBodySchema, 422: ErrorBodySchema };
  r.post(
    '/client/api-keys',
    {
      onRequest: door.auth('either'),
      schema: {
        summary: 'Create an API key',
        operationId: 'createApiKey',
        description: 'Creates a key for one environment (sandbox or live). The full key is in this answer only; store it now. OWNER and ADMIN only.',
        tags: ['keys'],
        security: [{ bearer: [] }],
        responseDescriptions: { 201: 'The key, with its secret `key` shown this once.' },
        body: CreateKeyRequestSchema, response: { 201: CreatedKeySchema, ...errors } },
    },
    async (req, reply) => reply.code(201).send(await createKey(rt.deps, principalOf(req), req.body)),
  );
  r.get(
    '/client/api-keys',
    {
      onRequest: door.auth('either'),
      schema: {
        summary: 'List API keys',
        operationId: 'listApiKeys',
        description: 'The keys of the organization, newest first, without their secrets. OWNER and ADMIN only.',
        tags: ['keys'],
        security: [{ bearer: [] }],
        responseDescriptions: { 200: 'One page of keys.' },
        querystring: PageQuerySchema, response: { 200: listEnvelope(ApiKeySchema), ...errors } },
    },
    async (req) => {
      return toEnvelope(await listKeysFor(rt.deps, principalOf(req), req.query), req.query);
    },
  );
  r.delete(
    '/client/api-keys/:id',
    {
      onRequest: door.auth('either'),
      schema: {
        summary: 'Revoke an API key',
        operationId: 'revokeApiKey',
        description: 'Revokes a key at once: requests that carry it get 401 `API_KEY_REVOKED`. OWNER and ADMIN only.',
        tags: ['keys'],
        security: [{ bearer: [] }],
        responseDescriptions: { 200: 'The key is revoked.' },
        params: z.object({ id: z.string().max(100) }), response: { 200: RevokedKeySchema, 404: ErrorBodySchema, ...errors } },
    },
    async (req) => revokeKeyFor(rt.deps, principalOf(req), req.params.id),
  );
}
