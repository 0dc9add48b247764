// Billing routes (decisions §9): the organization's wallet and its usage records (one per charge or reversal).
import type { FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../../src-shared/app-error';
import { ErrorBodySchema, listEnvelope } from '../../../src-shared/schemas/common';
import { UsageQuerySchema, UsageRecordSchema, WalletSchema } from '../../../src-shared/schemas/billing';
import { getWallet, listUsage } from '../../core/billing/billing';
import { principalOf } from '../auth';
import type { HttpDoor } from '../app';
import { toEnvelope } from '../../../src-shared/schemas/common';

const errors = { 401: ErrorBodySchema, 403: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema };

/** The wallet and usage are live billing data: a sandbox API key must not read them (issue 9: sandbox isolation). */
function billingOrganization(req: FastifyRequest): string {
  const p = principalOf(req);
  if (p.kind === 'apiKey' && p.environment === 'sandbox') {
    throw new AppError('FORBIDDEN', { message: 'Sandbox keys cannot read the wallet or usage. Use a live key or sign in.' });
  }
  return p.organizationId;
}

export function registerBillingRoutes(door: HttpDoor): void {
  const { app, rt } = door;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/client/wallet',
    {
      onRequest: door.auth('either'),
      schema: {
        summary: 'The organization wallet (live billing)',
        operationId: 'getWallet',
        description: 'The balance and status of the wallet that live checks are charged to. A sandbox key gets 403: billing is live-only.',
        responseDescriptions: { 200: 'The wallet.' },
        tags: ['billing'],
        security: [{ apiKey: [] }, { bearer: [] }],
        response: { 200: WalletSchema, ...errors },
      },
    },
    async (req) => getWallet(rt.deps, billingOrganization(req)),
  );

  app.withTypeProvider<ZodTypeProvider>().get(
    '/client/usage',
    {
      onRequest: door.auth('either'),
      schema: {
        summary: 'Usage records: one per charge or reversal, newest first',
        operationId: 'listUsage',
        description: 'One record per live charge or reversal, newest first, filtered by service, kind, verification or dates. A sandbox key gets 403.',
        responseDescriptions: { 200: 'One page of usage records.' },
        tags: ['billing'],
        security: [{ apiKey: [] }, { bearer: [] }],
        querystring: UsageQuerySchema,
        response: { 200: listEnvelope(UsageRecordSchema), ...errors },
      },
    },
    async (req) => {
      return toEnvelope(await listUsage(rt.deps, billingOrganization(req), req.query), req.query);
    },
  );
}
