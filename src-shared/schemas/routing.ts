// Zod schemas of the four bank-routing request bodies, their results (decisions §5), the HTTP answers and the
// batch-CSV job records shown in the console; shared by the HTTP door, the console channels and the core.
import { z } from 'zod';

export const MAX_BATCH_ITEMS = 100;

// Identifiers are bounded for safety only: a malformed one must reach the check and come back `valid: false`,
// so the schema does not judge structure (decisions §5: structural errors are not 422s).
export const IDENTIFIER_MAX = 64;
const identifier = z.string().min(1).max(IDENTIFIER_MAX);
// The currency too: one that is not 3 letters is answered `valid: false` with its reason by the check, never charged
// (docs/routing.md); its shape is judged there, not here. Membership of ISO 4217's list is not checked (CNH and the
// like are in real directories).
const currency = z.string().min(1).max(IDENTIFIER_MAX).describe('ISO 4217 currency code (3 letters); another value is answered valid: false');

export const BicRequestSchema = z.object({ bic: identifier }).strict().meta({ id: 'BicCheckRequest' });
export const RoutingNumberRequestSchema = z.object({ routingNumber: identifier }).strict().meta({ id: 'RoutingCodeCheckRequest' });
export const CorrespondentsRequestSchema = z
  .object({ bic: identifier, currency: currency.optional() })
  .strict()
  .meta({ id: 'CorrespondentsRequest' });

export const BatchItemSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('bic'), bic: identifier }).strict(),
  z.object({ type: z.literal('routing'), routingNumber: identifier }).strict(),
  z.object({ type: z.literal('route'), fromBic: identifier, toBic: identifier, currency }).strict(),
]);

/** `max` is here for the OpenAPI document; the route answers `BATCH_TOO_LARGE` first (see `isBatchTooLarge`). */
export const BatchRequestSchema = z
  .object({ items: z.array(BatchItemSchema).min(1).max(MAX_BATCH_ITEMS) })
  .strict()
  .meta({ id: 'RoutingBatchRequest' });

/** More than 100 items is 422 BATCH_TOO_LARGE rather than VALIDATION_ERROR, so check it before schema validation. */
export function isBatchTooLarge(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const items = (body as { items?: unknown }).items;
  return Array.isArray(items) && items.length > MAX_BATCH_ITEMS;
}

const status = z.enum(['success', 'failed']);
const routingError = z.object({ code: z.string(), message: z.string() });
const common = {
  status,
  valid: z.boolean(),
  /** null: no directory was consulted (live mode without an imported directory). */
  directoryMatch: z.boolean().nullable(),
  reasons: z.array(z.string()).optional(),
  error: routingError.optional(),
};

export const BicResultSchema = z
  .object({
    ...common,
    bic: z.string(),
    institutionCode: z.string().nullable(),
    countryCode: z.string().nullable(),
    locationCode: z.string().nullable(),
    branchCode: z.string().nullable(),
    isPrimaryOffice: z.boolean().nullable(),
    isTestBic: z.boolean().nullable(),
    bankName: z.string().nullable(),
    city: z.string().nullable(),
  })
  .meta({ id: 'BicCheckResult' });

export const RoutingNumberResultSchema = z
  .object({
    ...common,
    routingNumber: z.string(),
    checksumValid: z.boolean(),
    federalReserveDistrict: z.number().int().min(1).max(12).nullable(),
    bankName: z.string().nullable(),
  })
  .meta({ id: 'RoutingCodeCheckResult' });

export const CorrespondentSchema = z.object({
  bic: z.string(),
  bankName: z.string().nullable(),
  country: z.string(),
  currency: z.string(),
  confidence: z.number().min(0).max(1),
});

export const CorrespondentsResultSchema = z
  .object({
    ...common,
    bic: z.string(),
    currency: z.string().nullable(),
    bankName: z.string().nullable(),
    correspondents: z.array(CorrespondentSchema),
  })
  .meta({ id: 'CorrespondentsResult' });

export const RouteResultSchema = z
  .object({
    ...common,
    fromBic: z.string(),
    toBic: z.string(),
    currency: z.string(),
    /** BICs from sender to receiver; empty when no route was found. */
    path: z.array(z.string()),
    /** Intermediary banks: 0 for a direct relationship, 1 for one hop; null without a route. */
    hops: z.number().int().min(0).max(1).nullable(),
    /** Product of the relationships' confidences along the path. */
    confidence: z.number().min(0).max(1).nullable(),
  })
  .meta({ id: 'RouteCheckResult' });

export const BatchResultItemSchema = z.discriminatedUnion('type', [
  BicResultSchema.extend({ index: z.number().int(), type: z.literal('bic') }),
  RoutingNumberResultSchema.extend({ index: z.number().int(), type: z.literal('routing') }),
  RouteResultSchema.extend({ index: z.number().int(), type: z.literal('route') }),
]);

export const BatchSummarySchema = z.object({
  total: z.number().int(),
  valid: z.number().int(),
  invalid: z.number().int(),
});

export const BatchResultSchema = z
  .object({ results: z.array(BatchResultItemSchema), summary: BatchSummarySchema })
  .meta({ id: 'RoutingBatchResult' });

