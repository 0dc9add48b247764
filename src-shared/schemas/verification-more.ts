// Phone, identity, Ghana Card facial and address verification requests (interface §2.4–§2.5, decisions §4).
// Layer 1 only (types, required fields); corridor rules live in phone-markets.ts and identity-rules.ts.
import { z } from 'zod';
import { ModeSchema } from './verification';

/** Longest value of each field (the schemas below and the console's inputs, which stop typing there: one rule). */
export const FIELD_MAX = {
  phoneNumber: 32,
  networkCode: 20,
  idNumber: 40,
  personName: 100,
  addressLine: 200,
  city: 100,
  region: 100,
  postalCode: 20,
} as const;

const Country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
  .transform((c) => c.toUpperCase());

export const PhoneRequestSchema = z
  .strictObject({
    phoneNumber: z.string().trim().min(1).max(FIELD_MAX.phoneNumber),
    country: Country,
    networkCode: z.string().trim().max(FIELD_MAX.networkCode).optional(),
    mode: ModeSchema.optional(),
  })
  .meta({ id: 'PhoneVerificationRequest' });
export type PhoneRequest = z.infer<typeof PhoneRequestSchema>;

export const IdTypeSchema = z.enum(['national_id', 'drivers_license', 'passport', 'ghana_card']);

/** A calendar date, YYYY-MM-DD (a real day: 1990-02-30 is refused). */
export const IsoDateSchema = z.iso.date();

export const IdentityRequestSchema = z
  .strictObject({
    country: Country,
    idType: IdTypeSchema,
    idNumber: z.string().trim().min(1).max(FIELD_MAX.idNumber),
    validation: z
      .strictObject({
        firstName: z.string().trim().min(1).max(FIELD_MAX.personName).optional(),
        lastName: z.string().trim().min(1).max(FIELD_MAX.personName).optional(),
        dateOfBirth: IsoDateSchema.optional(),
      })
      .optional(),
    mode: ModeSchema.optional(),
  })
  .meta({ id: 'IdentityVerificationRequest' });
export type IdentityRequest = z.infer<typeof IdentityRequestSchema>;

/** Decoded selfie limit (decisions §4); base64 adds a third, plus JSON around it. */
export const MAX_SELFIE_BYTES = 2 * 1024 * 1024;
/** The limit as people read it, for every message that names it. */
export const MAX_SELFIE_LABEL = `${MAX_SELFIE_BYTES / 1024 / 1024} MB`;
/** The image types a selfie may be (checked by magic bytes on the service, by MIME type in the console). */
export const SELFIE_MIME_TYPES = ['image/jpeg', 'image/png'] as const;
export const FACE_BODY_LIMIT = 4 * 1024 * 1024;

export const FaceRequestSchema = z
  .strictObject({
    country: Country,
    idNumber: z.string().trim().min(1).max(FIELD_MAX.idNumber),
    selfieImage: z.string().min(1).meta({ description: 'Base64 JPEG or PNG (a data: URL prefix is accepted), at most 2 MB decoded.' }),
    // A common field of every verification request (interface §2.2); a facial check is synchronous only, so `async`
    // is answered ASYNC_NOT_SUPPORTED, as for a sync-only corridor (docs/api-decisions.md).
    mode: ModeSchema.optional(),
  })
  .meta({ id: 'FaceVerificationRequest' });
export type FaceRequest = z.infer<typeof FaceRequestSchema>;

export const AddressRequestSchema = z
  .strictObject({
    country: Country,
    addressLine1: z.string().trim().min(1).max(FIELD_MAX.addressLine),
    addressLine2: z.string().trim().min(1).max(FIELD_MAX.addressLine).optional(),
    city: z.string().trim().min(1).max(FIELD_MAX.city),
    region: z.string().trim().min(1).max(FIELD_MAX.region).optional(),
    postalCode: z.string().trim().min(1).max(FIELD_MAX.postalCode).optional(),
    subject: z.strictObject({ firstName: z.string().trim().min(1).max(FIELD_MAX.personName), lastName: z.string().trim().min(1).max(FIELD_MAX.personName) }).optional(),
    // A common field of every verification request (interface §2.2); an address job is always asynchronous, so
    // `async` changes nothing.
    mode: ModeSchema.optional(),
  })
  .meta({ id: 'AddressVerificationRequest' });
export type AddressRequest = z.infer<typeof AddressRequestSchema>;
