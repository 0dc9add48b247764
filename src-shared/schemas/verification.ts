// Verification requests and the verification record (interface §2.2–§2.6, decisions §3).
import { z } from 'zod';
import { EnvironmentSchema, IsoDateOrInstant, IsoTimestamp, PAGE_QUERY } from './common';

export const ModeSchema = z.enum(['async']);
export const IdentifierSchema = z.object({
  type: z.string().trim().min(1).max(40),
  value: z.string().trim().min(1).max(64),
}).strict();

const Country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
  .transform((c) => c.toUpperCase());

export const AccountRequestSchema = z
  .strictObject({
    accountNumber: z.string().trim().min(1).max(64),
    country: Country,
    bankCode: z.string().trim().min(1).max(34).optional(),
    accountName: z.string().trim().min(1).max(140).optional(),
    accountHolderType: z.enum(['INDIVIDUAL', 'BUSINESS']).optional(),
    identifiers: z.array(IdentifierSchema).max(10).optional(),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 currency code')
      .transform((c) => c.toUpperCase())
      .optional(),
    mode: ModeSchema.optional(),
  })
  .meta({ id: 'AccountVerificationRequest' });
export type AccountRequest = z.infer<typeof AccountRequestSchema>;

export const VerificationStatusSchema = z.enum(['pending', 'success', 'failed', 'error']);
export type VerificationStatus = z.infer<typeof VerificationStatusSchema>;

export const VerificationTypeSchema = z.enum([
  'ACCOUNT_NUMBER',
  'PHONE_NUMBER',
  'KE_NATIONAL_ID',
  'KE_DRIVERS_LICENSE',
  'KE_PASSPORT',
  'GH_CARD',
  'GH_CARD_FACE',
  'ADDRESS',
]);
export type VerificationType = z.infer<typeof VerificationTypeSchema>;

export const CheckTypeSchema = z.enum(['BANK_LOOKUP', 'NAME_MATCH', 'ACCOUNT_EXISTENCE', 'FORMAT_CHECK']);

export const ChargeSchema = z.object({
  amount: z.number().int(),
  currency: z.string(),
  status: z.enum(['charged', 'not_charged', 'reversed']),
});

export const VerificationRecordSchema = z
  .object({
    id: z.string(),
    status: VerificationStatusSchema,
    verified: z.boolean(),
    verificationType: VerificationTypeSchema,
    identifier: z.string(),
    country: z.string(),
    checkType: CheckTypeSchema.optional(),
    accountNumber: z.string().optional(),
    accountName: z.string().optional(),
    bankCode: z.string().optional(),
    bankName: z.string().optional(),
    fullName: z.string().optional(),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    middleName: z.string().optional(),
    dateOfBirth: z.string().optional(),
    phoneNumber: z.string().optional(),
    networkCode: z.string().optional(),
    address: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    source: z.enum(['live', 'cache']).optional(),
    environment: EnvironmentSchema,
    mode: z.enum(['sync', 'async']),
    createdAt: IsoTimestamp,
    completedAt: IsoTimestamp.nullable(),
    charge: ChargeSchema,
  })
  .meta({ id: 'Verification' });
export type VerificationRecord = z.infer<typeof VerificationRecordSchema>;

/** The kinds of verification, by endpoint (`/verify/<kind>`): one of the values of a list's `type` filter. */
export const VERIFICATION_KINDS = ['account', 'phone', 'identity', 'face', 'address'] as const;

/** A list's `type` filter: a kind or a `verificationType` value (decisions §3); anything else is a 422 (decisions §2). */
export const VerificationTypeFilterSchema = z.enum([...VERIFICATION_KINDS, ...VerificationTypeSchema.options]);
export type VerificationTypeFilter = z.infer<typeof VerificationTypeFilterSchema>;

export const VerificationListQuerySchema = z.object({
  type: VerificationTypeFilterSchema.optional(),
  status: VerificationStatusSchema.optional(),
  country: z.string().regex(/^[A-Za-z]{2}$/).transform((c) => c.toUpperCase()).optional(),
  from: IsoDateOrInstant.optional(),
  to: IsoDateOrInstant.optional(),
  ...PAGE_QUERY,
});
export type VerificationListQuery = z.infer<typeof VerificationListQuerySchema>;