export type BicRequest = z.infer<typeof BicRequestSchema>;
export type RoutingNumberRequest = z.infer<typeof RoutingNumberRequestSchema>;
export type CorrespondentsRequest = z.infer<typeof CorrespondentsRequestSchema>;
export type BatchItem = z.infer<typeof BatchItemSchema>;
export type BatchRequest = z.infer<typeof BatchRequestSchema>;
export type BicResult = z.infer<typeof BicResultSchema>;
export type RoutingResult = z.infer<typeof RoutingNumberResultSchema>;
export type Correspondent = z.infer<typeof CorrespondentSchema>;
export type CorrespondentsResult = z.infer<typeof CorrespondentsResultSchema>;
export type RouteResult = z.infer<typeof RouteResultSchema>;
export type BatchResultItem = z.infer<typeof BatchResultItemSchema>;
export type BatchResult = z.infer<typeof BatchResultSchema>;

// ---------------------------------------------------------------------------------------------------------------
// What the HTTP door answers: the check's result plus its `rte_` id (a batch's: `bat_`) and the directory consulted.

/** The directory an answer came from: the import the user made (live), `sandbox`, or null when none exists. */
export const DirectoryRefSchema = z
  .object({ name: z.string(), importedAt: z.string().nullable() })
  .meta({ id: 'RoutingDirectoryRef' });

const answer = {
  id: z.string().meta({ description: 'rte_ id of the recorded check' }),
  environment: z.enum(['sandbox', 'live']),
  directory: DirectoryRefSchema.nullable(),
  createdAt: z.string(),
};

export const ChargeSchema = z.object({
  amount: z.number().int(),
  currency: z.string(),
  status: z.enum(['charged', 'not_charged', 'reversed']),
});

export const BicAnswerSchema = BicResultSchema.extend(answer).meta({ id: 'BicCheckAnswer' });
export const RoutingNumberAnswerSchema = RoutingNumberResultSchema.extend(answer).meta({ id: 'RoutingCodeCheckAnswer' });
export const CorrespondentsAnswerSchema = CorrespondentsResultSchema.extend({ ...answer, charge: ChargeSchema }).meta({
  id: 'CorrespondentsAnswer',
});
export const BatchAnswerSchema = BatchResultSchema.extend({
  ...answer,
  id: z.string().meta({ description: 'bat_ id of the recorded batch (decisions §1)' }),
  status: z.literal('success'),
}).meta({ id: 'RoutingBatchAnswer' });

export type DirectoryRef = z.infer<typeof DirectoryRefSchema>;
export type BicAnswer = z.infer<typeof BicAnswerSchema>;
export type RoutingNumberAnswer = z.infer<typeof RoutingNumberAnswerSchema>;
export type CorrespondentsAnswer = z.infer<typeof CorrespondentsAnswerSchema>;
export type BatchAnswer = z.infer<typeof BatchAnswerSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Live routing directories and batch-CSV jobs (console and CLI).

export const DirectoryKindSchema = z.enum(['bic', 'aba', 'correspondents']);
export type DirectoryKind = z.infer<typeof DirectoryKindSchema>;

export const DirectoryImportSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: DirectoryKindSchema,
  importedAt: z.string(),
  rows: z.number().int(),
  errors: z.number().int(),
  /** True while this import is the one answers come from for its kind (a newer import of the kind replaces it). */
  current: z.boolean(),
});
export type DirectoryImport = z.infer<typeof DirectoryImportSchema>;

export const DirectoryImportResultSchema = DirectoryImportSchema.extend({
  /** First rows that were refused (at most 100), with their 1-based line in the file. */
  rowErrors: z.array(z.object({ line: z.number().int(), message: z.string() })),
});
export type DirectoryImportResult = z.infer<typeof DirectoryImportResultSchema>;

export const ColumnMappingSchema = z.object({
  type: z.number().int().min(0).nullable(),
  bic: z.number().int().min(0).nullable(),
  routing: z.number().int().min(0).nullable(),
  fromBic: z.number().int().min(0).nullable(),
  toBic: z.number().int().min(0).nullable(),
  currency: z.number().int().min(0).nullable(),
});

export const BatchProgressSchema = z.object({
  rows: z.number(),
  bytes: z.number(),
  totalBytes: z.number(),
  percent: z.number(),
  rowsPerSecond: z.number(),
  etaSeconds: z.number().nullable(),
});
export type BatchProgressInfo = z.infer<typeof BatchProgressSchema>;

export const BatchJobStatusSchema = z.enum(['running', 'done', 'failed', 'cancelled']);

export const BatchJobSchema = z.object({
  id: z.string(),
  environment: z.enum(['sandbox', 'live']),
  inputName: z.string(),
  status: BatchJobStatusSchema,
  rows: z.number().int(),
  valid: z.number().int(),
  invalid: z.number().int(),
  reasons: z.record(z.string(), z.number()),
  resultPath: z.string().nullable(),
  invalidOnlyPath: z.string().nullable(),
  error: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Live progress while running; null once finished. */
  progress: BatchProgressSchema.nullable(),
});
export type BatchJob = z.infer<typeof BatchJobSchema>;

export const BatchPreviewSchema = z.object({
  headers: z.array(z.string()),
  rows: z.array(z.array(z.string())),
  mapping: ColumnMappingSchema,
  hasHeader: z.boolean(),
  /** How the file is read: encoding, separator, line endings, header (issue 18: detected and handled). */
  notes: z.array(z.string()).optional(),
  /** Why the detected columns cannot run as they are (no identifier column): the user maps them. */
  problem: z.string().optional(),
});

export const BatchResultRowsSchema = z.object({
  headers: z.array(z.string()),
  rows: z.array(z.array(z.string())),
  /** Rows matching the filter (before offset/limit). */
  total: z.number().int(),
  offset: z.number().int(),
  limit: z.number().int(),
});
export type BatchResultRows = z.infer<typeof BatchResultRowsSchema>;
