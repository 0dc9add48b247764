// Demo data (issue 23, docs/demo.md): the console channels behind Settings › Demo data, and the loader's second
// core (same store, its own connection and clock). The CLI commands live in cli/demo-commands.ts.
import type { z } from 'zod';
import type { DemoChannels } from '../src-shared/channels-demo';
import type { ConsoleContext } from './console/handlers';
import type { ManualClock } from './core/clock';
import type { LoaderCore } from './core/demo/demo-data';
import type { CoreRuntime } from './core/runtime';
import { liveEventsOf } from './core/events/live-events';
import { firstOrganizationId } from './core/orgs/organizations';
import type { Feature } from './features';

/** Opens the loader's core on rt's data folder: no worker, no listener, no lock (SQLite WAL shares the file). */
export function demoLoaderFor(rt: CoreRuntime): (clock: ManualClock, opts: { allowWebhookHosts: string[] }) => Promise<LoaderCore> {
  return async (clock, opts) => {
    // Imported here: service.ts imports the feature list, which imports this file.
    const { createCore } = await import('./service');
    const core = await createCore({
      dataDir: rt.info().dataDir,
      startWorker: false,
      clock,
      logLevel: 'silent',
      scryptN: rt.deps.config.scryptN,
      resourcesDir: rt.deps.config.resourcesDir,
      // Only the loader's core may reach the demo's own receiver on 127.0.0.1.
      allowWebhookHosts: opts.allowWebhookHosts,
    });
    return { rt: core.rt, close: () => core.close() };
  };
}

/**
 * The loader writes through its own connection, whose commits the service's live-event notes do not see, and a
 * removal deletes (which no note covers): one summary event per list tells open consoles to fetch again.
 */
async function announce(rt: CoreRuntime): Promise<void> {
  const organizationId = await firstOrganizationId(rt.deps);
  const hub = liveEventsOf(rt.deps);
  if (!organizationId || !hub) return;
  hub.publish([
    { organizationId, environment: 'sandbox', kind: 'verification.updated', ids: {} },
    { organizationId, environment: 'sandbox', kind: 'webhook.updated', ids: {} },
  ]);
}

type DemoHandlers = {
  [K in keyof DemoChannels]: (input: z.output<DemoChannels[K]['input']>) => Promise<z.input<DemoChannels[K]['output']>>;
};

/** One load at a time per process: a second click while loading is refused rather than doubled. */
let loading: Promise<unknown> | null = null;

/** The demo's generator and its removal, loaded by the first demo channel called, not at start (docs/performance.md). */
const demoData = () => import('./core/demo/demo-data');

export function demoConsoleHandlers(ctx: ConsoleContext): DemoHandlers {
  const { rt } = ctx;
  return {
    'demo:status': async () => {
      const d = await demoData();
      return { ...(await d.demoStatus(rt.deps.sql)), tour: await d.demoTour(rt.deps.sql) };
    },
    'demo:load': async ({ days }) => {
      const { loadDemo } = await demoData();
      if (loading) await loading.catch(() => undefined);
      const p = loadDemo(rt, demoLoaderFor(rt), { ...(days !== undefined ? { days } : {}) });
      loading = p;
      try {
        return await p;
      } finally {
        loading = null;
        // Also after a failed load: what it committed is shown (and listed, so Remove takes it out).
        await announce(rt);
      }
    },
    'demo:remove': async () => {
      const { removeDemo } = await demoData();
      // A removal asked for while loading waits for the load, so it removes the whole story, not half of it.
      if (loading) await loading.catch(() => undefined);
      const r = await removeDemo(rt);
      await announce(rt);
      return r;
    },
  };
}

export const demoFeature: Feature = {
  name: 'demo',
  consoleHandlers: (ctx) => demoConsoleHandlers(ctx),
};
