// Session endpoints (decisions §6): login, refresh with rotation, logout.
import { z } from 'zod';

export const RoleSchema = z.enum(['OWNER', 'ADMIN', 'DEVELOPER']);
export type Role = z.infer<typeof RoleSchema>;

export const LoginRequestSchema = z.object({
  email: z.string().trim().min(3).max(254).email(),
  password: z.string().min(1).max(1024),
});

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

export const RefreshRequestSchema = z.object({ refreshToken: z.string().min(1).max(512) });
