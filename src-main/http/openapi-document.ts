// The OpenAPI document, built when it is first asked for (GET /api/v1/openapi.json) instead of at start: loading
// @fastify/swagger's generator (and the YAML library it requires) was a tenth of a cold start (docs/performance.md,
// "Cold start"). At start the live app only records each route as it is added, exactly as @fastify/swagger's own
// onRoute hook would (HEAD routes left out, as it does without `exposeHeadRoutes`); the first request replays those
// routes, in the same order, into a Fastify instance of their own that has @fastify/swagger registered with the
// options below, and asks it for the document. That instance never listens; the document is kept.
import type { FastifyInstance, FastifyServerOptions, RouteOptions } from 'fastify';
import type { SwaggerOptions } from '@fastify/swagger';
import type { CoreRuntime } from '../core/runtime';
import { listPublicFixtures } from '../core/sandbox-catalogue';
import { openApiTransforms } from './openapi';

/** The compilers the live app uses (given to the document's instance too, so Fastify loads no others). */
export type SchemaCompilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

function swaggerOptions(rt: CoreRuntime): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Verification Console API',
        version: '1.0.0',
        description: 'B2B account, phone and identity verification, bank routing checks and signed webhooks.',
      },
      servers: [{ url: '/', description: 'The service that serves this document' }],
      tags: [
        { name: 'auth', description: 'Console sessions: sign in, rotate the refresh token, sign out (Bearer tokens).' },
        { name: 'keys', description: 'API keys of the organization, one environment each (OWNER and ADMIN).' },
        { name: 'verification', description: 'Account, phone, identity, address and Ghana Card facial checks; idempotent, billed in live.' },
        { name: 'billing', description: 'The wallet and the usage records of live checks.' },
        { name: 'webhooks', description: 'Webhook endpoints and their signed deliveries.' },
        { name: 'routing', description: 'BIC, ABA routing number, correspondent and batch checks.' },
        { name: 'sandbox', description: 'The documented sandbox test data.' },
        { name: 'audit', description: 'The append-only, hash-chained audit trail of the organization (an extension; OWNER and ADMIN).' },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
    ...openApiTransforms({ fixtures: () => listPublicFixtures(rt) }),
  };
}

/**
 * Starts recording the routes added to `app` from now on (call it where @fastify/swagger used to be registered:
 * after the hooks that complete route schemas, before any route) and returns the document's builder.
 */
export function openApiDocumentOf(app: FastifyInstance, rt: CoreRuntime, compilers: SchemaCompilers): () => Promise<unknown> {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    if (route.method === 'HEAD') return;
    routes.push(route);
  });
  let document: Promise<unknown> | null = null;
  const build = async (): Promise<unknown> => {
    const [{ default: Fastify }, { default: swagger }] = await Promise.all([import('fastify'), import('@fastify/swagger')]);
    const doc = Fastify({ logger: false, schemaController: { compilersFactory: compilers } });
    try {
      await doc.register(swagger, swaggerOptions(rt));
      // A route as recorded carries its full URL (prefix included), which the root instance takes as it is.
      for (const route of routes) doc.route({ ...route });
      await doc.ready();
      return doc.swagger();
    } finally {
      await doc.close();
    }
  };
  return () =>
    (document ??= build().catch((err: unknown) => {
      document = null;
      throw err;
    }));
}
