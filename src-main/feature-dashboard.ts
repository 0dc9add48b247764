// The dashboard feature: the console's `dashboard:summary` channel over core/dashboard (issue 6). No HTTP route:
// the summary is a console view, not part of the public API.
import type { z } from 'zod';
import type { DashboardChannels } from '../src-shared/channels-dashboard';
import { owner, type ConsoleContext } from './console/handlers';
import { dashboardSummary } from './core/dashboard/dashboard-stats';
import type { Feature } from './features';

type DashboardHandlers = {
  [K in keyof DashboardChannels]: (input: z.output<DashboardChannels[K]['input']>) => Promise<z.input<DashboardChannels[K]['output']>>;
};

export function dashboardConsoleHandlers(ctx: ConsoleContext): DashboardHandlers {
  return {
    'dashboard:summary': async ({ environment, since }) => {
      const principal = await owner(ctx, environment);
      return dashboardSummary(ctx.rt.deps, principal.organizationId, environment, since);
    },
  };
}

export const dashboardFeature: Feature = {
  name: 'dashboard',
  consoleHandlers: (ctx) => dashboardConsoleHandlers(ctx),
};
