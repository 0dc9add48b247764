// The console's live event contract, declared beside the request channels: what the core announces after a commit
// that changed data the console shows. An event names what changed (kind and ids) and never carries the data: the
// renderer re-fetches what it shows, so an event can never leak more than the caller could read.
import { z } from 'zod';
import { EnvironmentSchema } from './schemas/common';
import { LIVE_CHANNEL } from './channel-names';

export const LIVE_EVENT_KINDS = [
  'verification.created',
  'verification.updated',
  'delivery.created',
  'delivery.updated',
  'webhook.updated',
  'wallet.updated',
] as const;
export type LiveEventKind = (typeof LIVE_EVENT_KINDS)[number];

export const LiveEventSchema = z.object({
  /** `<boot>-<seq>`: increases within one service process; a new process starts a new boot (the renderer resets). */
  id: z.string(),
  organizationId: z.string(),
  /** null for organization-wide data (the wallet). */
  environment: EnvironmentSchema.nullable(),
  kind: z.enum(LIVE_EVENT_KINDS),
  ids: z.object({
    verificationId: z.string().optional(),
    deliveryId: z.string().optional(),
    webhookId: z.string().optional(),
  }),
});
export type LiveEvent = z.infer<typeof LiveEventSchema>;

/**
 * What a subscriber receives: an event, or `reset` when events were missed (a resume older than the replay buffer,
 * or a service restarted since): everything shown must be fetched again.
 */
export type LiveMessage = { type: 'event'; event: LiveEvent } | { type: 'reset' };

/**
 * The typed event channels, next to the request channels: each name and the schema of what it carries. The Electron
 * main process sends on them, the preload listens (by name only: channel-names.ts).
 */
export const EVENT_CHANNELS = {
  [LIVE_CHANNEL]: z.discriminatedUnion('type', [z.object({ type: z.literal('event'), event: LiveEventSchema }), z.object({ type: z.literal('reset') })]),
} as const;
export { LIVE_CHANNEL };

/** The web console's Server-Sent Events stream, relative to /console/. */
export const LIVE_STREAM_PATH = 'events';
