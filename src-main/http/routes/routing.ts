// Bank routing routes (interface §4.2, decisions §5): BIC, ABA routing number, correspondents (idempotent, billed
// in live) and the 100-item batch. Malformed identifiers are answers (200, valid:false), not 422s.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../../src-shared/app-error';
import { ErrorBodySchema } from '../../../src-shared/schemas/common';
import {
  BatchAnswerSchema,
  BatchRequestSchema,
  BicAnswerSchema,
  BicRequestSchema,
  CorrespondentsAnswerSchema,
  CorrespondentsRequestSchema,
  isBatchTooLarge,
  RoutingNumberAnswerSchema,
  RoutingNumberRequestSchema,
} from '../../../src-shared/schemas/routing';
import { validateIdempotencyKey } from '../../core/idempotency/idempotency';
import { answerBatch, answerBic, answerRoutingNumber, correspondentsOnce } from '../../core/routing/routing-service';
import { principalOf } from '../auth';
import type { HttpDoor } from '../app';
import { IdemHeaders, requireIdempotencyKey, sendStored } from './verify';

const errors = { 401: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema };
const billingErrors = { 402: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema };
const common = { tags: ['routing'], security: [{ apiKey: [] }] };

export function registerRoutingRoutes(door: HttpDoor): void {
  const { rt } = door;
  const app = door.app.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/verifications/bic',
    {
      onRequest: door.auth('apiKey'),
      schema: {
        ...common,
        summary: 'Validate a BIC/SWIFT code (ISO 9362)',
        operationId: 'checkBic',
        description: 'Checks the form of a BIC and looks it up in the routing directory. A malformed BIC is an answer (200, `valid: false`), not a 422.',
        responseDescriptions: { 200: 'The verdict, with the institution on file when there is one.' },
        body: BicRequestSchema, response: { 200: BicAnswerSchema, ...errors } },
    },
    async (req) => answerBic(rt.deps, principalOf(req), req.body),
  );

  app.post(
    '/verifications/routing-codes',
    {
      onRequest: door.auth('apiKey'),
      schema: {
        ...common,
        summary: 'Validate a US ABA routing number (9 digits, 3-7-1 checksum)',
        operationId: 'checkRoutingNumber',
        description: 'Checks the 3-7-1 checksum of an ABA routing number and looks it up in the directory. A malformed number is an answer (200, `valid: false`).',
        responseDescriptions: { 200: 'The verdict, with the institution on file when there is one.' },
        body: RoutingNumberRequestSchema,
        response: { 200: RoutingNumberAnswerSchema, ...errors },
      },
    },
    async (req) => answerRoutingNumber(rt.deps, principalOf(req), req.body),
  );

  app.post(
    '/verifications/correspondents',
    {
      onRequest: door.auth('apiKey'),
      preValidation: requireIdempotencyKey,
      schema: {
        ...common,
        summary: 'List the correspondent banks on file for a BIC, best first (billed in live)',
        operationId: 'listCorrespondents',
        description:
          'The correspondents of a BIC for a currency, best first. Idempotent: the `Idempotency-Key` header is required, and a retry with the same key and body replays the first answer (`Idempotent-Replayed: true`). Billed in live, except a malformed BIC or currency and, with no routing directory imported (neither correspondents nor BICs), the `failed` + `INCONCLUSIVE` non-answer.',
        responseDescriptions: { 200: 'The correspondents on file (possibly none).' },
        headers: IdemHeaders,
        body: CorrespondentsRequestSchema,
        response: { 200: CorrespondentsAnswerSchema, ...errors, ...billingErrors },
      },
    },
    async (req, reply) => {
      const key = validateIdempotencyKey(req.headers['idempotency-key']);
      return sendStored(reply, await correspondentsOnce(rt.deps, principalOf(req), req.body, key));
    },
  );

  app.post(
    '/verifications/batch',
    {
      onRequest: door.auth('apiKey'),
      // Before schema validation, so that 101 well-formed items are BATCH_TOO_LARGE rather than VALIDATION_ERROR.
      preValidation: async (req) => {
        if (isBatchTooLarge(req.body)) {
          const n = (req.body as { items: unknown[] }).items.length;
          throw new AppError('BATCH_TOO_LARGE', { details: [{ field: 'items', message: `holds ${n} items; split it into batches of at most 100` }] });
        }
      },
      schema: {
        ...common,
        summary: 'Validate up to 100 mixed BIC, routing-number and route items',
        operationId: 'checkBatch',
        description: 'Checks 1 to 100 items in one request, each answered like its single endpoint; more than 100 items is 422 `BATCH_TOO_LARGE`.',
        responseDescriptions: { 200: 'One result per item, in order, and the counts.' },
        body: BatchRequestSchema,
        response: { 200: BatchAnswerSchema, ...errors },
      },
    },
    async (req) => answerBatch(rt.deps, principalOf(req), req.body),
  );
}
