// Phone, identity, Ghana Card facial and address verification routes (interface §2.4–§2.5, decisions §4). All go
// through the shared submit path; the face route alone raises the body limit to carry a 2 MB selfie.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBodySchema } from '../../../src-shared/schemas/common';
import { VerificationRecordSchema } from '../../../src-shared/schemas/verification';
import {
  AddressRequestSchema,
  FACE_BODY_LIMIT,
  FaceRequestSchema,
  IdentityRequestSchema,
  PhoneRequestSchema,
} from '../../../src-shared/schemas/verification-more';
import { submit } from '../../core/verification/verification-service';
import { principalOf } from '../auth';
import type { HttpDoor } from '../app';
import { sendIdempotent, submitRoute } from './verify';

const errors = { 401: ErrorBodySchema, 402: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema, 422: ErrorBodySchema, 429: ErrorBodySchema };

export function registerVerifyMoreRoutes(door: HttpDoor): void {
  submitRoute(door, 'phone', '/verify/phone', PhoneRequestSchema, 'Verify a phone number');
  submitRoute(door, 'identity', '/verify/identity', IdentityRequestSchema, 'Verify an identity document');
  submitRoute(door, 'address', '/verify/address', AddressRequestSchema, 'Create an address verification job (always async: 202)');

  // submitRoute has no per-route options; this is its body with bodyLimit raised for the selfie.
  const { app, rt } = door;
  app.withTypeProvider<ZodTypeProvider>().post(
    '/verify/face',
    {
      onRequest: door.auth('apiKey'),
      bodyLimit: FACE_BODY_LIMIT,
      schema: {
        summary: 'Ghana Card facial verification',
        tags: ['verification'],
        security: [{ apiKey: [] }],
        headers: z.object({ 'idempotency-key': z.string().optional().meta({ description: 'Required: 1 to 255 printable ASCII characters.' }) }),
        body: FaceRequestSchema,
        response: { 200: VerificationRecordSchema, 413: ErrorBodySchema, ...errors },
      },
    },
    async (req, reply) =>
      sendIdempotent(rt, req, reply, '/verify/face', async () => {
        const s = await submit(rt.verification, principalOf(req), 'face', req.body);
        return { statusCode: s.statusCode, body: s.body, persist: s.persist };
      }),
  );
}
