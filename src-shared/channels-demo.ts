// Console channels of the demo data (issue 23, docs/demo.md; merged into CHANNELS by channels.ts).
import { z } from 'zod';
import { channel } from './channel-def';

/** Days of demo history one load may write: the loader's bound, its channel's, the CLI's and the console's field's. */
export const DEMO_DAYS_MAX = 90;

export const DemoStatusSchema = z.object({
  present: z.boolean(),
  records: z.number().int(),
  byTable: z.record(z.string(), z.number().int()),
});
export type DemoStatusView = z.infer<typeof DemoStatusSchema>;

export const demoChannels = {
  'demo:status': channel(z.object({}).strict(), DemoStatusSchema),
  'demo:load': channel(
    z.object({ days: z.number().int().min(1).max(DEMO_DAYS_MAX).optional() }).strict(),
    DemoStatusSchema.extend({
      checks: z.number().int(),
      routingChecks: z.number().int(),
      /** The story's finished batch CSV (Routing › History). */
      batch: z.object({ id: z.string(), inputName: z.string(), rows: z.number().int(), valid: z.number().int(), invalid: z.number().int() }),
      seed: z.number().int(),
      ms: z.number(),
    }),
  ),
  'demo:remove': channel(
    z.object({}).strict(),
    z.object({ removed: z.record(z.string(), z.number().int()), total: z.number().int(), batchFolders: z.number().int() }),
  ),
};
export type DemoChannels = typeof demoChannels;
