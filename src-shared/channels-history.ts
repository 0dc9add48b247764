// Console channels for finding things: History's free-text search, the full record of one check (the request as
// submitted, who ran it and through which door), and the palette's lookup of any id (docs/console-live.md).
// Console-only: the public API's verification record keeps the fields of the interface.
import { z } from 'zod';
import { EnvironmentSchema, IsoDateOrInstant } from './schemas/common';
import { VerificationRecordSchema, VerificationStatusSchema, VerificationTypeFilterSchema } from './schemas/verification';
import { channel, IdInput } from './channel-def';

/** Longest search text accepted (a few identifiers and names). */
export const SEARCH_TEXT_MAX = 200;

export const HistorySearchInputSchema = z.object({
  environment: EnvironmentSchema,
  /** Free text: a verification id (or its start), identifier prefixes, holder names, a country code. */
  q: z.string().max(SEARCH_TEXT_MAX).default(''),
  type: VerificationTypeFilterSchema.optional(),
  status: VerificationStatusSchema.optional(),
  country: z.string().regex(/^[A-Za-z]{2}$/).transform((c) => c.toUpperCase()).optional(),
  from: IsoDateOrInstant.optional(),
  to: IsoDateOrInstant.optional(),
  limit: z.number().int().min(1).max(100).default(20),
  offset: z.number().int().min(0).max(10_000).default(0),
});

export const HistorySearchOutputSchema = z.object({
  data: z.array(VerificationRecordSchema),
  pagination: z.object({
    /** Exact up to SEARCH_COUNT_CAP; beyond it, `totalCapped` and the total is the cap. */
    total: z.number().int(),
    totalCapped: z.boolean(),
    limit: z.number().int(),
    offset: z.number().int(),
    hasMore: z.boolean(),
  }),
});
export type HistorySearchOutput = z.infer<typeof HistorySearchOutputSchema>;

export const DoorSchema = z.enum(['api', 'console', 'cli']);
export type Door = z.infer<typeof DoorSchema>;

export const ProvenanceSchema = z.object({
  /** api_key: an API key; user: a signed-in user (HTTP with a token); owner: the installation's owner (console, CLI). */
  actorType: z.enum(['api_key', 'user', 'owner']),
  actorId: z.string().nullable(),
  /** The key's name or the user's email, as it was when the check ran. */
  actorLabel: z.string().nullable(),
  door: DoorSchema,
});
export type Provenance = z.infer<typeof ProvenanceSchema>;

export const VerificationDetailSchema = z.object({
  record: VerificationRecordSchema,
  /** The request as it was stored when submitted (a selfie is kept as its digest, never the image). */
  request: z.unknown(),
  /** null for checks recorded before provenance was kept. */
  provenance: ProvenanceSchema.nullable(),
});
export type VerificationDetail = z.infer<typeof VerificationDetailSchema>;

export const ID_KINDS = ['verification', 'delivery', 'webhook', 'key'] as const;
export const IdLookupSchema = z.object({
  kind: z.enum(ID_KINDS),
  id: z.string(),
  environment: EnvironmentSchema,
  /** The delivery's webhook (for opening its timeline). */
  webhookId: z.string().optional(),
});
export type IdLookup = z.infer<typeof IdLookupSchema>;

/** Whether text looks like one of our ids (`ver_…`, `del_…`, `whk_…` or `wh_…`, `key_…`): the palette then looks it up. */
export const ID_PATTERN = /^(ver|del|whk|wh|key)_[A-Za-z0-9_-]{4,80}$/;

export const historyChannels = {
  'history:search': channel(HistorySearchInputSchema, HistorySearchOutputSchema),
  'history:record': channel(z.object({ environment: EnvironmentSchema, id: IdInput }), VerificationDetailSchema),
  'lookup:id': channel(z.object({ id: IdInput }), IdLookupSchema),
};
