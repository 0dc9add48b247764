// Housekeeping (jobs/housekeeping.ts): a pass a minute after start, then once an hour, in the process that runs the
// queue. A failed pass is logged and tried again at the next hour.
import type { Feature } from './features';
import { housekeeping, HOUSEKEEPING_EVERY_MS } from './jobs/housekeeping';

export const housekeepingFeature: Feature = {
  name: 'housekeeping',
  start: ({ rt }) => {
    const run = () => {
      housekeeping(rt.deps).then(
        (r) => {
          if (r.jobs + r.idempotencyKeys > 0) rt.deps.log.info(r, 'housekeeping: finished jobs and expired idempotency keys removed');
        },
        (err: unknown) => rt.deps.log.error({ err: (err as Error).message }, 'housekeeping failed; the next run tries again'),
      );
    };
    const first = setTimeout(run, 60_000).unref();
    const every = setInterval(run, HOUSEKEEPING_EVERY_MS).unref();
    return {
      async stop() {
        clearTimeout(first);
        clearInterval(every);
      },
    };
  },
};
