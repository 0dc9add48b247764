// Live-mode provider configuration (docs/providers.md): which upstream adapter answers which kind and corridor,
// its endpoint, credential and limits. A stored credential is never part of any output: only `configured`/masked.
import { z } from 'zod';
import { TRANSIENT_CODES, VERIFICATION_ERRORS, type VerificationErrorCode } from '../errors';

export const PROVIDER_ADAPTERS = ['generic', 'epc-vop', 'uk-cop', 'stand-in'] as const;
export const ProviderAdapterSchema = z.enum(PROVIDER_ADAPTERS);
export type ProviderAdapter = z.infer<typeof ProviderAdapterSchema>;

export const PROVIDER_KINDS = ['account', 'phone', 'identity', 'face', 'address'] as const;
export const ProviderKindSchema = z.enum(PROVIDER_KINDS);

/** `kind:CC` (one corridor or market) or `kind:*` (every other country of that kind). */
export const ProviderRouteSchema = z
  .string()
  .trim()
  .regex(/^(account|phone|identity|face|address):([A-Za-z]{2}|\*)$/, 'a route is kind:CC or kind:* (e.g. account:GB, phone:*)')
  .transform((r) => {
    const [kind, country] = r.split(':') as [string, string];
    return `${kind}:${country.toUpperCase()}`;
  });

const codes = Object.keys(VERIFICATION_ERRORS) as [VerificationErrorCode, ...VerificationErrorCode[]];

/** One row of a generic adapter's mapping table: an upstream `result` value → our outcome. */
export const ResultMappingSchema = z.object({
  outcome: z.enum(['success', 'failed', 'error']),
  code: z.enum(codes).optional(),
  message: z.string().max(300).optional(),
});
export type ResultMapping = z.infer<typeof ResultMappingSchema>;

/**
 * The upstream values a scheme adapter can answer with: a closed set, so a mapping key outside it is a typo that
 * would never apply. EPC VoP `partyNameMatch` codes; Pay.UK CoP reason codes plus MATCHED / NOT_MATCHED (a match,
 * a no-match without a reason). The generic protocol's table is open (a row may name a value beyond the five).
 */
export const MAPPING_KEYS: Partial<Record<ProviderAdapter, readonly string[]>> = {
  'epc-vop': ['MTCH', 'CMTC', 'NMTC', 'NOAP'],
  'uk-cop': ['MATCHED', 'NOT_MATCHED', 'ANNM', 'MBAM', 'BANM', 'PANM', 'BAMM', 'PAMM', 'AC01', 'IVCR', 'CASS', 'ACNS', 'OPTO', 'SCNS'],
};

/** Codes of a non-answer (interface §1.6, §2.6: `error` means no answer; never charged). */
const NON_ANSWER_CODES: readonly VerificationErrorCode[] = ['INCONCLUSIVE', ...TRANSIENT_CODES];

/**
 * What is wrong with a mapping being saved, per row (`mapping.<key>`): a row that contradicts itself, a key the adapter
 * never answers with, any row for the stand-in. A row kept exactly as `stored` holds it (same adapter) is not judged
 * again: a mapping saved before these rules must not block every later edit of its provider (a timeout, a new
 * secret); the adapters still apply such a row as they did.
 */
export function mappingIssues(adapter: ProviderAdapter, mapping: Record<string, ResultMapping>, stored: Record<string, unknown> | null): { field: string; message: string }[] {
  const issues: { field: string; message: string }[] = [];
  for (const [key, row] of Object.entries(mapping)) {
    if (stored && sameRow(stored[key], row)) continue;
    const field = `mapping.${key}`;
    if (adapter === 'stand-in') {
      issues.push({ field, message: `mapping "${key}": the stand-in adapter answers from the sandbox fixtures and takes no mapping` });
      continue;
    }
    const problem = mappingRowProblem(row);
    if (problem) issues.push({ field, message: `mapping "${key}": ${problem}` });
    const keys = MAPPING_KEYS[adapter];
    if (keys && !keys.includes(key)) issues.push({ field, message: `mapping "${key}": not a value the ${adapter} adapter answers with (one of ${keys.join(', ')})` });
  }
  return issues;
}

/** Two mapping rows alike, whatever their keys' order (rows are flat: outcome, code, message). */
function sameRow(a: unknown, b: ResultMapping): boolean {
  if (!a || typeof a !== 'object') return false;
  const flat = (o: object) => JSON.stringify(Object.entries(o).filter(([, v]) => v !== undefined).sort(([x], [y]) => x.localeCompare(y)));
  return flat(a) === flat(b);
}

/** Why a mapping row contradicts itself (null when it does not): each outcome has its own codes. */
export function mappingRowProblem(row: ResultMapping): string | null {
  if (row.outcome === 'success') {
    if (row.code !== undefined || row.message !== undefined) return 'outcome "success" takes no code or message (a match has no error)';
    return null;
  }
  if (row.code === undefined) return null;
  const nonAnswer = NON_ANSWER_CODES.includes(row.code);
  if (row.outcome === 'error' && !nonAnswer) {
    return `outcome "error" means no answer (interface §1.6, §2.6), so its code must be INCONCLUSIVE or a transient code (${TRANSIENT_CODES.join(', ')}), not ${row.code}; use outcome "failed" for a definitive answer`;
  }
  if (row.outcome === 'failed' && nonAnswer) {
    return `outcome "failed" is a definitive answer, so its code may not be ${row.code} (a non-answer); use outcome "error"`;
  }
  return null;
}

export const ProviderIdSchema = z.string().trim().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lowercase letters, digits and dashes (max 40)');

