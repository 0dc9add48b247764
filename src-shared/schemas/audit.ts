// The audit trail as the API, the console and exports show it (docs/audit.md).
import { z } from 'zod';
import { PageQuerySchema } from './common';

export const AuditActorSchema = z.object({
  type: z.enum(['user', 'apiKey', 'console', 'cli', 'system']),
  id: z.string().nullable(),
  label: z.string(),
});

export const AuditEventSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    seq: z.number().int(),
    at: z.string(),
    actor: AuditActorSchema,
    door: z.enum(['api', 'console', 'cli', 'system']),
    action: z.string(),
    target: z.object({ type: z.string().nullable(), id: z.string().nullable() }),
    detail: z.record(z.string(), z.unknown()),
    prevHash: z.string(),
    hash: z.string(),
  })
  .meta({ id: 'AuditEvent' });
export type AuditEvent = z.infer<typeof AuditEventSchema>;

const text = z.string().max(200);
export const AuditQuerySchema = PageQuerySchema.extend({
  /** A user or key id, or part of the actor's label (an email, a key name). */
  actor: text.optional(),
  /** An action, or the start of one (`key.` finds key.created and key.revoked). */
  action: text.optional(),
  /** The id of the thing changed. */
  target: text.optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
}).strict();
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

export const AuditVerifySchema = z.object({
  ok: z.boolean(),
  entries: z.number().int(),
  head: z.object({ seq: z.number().int(), hash: z.string() }),
  firstBad: z.object({ seq: z.number().int(), id: z.string(), reason: z.string() }).nullable(),
});

export const AUDIT_RETENTION_DAYS_DEFAULT = 400;
export const AuditRetentionDaysSchema = z.number().int().min(30).max(3650);
