// The dashboard's one read model (issue 6): verification counts of a period by status and by country, the rates of
// interface §9 rule 5, webhook delivery health and the wallet — all computed by the service in SQL.
import { z } from 'zod';
import { EnvironmentSchema, IsoDateOrInstant, IsoTimestamp } from './common';
import { DropReasonSchema } from './webhooks';

export const DashboardInputSchema = z.object({
  environment: EnvironmentSchema.default('sandbox'),
  /** Start of the period (inclusive); a date means its UTC midnight. Omitted: the start of the current UTC day. */
  since: IsoDateOrInstant.optional(),
});

const StatusCounts = z.object({
  pending: z.number().int(),
  success: z.number().int(),
  failed: z.number().int(),
  error: z.number().int(),
});
export type StatusCounts = z.infer<typeof StatusCounts>;

export const CountryCountsSchema = StatusCounts.extend({ country: z.string(), total: z.number().int() });
export type CountryCounts = z.infer<typeof CountryCountsSchema>;

export const DeliveryFailureSchema = z.object({
  id: z.string(),
  webhookId: z.string(),
  url: z.string(),
  eventType: z.string(),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  /** Set when the delivery's endpoint stopped it (docs/webhooks.md); lastStatusCode/lastError are then its own last attempt's. */
  dropReason: DropReasonSchema.nullable(),
  at: IsoTimestamp,
});
export type DeliveryFailure = z.infer<typeof DeliveryFailureSchema>;

export const DashboardSummarySchema = z.object({
  environment: EnvironmentSchema,
  since: IsoTimestamp,
  generatedAt: IsoTimestamp,
  verifications: z.object({
    total: z.number().int(),
    byStatus: StatusCounts,
    byCountry: z.array(CountryCountsSchema),
    /** success + failed: the checks that got an answer (interface §9 rule 5). */
    answered: z.number().int(),
    /** success / answered; null when nothing was answered. Errors never lower it: they are not answers. */
    successRate: z.number().nullable(),
    /** error / (answered + error): the share of finished checks that got no answer; null when none finished. */
    errorRate: z.number().nullable(),
  }),
  webhooks: z.object({
    endpoints: z.object({ active: z.number().int(), inactive: z.number().int(), failed: z.number().int() }),
    deliveries: z.object({ success: z.number().int(), failed: z.number().int(), pending: z.number().int() }),
    /** The most recent failed deliveries of the period, newest first. */
    lastFailures: z.array(DeliveryFailureSchema),
  }),
  wallet: z.object({
    balance: z.number().int(),
    currency: z.string(),
    status: z.enum(['active', 'suspended']),
    low: z.boolean(),
  }),
});
export type DashboardSummary = z.infer<typeof DashboardSummarySchema>;
