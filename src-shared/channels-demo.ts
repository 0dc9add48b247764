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

/**
 * The demo's own records the guided tour opens, read from the service's demo marks (`demo_records`): its newest failed
 * check, its webhook and that webhook's newest delivery, its finished payouts batch. Never the user's own records.
 */
export const DemoTourSchema = z.object({
  failedId: z.string().nullable(),
  webhookId: z.string().nullable(),
  deliveryId: z.string().nullable(),
  batchId: z.string().nullable(),
});
export type DemoTourTargets = z.infer<typeof DemoTourSchema>;

export const demoChannels = {
  'demo:status': channel(z.object({}).strict(), DemoStatusSchema.extend({ tour: DemoTourSchema.nullable() })),
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