export const ProviderLimitsSchema = z.object({
  /** One upstream HTTP exchange. */
  timeoutMs: z.number().int().min(50).max(120_000).default(5_000),
  /** The whole check: queueing for a slot, every attempt and backoff. */
  deadlineMs: z.number().int().min(50).max(290_000).default(15_000),
  maxConcurrency: z.number().int().min(1).max(256).default(8),
  /** Requests waiting for a slot; beyond it the check answers VERIFICATION_RATE_LIMITED. */
  maxQueue: z.number().int().min(0).max(10_000).default(32),
  /** Extra attempts after a transport failure (never after an answer). */
  retries: z.number().int().min(0).max(5).default(2),
  breakerThreshold: z.number().int().min(1).max(1000).default(5),
  breakerCooldownMs: z.number().int().min(100).max(3_600_000).default(30_000),
});

export const ProviderInputSchema = z
  .object({
    id: ProviderIdSchema,
    adapter: ProviderAdapterSchema,
    baseUrl: z.string().trim().max(2000).default(''),
    authScheme: z.enum(['bearer', 'api-key']).default('bearer'),
    /** Omitted: keep the stored credential. */
    secret: z.string().min(1).max(4096).optional(),
    clearSecret: z.boolean().optional(),
    routes: z.array(ProviderRouteSchema).max(200).default([]),
    mapping: z.record(z.string().max(40), ResultMappingSchema).optional(),
    /**
     * PEM certificate(s) the upstream's TLS certificate must chain to (a private CA or a self-signed upstream).
     * Omitted: keep the stored one; checked as X.509 when saved (provider-config.ts).
     */
    caCert: z.string().trim().min(1).max(64_000).optional(),
    clearCaCert: z.boolean().optional(),
  })
  .extend(ProviderLimitsSchema.shape)
  .superRefine((v, ctx) => {
    // The mapping's rows are judged when saved (mappingIssues, against the stored rows), not here.
    if (v.adapter === 'stand-in') return;
    let u: URL | null = null;
    try {
      u = new URL(v.baseUrl);
    } catch {
      /* reported below */
    }
    if (!u) {
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'a base URL (https://…) is required' });
      return;
    }
    const loopback = u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]';
    // Credentials travel in headers: plain http only to this machine (the simulator, a local tunnel).
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback)) {
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'the base URL must be https:// (http:// only for 127.0.0.1/localhost)' });
    }
    if (u.username || u.password) ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'put credentials in the secret, not the URL' });
    // A trusted CA only means something over TLS; a stored CA is checked against the URL when saved.
    if (v.caCert !== undefined && u.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', path: ['caCert'], message: 'a CA certificate needs an https:// base URL' });
    }
    if (v.caCert !== undefined && !v.caCert.includes('-----BEGIN CERTIFICATE-----')) {
      ctx.addIssue({ code: 'custom', path: ['caCert'], message: 'paste the CA certificate in PEM form (-----BEGIN CERTIFICATE-----)' });
    }
  });
export type ProviderInput = z.input<typeof ProviderInputSchema>;
export type ProviderSettings = z.output<typeof ProviderInputSchema>;

/** What is shown of a stored CA certificate: enough to recognise it, never needed again. */
export const CaInfoSchema = z.object({
  subject: z.string(),
  issuer: z.string(),
  /** SHA-256 fingerprint, colon-separated hex, of the first certificate. */
  fingerprint256: z.string(),
  validTo: z.string(),
  /** Certificates in the stored bundle. */
  count: z.number().int(),
});
export type CaInfo = z.infer<typeof CaInfoSchema>;

export const CircuitStateSchema = z.enum(['closed', 'open', 'half-open']);

export const ProviderViewSchema = z
  .object({
    id: z.string(),
    adapter: ProviderAdapterSchema,
    baseUrl: z.string(),
    authScheme: z.enum(['bearer', 'api-key']),
    routes: z.array(z.string()),
    mapping: z.record(z.string(), ResultMappingSchema).nullable(),
    /** Never the value: whether one is stored, and `••••` + its last four characters. */
    secret: z.object({ configured: z.boolean(), masked: z.string().nullable() }),
    /** The extra CA the upstream's certificate is checked against (null: the system's public roots). */
    ca: CaInfoSchema.nullable(),
    state: z.object({
      circuit: CircuitStateSchema,
      consecutiveFailures: z.number().int(),
      inFlight: z.number().int(),
      queued: z.number().int(),
      lastError: z.string().nullable(),
      lastErrorAt: z.string().nullable(),
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .extend(ProviderLimitsSchema.shape);
export type ProviderView = z.infer<typeof ProviderViewSchema>;

export const CacheTtlSchema = z.record(ProviderKindSchema, z.number().int().min(0));
export type CacheTtl = Record<(typeof PROVIDER_KINDS)[number], number>;

export const ProvidersOverviewSchema = z.object({
  providers: z.array(ProviderViewSchema),
  cacheTtlSeconds: z.object({ account: z.number(), phone: z.number(), identity: z.number(), face: z.number(), address: z.number() }),
  secretProtection: z.string(),
});
export type ProvidersOverview = z.infer<typeof ProvidersOverviewSchema>;

export const ProbeResultSchema = z.object({
  id: z.string(),
  ok: z.boolean(),
  /** HTTP status of the probe when the upstream answered. */
  httpStatus: z.number().int().nullable(),
  message: z.string(),
});
export type ProbeResult = z.infer<typeof ProbeResultSchema>;

/** The longest time a definitive answer is cached (providers:cacheTtl, `vconsole providers cache-ttl`): 30 days. */
export const CACHE_TTL_MAX_SECONDS = 30 * 86_400;
