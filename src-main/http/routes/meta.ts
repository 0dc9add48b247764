// Service metadata: health, the OpenAPI description, and the sandbox test data catalogue (decisions §10).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ErrorBodySchema } from '../../../src-shared/schemas/common';
import { SandboxFixtureListSchema } from '../../../src-shared/schemas/sandbox';
import { listPublicFixtures } from '../../core/sandbox-catalogue';
import type { HttpDoor } from '../app';
import { storageHealthOf } from '../../store/storage-faults';

export function registerMetaRoutes(door: HttpDoor): void {
  const { app, rt } = door;
  const r = app.withTypeProvider<ZodTypeProvider>();
  // `degraded` while the store refuses writes (disk full, read-only): reads still answer, so the listener is up.
  r.get('/health', { schema: { hide: true } }, async () => {
    // SQLite engine only: the health of the store's file (none on PostgreSQL, whose server watches its own disk).
    const storage = storageHealthOf(rt.deps.db)?.status();
    if (storage?.status === 'degraded') {
      return { status: 'degraded', version: rt.info().version, reason: `storage ${storage.reason}`, message: storage.message, since: storage.since, freeBytes: storage.freeBytes };
    }
    return { status: 'ok', version: rt.info().version };
  });
  r.get('/openapi.json', { schema: { hide: true } }, async () => door.openApiDocument());
  r.get(
    '/sandbox/fixtures',
    {
      onRequest: door.auth('apiKey'),
      schema: {
        summary: 'List the documented sandbox test identifiers',
        operationId: 'listSandboxFixtures',
        description:
          'Every documented sandbox test identifier (decisions §10): a request body that can be POSTed as it is to the endpoint of its `kind`, and the result it gives. Any API key.',
        responseDescriptions: { 200: 'The whole catalogue (not paginated).' },
        tags: ['sandbox'],
        security: [{ apiKey: [] }],
        response: { 200: SandboxFixtureListSchema, 401: ErrorBodySchema },
      },
    },
    async () => ({ data: listPublicFixtures(rt) }),
  );
}
