// Console channels of live-mode providers (merged into CHANNELS by channels.ts): list, set, remove, one health
// probe, and the cache time to live per kind. No output ever carries a stored credential.
import { z } from 'zod';
import { channel, IdInput } from './channel-def';
import { CACHE_TTL_MAX_SECONDS, ProbeResultSchema, ProviderInputSchema, ProviderKindSchema, ProvidersOverviewSchema, ProviderViewSchema } from './schemas/providers';

export const providerChannels = {
  'providers:list': channel(z.object({}).strict(), ProvidersOverviewSchema),
  'providers:set': channel(ProviderInputSchema, ProviderViewSchema),
  'providers:remove': channel(z.object({ id: IdInput }), z.object({ id: z.string(), removed: z.literal(true) })),
  'providers:test': channel(z.object({ id: IdInput }), ProbeResultSchema),
  'providers:cacheTtl': channel(
    z.object({ kind: ProviderKindSchema, ttlSeconds: z.number().int().min(0).max(CACHE_TTL_MAX_SECONDS) }),
    ProvidersOverviewSchema.shape.cacheTtlSeconds,
  ),
};
