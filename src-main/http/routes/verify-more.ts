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
  submitRoute(door, 'phone', PhoneRequestSchema, 'Verify a phone number');
  submitRoute(door, 'identity', IdentityRequestSchema, 'Verify an identity document');
  submitRoute(door, 'address', AddressRequestSchema, 'Create an address verification job (always async: 202)');
  submitRoute(door, 'face', FaceRequestSchema, 'Ghana Card facial verification', { bodyLimit: FACE_BODY_LIMIT });
}
