// Billing routes (decisions §9): the organization's wallet and its usage records (one per charge or reversal).
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ErrorBodySchema, listEnvelope } from '../../../src-shared/schemas/common';
import { UsageQuerySchema, UsageRecordSchema, WalletSchema } from '../../../src-shared/schemas/billing';
import { getWallet, listUsage } from '../../core/billing/billing';
import { principalOf } from '../auth';
import type { HttpDoor } from '../app';
import { toEnvelope } from '../../../src-shared/schemas/common';

const errors = { 401: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema };

export function registerBillingRoutes(door: HttpDoor): void {
  const { app, rt } = door;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/client/wallet',
    {
      onRequest: door.auth('either'),
      schema: {
        summary: 'The organization wallet (live billing)',
        tags: ['billing'],
        security: [{ apiKey: [] }, { bearer: [] }],
        response: { 200: WalletSchema, ...errors },
      },
    },
    async (req) => getWallet(rt.deps, principalOf(req).organizationId),
  );

  app.withTypeProvider<ZodTypeProvider>().get(
    '/client/usage',
    {
      onRequest: door.auth('either'),
      schema: {
        summary: 'Usage records: one per charge or reversal, newest first',
        tags: ['billing'],
        security: [{ apiKey: [] }, { bearer: [] }],
        querystring: UsageQuerySchema,
        response: { 200: listEnvelope(UsageRecordSchema), ...errors },
      },
    },
    async (req) => {
      return toEnvelope(listUsage(rt.deps, principalOf(req).organizationId, req.query), req.query);
    },
  );
}
