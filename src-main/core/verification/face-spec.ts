// Ghana Card facial verification (decisions §4): a selfie (base64 JPEG/PNG, at most 2 MB decoded) checked against
// the card holder's photo. Every failed check is FACE_MATCH_FAILED with one of six messages (interface §7.3 rule 4).
import { createHash } from 'node:crypto';
import { AppError } from '../../../src-shared/app-error';
import { faceFormatFailure, normalizeIdNumber } from '../../../src-shared/identity-rules';
import { MAX_SELFIE_BYTES, MAX_SELFIE_LABEL, type FaceRequest } from '../../../src-shared/schemas/verification-more';
import type { KindSpecExtras } from './engine';
import type { FieldIssue, KindSpec } from './types';
import { serviceKey } from '../../../src-shared/services';
import { imageKind } from '../../../src-shared/image-kind';

// The console refuses a non-image with the same rule before sending (src-shared/image-kind.ts).
export { imageKind };

const DATA_URL = /^data:image\/(png|jpeg|jpg);base64,/i;

function base64Body(image: string): string {
  return image.replace(DATA_URL, '').replace(/\s+/g, '');
}

/** Decoded size computed from the base64 length, so an oversized image is refused before it is decoded. */
export function decodedLength(b64: string): number {
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - padding;
}

/** Layer 1 for the selfie: too large → 413 (thrown), not base64 of a JPEG/PNG → a 422 issue. */
export function selfieIssues(image: string): FieldIssue[] {
  const b64 = base64Body(image);
  if (b64.length === 0 || b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) {
    return [{ field: 'selfieImage', message: 'selfieImage must be base64-encoded JPEG or PNG data.' }];
  }
  if (decodedLength(b64) > MAX_SELFIE_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', { message: `selfieImage is larger than ${MAX_SELFIE_LABEL} once decoded.` });
  }
  const head = Buffer.from(b64.slice(0, 24), 'base64');
  if (imageKind(head) === null) return [{ field: 'selfieImage', message: 'selfieImage is not a JPEG or PNG image.' }];
  return [];
}

export const faceSpec: KindSpec<FaceRequest> & KindSpecExtras<FaceRequest> = {
  kind: 'face',
  verificationType: () => 'GH_CARD_FACE',
  identifier: (r) => normalizeIdNumber(r.idNumber),
  country: (r) => r.country,
  supported: (r) => r.country === 'GH',
  // The selfie is not kept (see storedRequest), so there is nothing for a queued job to send later.
  asyncAllowed: () => false,
  issues: (r) => selfieIssues(r.selfieImage),
  formatFailure: (r) => faceFormatFailure(r.idNumber),
  serviceKey: () => serviceKey.face,
  baseFields: () => ({}),
  answerFields: () => ({}),
  // A biometric image is personal data and large: records keep only its digest and size.
  storedRequest: (r) => {
    const bytes = Buffer.from(base64Body(r.selfieImage), 'base64');
    return { country: r.country, idNumber: r.idNumber, selfieSha256: createHash('sha256').update(bytes).digest('hex'), selfieBytes: bytes.length };
  },
};
