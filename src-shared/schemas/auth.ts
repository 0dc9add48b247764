// Session endpoints (decisions §6): login, refresh with rotation, logout.
import { z } from 'zod';

export const RoleSchema = z.enum(['OWNER', 'ADMIN', 'DEVELOPER']);
export type Role = z.infer<typeof RoleSchema>;

/** Password and organization-name limits, shared by the service's checks and the console's forms. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;
export const ORGANIZATION_NAME_MAX = 100;

export const LoginRequestSchema = z.object({
  email: z.string().trim().min(3).max(254).email(),
  password: z.string().min(1).max(PASSWORD_MAX),
}).strict();

export const UserSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: RoleSchema,
  organizationId: z.string(),
});

export const TokenPairSchema = z.object({
  accessToken: z.string(),
  refreshToken: z.string(),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number().int(),
  user: UserSchema,
});

export const RefreshRequestSchema = z.object({ refreshToken: z.string().min(1).max(512) }).strict();
