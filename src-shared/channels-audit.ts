// Console channels of the audit trail (merged into CHANNELS by channels.ts).
import { z } from 'zod';
import { channel } from './channel-def';
import { AuditEventSchema, AuditQuerySchema, AuditRetentionDaysSchema, AuditVerifySchema } from './schemas/audit';
import { listEnvelope } from './schemas/common';

export const auditChannels = {
  'audit:list': channel(AuditQuerySchema.partial({ limit: true, offset: true }), listEnvelope(AuditEventSchema)),
  /** The whole chain of the organization: JSON carries what `vconsole audit verify --file` needs; CSV is for reading. */
  'audit:export': channel(z.object({ format: z.enum(['json', 'csv']) }).strict(), z.object({ filename: z.string(), mediaType: z.string(), content: z.string() })),
  'audit:verify': channel(z.object({}).strict(), AuditVerifySchema.extend({ retentionDays: z.number().int(), checkpoint: z.object({ seq: z.number().int(), hash: z.string() }).nullable() })),
  'audit:setRetention': channel(z.object({ days: AuditRetentionDaysSchema }).strict(), z.object({ days: z.number().int() })),
};
export type AuditChannels = typeof auditChannels;
