// The bank-routing feature (interface §4.2, decisions §5): the /verifications/* routes, the console channels for
// checks, live directory imports and batch-CSV jobs, and the stop() that cancels running batches on shutdown.
import type { z } from 'zod';
import type { routingChannels } from '../src-shared/channels-routing';
import type { ConsoleContext } from './console/handlers';
import { owner } from './console/handlers';
import { batchJobsFor } from './core/routing/batch-jobs';
import { previewCsvInput } from './core/routing/csv-input';
import { importDirectoryCsv, listDirectoryImports } from './core/routing/directory-store';
import type { CorrespondentsAnswer } from '../src-shared/schemas/routing';
import { answerBatch, answerBic, answerRoutingNumber, correspondentsOnce } from './core/routing/routing-service';
import type { CoreRuntime } from './core/runtime';
import type { Feature } from './features';
import { registerRoutingRoutes } from './http/routes/routing';
import { AppError } from '../src-shared/app-error';

type RoutingChannels = typeof routingChannels;
export type RoutingHandlers = {
  [K in keyof RoutingChannels]: (input: z.output<RoutingChannels[K]['input']>) => Promise<z.output<RoutingChannels[K]['output']>>;
};

function jobsOf(rt: CoreRuntime) {
  return batchJobsFor(rt.deps, rt.info().dataDir);
}

export function routingConsoleHandlers(ctx: ConsoleContext): RoutingHandlers {
  const { rt } = ctx;
  const org = async () => (await owner(ctx)).organizationId;
  return {
    'routing:bic': async ({ environment, request }) => answerBic(rt.deps, await owner(ctx, environment), request),
    'routing:routingNumber': async ({ environment, request }) => answerRoutingNumber(rt.deps, await owner(ctx, environment), request),
    'routing:correspondents': async ({ environment, request }) =>
      JSON.parse((await correspondentsOnce(rt.deps, await owner(ctx, environment), request)).body) as CorrespondentsAnswer,
    'routing:batch': async ({ environment, request }) => answerBatch(rt.deps, await owner(ctx, environment), request),
    'routing:import': async ({ path, kind, name }) => importDirectoryCsv(rt.deps, await org(), { path, ...(name ? { name } : {}) }, kind),
    'routing:directories': async () => listDirectoryImports(rt.deps, await org()),
    'batch:preview': async ({ path }) => {
      try {
        return previewCsvInput(path, 10);
      } catch (e) {
        if (e instanceof AppError) throw e;
        throw new AppError('VALIDATION_ERROR', { details: [{ field: 'path', message: `cannot read the file: ${(e as Error).message}` }] });
      }
    },
    'batch:start': async ({ path, environment, mapping }) => jobsOf(rt).start(await owner(ctx, environment), { path, mapping }),
    'batch:progress': async ({ id }) => jobsOf(rt).get(await org(), id),
    'batch:cancel': async ({ id }) => jobsOf(rt).cancel(await org(), id),
    'batch:list': async ({ limit, offset }) => jobsOf(rt).list(await org(), { limit: limit ?? 50, offset: offset ?? 0 }),
    'batch:results': async (q) => jobsOf(rt).results(await org(), q),
  };
}

export const routingFeature: Feature = {
  name: 'routing',
  httpRoutes: registerRoutingRoutes,
  // Until channels.ts merges routingChannels these names are outside ChannelName, hence the widening cast.
  consoleHandlers: (ctx) => routingConsoleHandlers(ctx),
  start: (f) => {
    const jobs = jobsOf(f.rt);
    // Batches start only once this has run (BatchJobs.start waits for it); a failure leaves old rows `running`.
    const recovering = jobs.recover().catch((err: unknown) => f.rt.deps.log.error({ err }, 'routing batches: marking interrupted batches failed did not succeed'));
    return {
      stop: async () => {
        await recovering;
        await jobs.stopAll();
      },
    };
  },
};
