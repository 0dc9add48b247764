// Live-mode providers (issue 7, docs/providers.md): the console channels that configure upstream adapters, their
// routes, limits and sealed credentials, and probe one. Outputs carry `secret.configured`/masked, never a value.
import type { z } from 'zod';
import type { providerChannels } from '../src-shared/channels-providers';
import type { ProvidersOverview } from '../src-shared/schemas/providers';
import type { ConsoleContext } from './console/handlers';
import type { CoreRuntime } from './core/runtime';
import type { Feature } from './features';
import { liveProviders } from './providers/registry';

type ProviderChannels = typeof providerChannels;
export type ProviderHandlers = {
  [K in keyof ProviderChannels]: (input: z.output<ProviderChannels[K]['input']>) => Promise<z.output<ProviderChannels[K]['output']>>;
};

/** What the console page and `vconsole providers list` show. */
export async function providersOverview(rt: CoreRuntime): Promise<ProvidersOverview> {
  const reg = liveProviders(rt);
  const [providers, cacheTtlSeconds] = await Promise.all([reg.config.list(), reg.config.cacheTtl()]);
  return {
    providers: providers.map((p) => reg.view(p)),
    cacheTtlSeconds,
    secretProtection: reg.config.box.kind,
  };
}

export function providerConsoleHandlers(ctx: ConsoleContext): ProviderHandlers {
  const { rt } = ctx;
  return {
    'providers:list': async () => providersOverview(rt),
    'providers:set': async (input) => {
      const reg = liveProviders(rt);
      return reg.view(await reg.config.set(input));
    },
    'providers:remove': async ({ id }) => {
      await liveProviders(rt).config.remove(id);
      return { id, removed: true as const };
    },
    'providers:test': async ({ id }) => liveProviders(rt).probe(id),
    'providers:cacheTtl': async ({ kind, ttlSeconds }) => liveProviders(rt).config.setCacheTtl(kind, ttlSeconds),
  };
}

export const providersFeature: Feature = {
  name: 'providers',
  consoleHandlers: (ctx) => providerConsoleHandlers(ctx),
};
