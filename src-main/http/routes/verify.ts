// Verification routes (interface §4.1): submit with an Idempotency-Key, poll one, list. The reads send the stored
// record JSON as it is (sendJsonText).
import type { FastifyReply, FastifyRequest } from 'fastify';
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

/** The reads' answers besides their own; the idempotent POSTs add 409 (a key in use, or reused with another body). */
const errors = { 401: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema };
const postErrors = { ...errors, 409: ErrorBodySchema };
/**
 * Required on every idempotent POST. The document says so (generated clients make it mandatory); the check itself
 * runs in `requireIdempotencyKey` before schema validation, so a missing or bad key answers its own catalogue code
 * (IDEMPOTENCY_KEY_REQUIRED / _INVALID, with details) rather than a generic VALIDATION_ERROR.
 */
export const IdemHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    // Printable ASCII, not only spaces (api-decisions): the same rule as validateIdempotencyKey.
    .regex(/^[\x20-\x7e]*[\x21-\x7e][\x20-\x7e]*$/)
    .meta({ description: 'A unique key per operation: 1 to 255 printable ASCII characters. A retry with the same key and body replays the first answer for 24 hours.', example: 'order-8812-verify-1' }),
});

/** preValidation hook of the idempotent POSTs (see IdemHeaders). A callback hook: no promise per request. */
export function requireIdempotencyKey(req: FastifyRequest, _reply: FastifyReply, next: (err?: Error) => void): void {
  try {
    validateIdempotencyKey(req.headers['idempotency-key']);
  } catch (err) {
    next(err as Error);
    return;
  }
  next();
}

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
  opts: {
    bodyLimit?: number;
    operationId: string;
    description: string;
    /** Which answers the kind gives (OpenAPI lists only those): a finished record (200), a pending one (202), or both. */
    answers?: 'finished' | 'pending' | 'both';
  },
) {
  const { app, rt } = door;
  const answers = opts.answers ?? 'both';
  const finished = answers !== 'pending';
  const pending = answers !== 'finished';
  app.withTypeProvider<ZodTypeProvider>().post(
    `/verify/${kind}`,
    {
      onRequest: door.auth('apiKey'),
      ...(opts.bodyLimit ? { bodyLimit: opts.bodyLimit } : {}),
      preValidation: requireIdempotencyKey,
      schema: {
        summary,
        operationId: opts.operationId,
        description: `${opts.description} Idempotent: the \`Idempotency-Key\` header is required, and a retry with the same key and body replays the first answer (\`Idempotent-Replayed: true\`). Billed in live when the check gives an answer; never in the sandbox.`,
        responseDescriptions: {
          ...(finished ? { 200: 'The finished verification (status success, failed or error).' } : {}),
          ...(pending ? { 202: 'Accepted for asynchronous processing: a pending record; poll `GET /verify/{id}` or wait for the webhook event.' } : {}),
        },
        tags: ['verification'],
        security: [{ apiKey: [] }],
        headers: IdemHeaders,
        body,
        response: {
          ...(finished ? { 200: VerificationRecordSchema } : {}),
          ...(pending ? { 202: VerificationRecordSchema.partial() } : {}),
          402: ErrorBodySchema,
          403: ErrorBodySchema,
          ...(opts.bodyLimit ? { 413: ErrorBodySchema } : {}),
          ...postErrors,
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
  submitRoute(door, 'account', AccountRequestSchema, 'Verify a bank account', {
    operationId: 'verifyAccount',
    description: 'Checks a bank account in its corridor (bank lookup, name match, existence or format). `mode: async` answers 202 where the corridor allows it.',
  });

  app.withTypeProvider<ZodTypeProvider>().get(
    '/verify',
    {
      onRequest: door.auth('apiKey'),
      schema: {
        summary: 'List past verifications',
        operationId: 'listVerifications',
        description: 'The verifications of the credential\'s environment, newest first, filtered by type, status, country or dates.',
        responseDescriptions: { 200: 'One page of verification records.' },
        tags: ['verification'],
        security: [{ apiKey: [] }],
        querystring: VerificationListQuerySchema,
        response: { 200: listEnvelope(VerificationRecordSchema), ...errors },
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const q = req.query;
      const page = await listVerificationsJson(rt.verification.deps.sql, p.organizationId, p.environment, q, rt.verification.deps.longReads);
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
        operationId: 'getVerification',
        description: 'One verification record; poll it while its status is `pending`.',
        responseDescriptions: { 200: 'The verification record.' },
        tags: ['verification'],
        security: [{ apiKey: [] }],
        params: z.object({ id: z.string().max(100) }),
        response: { 200: VerificationRecordSchema, 404: ErrorBodySchema, ...errors },
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const json = await getVerificationJson(rt.verification.deps.sql, p.organizationId, p.environment, req.params.id);
      if (json === null) throw new AppError('NOT_FOUND', { message: 'No verification with this id exists.' });
      return sendJsonText(reply, json);
    },
  );
}
