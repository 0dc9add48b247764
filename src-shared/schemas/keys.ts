// API keys (interface §2.1, decisions §6).
import { z } from 'zod';
import { EnvironmentSchema, IsoTimestamp } from './common';

export const KEY_NAME_MAX = 100;

export const CreateKeyRequestSchema = z.object({
  name: z.string().trim().min(1).max(KEY_NAME_MAX),
  environment: EnvironmentSchema,
}).strict();

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    environment: EnvironmentSchema,
    keyPrefix: z.string(),
    status: z.enum(['active', 'revoked']),
    createdAt: IsoTimestamp,
    lastUsedAt: IsoTimestamp.nullable(),
    expiresAt: z.null(),
    revokedAt: IsoTimestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const CreatedKeySchema = ApiKeySchema.extend({ key: z.string() }).meta({ id: 'CreatedApiKey' });
export type CreatedKey = z.infer<typeof CreatedKeySchema>;

export const RevokedKeySchema = z.object({ id: z.string(), status: z.literal('revoked'), revokedAt: IsoTimestamp });
