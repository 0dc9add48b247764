// Verification routes (interface §4.1): submit with an Idempotency-Key, poll one, list.
import type { FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBodySchema, listEnvelope, toEnvelope } from '../../../src-shared/schemas/common';
import {
  AccountRequestSchema,
  VerificationListQuerySchema,
  VerificationRecordSchema,
} from '../../../src-shared/schemas/verification';
import { validateIdempotencyKey, type IdempotentResponse } from '../../core/idempotency/idempotency';
import { getOne, list, submitOnce } from '../../core/verification/verification-service';
import type { VerificationKind } from '../../core/verification/types';
import { principalOf } from '../auth';
import type { HttpDoor } from '../app';

const errors = { 401: ErrorBodySchema, 409: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema };
export const IdemHeaders = z.object({ 'idempotency-key': z.string().optional().meta({ description: 'Required: 1 to 255 printable ASCII characters.' }) });

/** Sends a stored (or just stored) response as is, marking replays. */
export function sendStored(reply: FastifyReply, res: IdempotentResponse) {
  reply.code(res.statusCode).type('application/json; charset=utf-8');
  if (res.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.serializer((s: unknown) => s as string).send(res.body);
}

export function submitRoute(
  door: HttpDoor,
  kind: VerificationKind,
  body: z.ZodType,
  summary: string,
  opts: { bodyLimit?: number } = {},
) {
  const { app, rt } = door;
  app.withTypeProvider<ZodTypeProvider>().post(
    `/verify/${kind}`,
    {
      onRequest: door.auth('apiKey'),
      ...(opts.bodyLimit ? { bodyLimit: opts.bodyLimit } : {}),
      schema: {
        summary,
        tags: ['verification'],
        security: [{ apiKey: [] }],
        headers: IdemHeaders,
        body,
        response: {
          200: VerificationRecordSchema,
          202: VerificationRecordSchema.partial(),
          402: ErrorBodySchema,
          403: ErrorBodySchema,
          ...(opts.bodyLimit ? { 413: ErrorBodySchema } : {}),
          ...errors,
        },
      },
    },
    async (req, reply) => {
      const key = validateIdempotencyKey(req.headers['idempotency-key']);
      return sendStored(reply, await submitOnce(rt.verification, principalOf(req), kind, req.body as { mode?: 'async' }, key));
    },
  );
}

export function registerVerifyRoutes(door: HttpDoor): void {
  const { app, rt } = door;
  submitRoute(door, 'account', AccountRequestSchema, 'Verify a bank account');

  app.withTypeProvider<ZodTypeProvider>().get(
    '/verify',
    {
      onRequest: door.auth('apiKey'),
      schema: {
        summary: 'List past verifications',
        tags: ['verification'],
        security: [{ apiKey: [] }],
        querystring: VerificationListQuerySchema,
        response: { 200: listEnvelope(VerificationRecordSchema), ...errors },
      },
    },
    async (req) => {
      return toEnvelope(list(rt.verification, principalOf(req), req.query), req.query);
    },
  );

  app.withTypeProvider<ZodTypeProvider>().get(
    '/verify/:id',
    {
      onRequest: door.auth('apiKey'),
      schema: {
        summary: 'Get one verification (poll while pending)',
        tags: ['verification'],
        security: [{ apiKey: [] }],
        params: z.object({ id: z.string().max(100) }),
        response: { 200: VerificationRecordSchema, 404: ErrorBodySchema, ...errors },
      },
    },
    async (req) => getOne(rt.verification, principalOf(req), req.params.id),
  );
}
