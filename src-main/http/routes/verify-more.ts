// Phone, identity, Ghana Card facial and address verification routes (interface §2.4–§2.5, decisions §4). All go
// through the shared submit route; the face route alone raises the body limit to carry a 2 MB selfie.
import {
  AddressRequestSchema,
  FACE_BODY_LIMIT,
  FaceRequestSchema,
  IdentityRequestSchema,
  PhoneRequestSchema,
} from '../../../src-shared/schemas/verification-more';
import type { HttpDoor } from '../app';
import { submitRoute } from './verify';

export function registerVerifyMoreRoutes(door: HttpDoor): void {
  submitRoute(door, 'phone', PhoneRequestSchema, 'Verify a phone number', {
    operationId: 'verifyPhone',
    description: 'Checks that a phone number is registered with a carrier and returns the subscriber on record.',
  });
  submitRoute(door, 'identity', IdentityRequestSchema, 'Verify an identity document', {
    operationId: 'verifyIdentity',
    description: 'Looks up an identity document in its registry; optional `validation` names and date of birth are compared with the holder.',
  });
  submitRoute(door, 'address', AddressRequestSchema, 'Create an address verification job (always async: 202)', {
    operationId: 'verifyAddress',
    description: 'Starts an address check; it always answers 202 with a pending record and finishes in the background.',
    answers: 'pending',
  });
  submitRoute(door, 'face', FaceRequestSchema, 'Ghana Card facial verification', {
    bodyLimit: FACE_BODY_LIMIT,
    operationId: 'verifyFace',
    description: 'Compares a selfie (base64 JPEG or PNG, up to 2 MB decoded) with the photo of a Ghana Card holder. Synchronous only: `mode: async` is refused (`ASYNC_NOT_SUPPORTED`).',
    answers: 'finished',
  });
}
