// Console channels of live-mode providers (merged into CHANNELS by channels.ts): list, set, remove, one health
// probe, and the cache time to live per kind. No output ever carries a stored credential.
import { z } from 'zod';
import { channel, IdInput } from './channel-def';
import { ProbeResultSchema, ProviderInputSchema, ProviderKindSchema, ProvidersOverviewSchema, ProviderViewSchema } from './schemas/providers';

export const providerChannels = {
  'providers:list': channel(z.object({}).strict(), ProvidersOverviewSchema),
  'providers:set': channel(ProviderInputSchema, ProviderViewSchema),
  'providers:remove': channel(z.object({ id: IdInput }), z.object({ id: z.string(), removed: z.literal(true) })),
  'providers:test': channel(z.object({ id: IdInput }), ProbeResultSchema),
  'providers:cacheTtl': channel(
    z.object({ kind: ProviderKindSchema, ttlSeconds: z.number().int().min(0).max(30 * 86_400) }),
    ProvidersOverviewSchema.shape.cacheTtlSeconds,
  ),
};
