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

/**
 * A whole number of a query string: digits only, as the interface writes them. `z.coerce.number()` took whatever
 * `Number()` takes ("0x10", "1e1", " 16", "+5"); those are refused now, in words. A number passes as it is (the
 * console's channels send numbers).
 */
export function queryInt(min: number, max: number, fallback: number) {
  const digits = (v: unknown) => (typeof v === 'string' && /^\d{1,12}$/.test(v) ? Number(v) : v);
  const number = z.number({ error: (iss) => (iss.code === 'invalid_type' ? 'must be a whole number written in digits, e.g. 20' : undefined) });
  return z.preprocess(digits, number.int().min(min).max(max).default(fallback));
}

/** The `limit` and `offset` of every list (decisions §1). */
export const PAGE_QUERY = { limit: queryInt(1, 100, 20), offset: queryInt(0, 1_000_000_000, 0) } as const;

export const PageQuerySchema = z.object(PAGE_QUERY);

export const EnvironmentSchema = z.enum(['sandbox', 'live']);
export type Environment = z.infer<typeof EnvironmentSchema>;

export const IsoTimestamp = z.string().meta({ format: 'date-time', example: '2026-11-21T10:00:00.000Z' });

/**
 * A filter's bound (`from`, `to`, `since`): a calendar date, read as its UTC midnight, or an ISO 8601 date-time with
 * `Z` or a UTC offset (`+01:00`), read as that instant. Readers compare it as an instant (new Date(x).toISOString()),
 * never as text: stored times are UTC with milliseconds.
 */
export const IsoDateOrInstant = z.iso.date().or(z.iso.datetime({ offset: true }));
