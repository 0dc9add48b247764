// Verification routes (interface §4.1): submit with an Idempotency-Key, poll one, list. The reads send the stored
// record JSON as it is (sendJsonText).
import type { FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../../src-shared/app-error';
import { ErrorBodySchema, listEnvelope } from '../../../src-shared/schemas/common';
import {
  AccountRequestSchema,
  VerificationListQuerySchema,
  VerificationRecordSchema,
} from '../../../src-shared/schemas/verification';
import { validateIdempotencyKey, type IdempotentResponse } from '../../core/idempotency/idempotency';
import { getVerificationJson, listVerificationsJson } from '../../core/verification/records';
import { submitOnce } from '../../core/verification/verification-service';
import type { VerificationKind } from '../../core/verification/types';
import { principalOf } from '../auth';
import type { HttpDoor } from '../app';

const errors = { 401: ErrorBodySchema, 409: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema };
export const IdemHeaders = z.object({ 'idempotency-key': z.string().optional().meta({ description: 'Required: 1 to 255 printable ASCII characters.' }) });

/**
 * Sends JSON text we built from stored records without the route's serializer: the response schema still
 * describes the body (OpenAPI), but parsing, validating and re-serialising records written by our own code from
 * validated objects (core/verification/records.ts) would only spend CPU on each read.
 */
function sendJsonText(reply: FastifyReply, json: string) {
  reply.code(200).type('application/json; charset=utf-8');
  return reply.serializer((s: unknown) => s as string).send(json);
}

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
    async (req, reply) => {
      const p = principalOf(req);
      const q = req.query;
      const page = listVerificationsJson(rt.verification.deps.db, p.organizationId, p.environment, q);
      const pagination = { total: page.total, limit: q.limit, offset: q.offset, hasMore: q.offset + page.data.length < page.total };
      return sendJsonText(reply, `{"data":[${page.data.join(',')}],"pagination":${JSON.stringify(pagination)}}`);
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
    async (req, reply) => {
      const p = principalOf(req);
      const json = getVerificationJson(rt.verification.deps.db, p.organizationId, p.environment, req.params.id);
      if (json === null) throw new AppError('NOT_FOUND', { message: 'No verification with this id exists.' });
      return sendJsonText(reply, json);
    },
  );
}
