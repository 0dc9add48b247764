// Shared building blocks of the contract: error body, list envelope, pagination query.
import { z } from 'zod';

export const ActionTypeSchema = z.enum([
  'CONTACT_ADMIN',
  'TOP_UP_WALLET',
  'CHECK_API_KEY',
  'FIX_INPUT',
  'RETRY_LATER',
  'USE_NEW_KEY',
  'WAIT_AND_RETRY',
]);

export const ErrorBodySchema = z
  .object({
    message: z.string(),
    code: z.string(),
    statusCode: z.number().int(),
    action: z.object({ type: ActionTypeSchema, hint: z.string() }).optional(),
    details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Error' });

export const PaginationSchema = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  hasMore: z.boolean(),
});

export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), pagination: PaginationSchema });
}

/** The default page of every list (decisions §1: limit 20, newest first). */
export function withPage<Q extends { limit?: number | undefined; offset?: number | undefined }>(q: Q | undefined): Omit<Q, 'limit' | 'offset'> & { limit: number; offset: number } {
  return { ...(q ?? ({} as Q)), limit: q?.limit ?? 20, offset: q?.offset ?? 0 };
}

/** The list envelope of decisions §1 for one page of a query. */
export function toEnvelope<T>(page: { data: T[]; total: number }, q: { limit: number; offset: number }) {
  return {
    data: page.data,
    pagination: { total: page.total, limit: q.limit, offset: q.offset, hasMore: q.offset + page.data.length < page.total },
  };
}

export const PageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
});

export const EnvironmentSchema = z.enum(['sandbox', 'live']);
export type Environment = z.infer<typeof EnvironmentSchema>;

export const IsoTimestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T10:00:00.000Z' });

/**
 * A filter's bound (`from`, `to`, `since`): a calendar date, read as its UTC midnight, or an ISO 8601 date-time with
 * `Z` or a UTC offset (`+01:00`), read as that instant. Readers compare it as an instant (new Date(x).toISOString()),
 * never as text: stored times are UTC with milliseconds.
 */
export const IsoDateOrInstant = z.iso.date().or(z.iso.datetime({ offset: true }));
