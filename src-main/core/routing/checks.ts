// The single-item bank routing checks of decisions §5 (BIC, ABA routing number, correspondents, route) and the
// 100-item batch, pure over a routing directory. Each `evaluate*` also returns stable reason codes for CSV summaries.
import { judgeAba } from '../../../src-shared/validators/aba';
import { parseBic } from '../../../src-shared/validators/bic';
import type { CorrespondentEntry, RoutingDirectory } from './directory';
import { sandboxDirectory } from './sandbox-directory';
import type {
  BatchItem,
  BatchResultItem,
  BicResult,
  Correspondent,
  CorrespondentsResult,
  RouteResult,
  RoutingResult,
} from '../../../src-shared/schemas/routing';
import { isCurrencyCode } from '../../../src-shared/money';
import { VERIFICATION_ERRORS } from '../../../src-shared/errors';

export interface RoutingContext {
  /** In sandbox, null means the bundled sandbox fixtures. In live, null means no directory has been imported. */
  directory: RoutingDirectory | null;
  sandbox: boolean;
}

/** Stable machine codes behind the human `reasons`, counted in batch CSV summaries. */
export type ReasonCode =
  | 'BIC_MALFORMED'
  | 'FROM_BIC_MALFORMED'
  | 'TO_BIC_MALFORMED'
  | 'CURRENCY_MALFORMED'
  | 'ROUTING_NUMBER_FORMAT'
  | 'ROUTING_NUMBER_PREFIX'
  | 'ROUTING_NUMBER_CHECKSUM'
  | 'NOT_IN_DIRECTORY'
  | 'NO_ROUTING_DIRECTORY'
  | 'NO_ROUTE'
  | 'TEST_NUMBER_NOT_FOUND';

export interface Evaluation<R> {
  result: R;
  codes: ReasonCode[];
}

const TEST_NUMBER_NOT_FOUND = 'TEST_NUMBER_NOT_FOUND';

/** The directory a check answers from: the bundled fixtures in sandbox when none is given. */
export function directoryOf(ctx: RoutingContext): RoutingDirectory | null {
  return ctx.sandbox ? (ctx.directory ?? sandboxDirectory()) : ctx.directory;
}

function notFound(what: string): { code: string; message: string } {
  return {
    code: TEST_NUMBER_NOT_FOUND,
    message: `${what} is not in the sandbox test data. See GET /api/v1/sandbox/fixtures.`,
  };
}

/**
 * A well-formed identifier the directory does not hold: in the sandbox a failed TEST_NUMBER_NOT_FOUND result
 * (decisions §5), in live an invalid result with the reason.
 */
function notInDirectory(what: string, dir: RoutingDirectory, ctx: RoutingContext) {
  return ctx.sandbox
    ? { fields: { status: 'failed' as const, valid: false, directoryMatch: false, error: notFound(what) }, codes: ['TEST_NUMBER_NOT_FOUND'] as ReasonCode[] }
    : {
        fields: { status: 'success' as const, valid: false, directoryMatch: false, reasons: [`${what} is not in the routing directory "${dir.name}".`] },
        codes: ['NOT_IN_DIRECTORY'] as ReasonCode[],
      };
}

/**
 * Live mode without the directory a check needs: nothing could be looked up, so the answer is a non-answer —
 * `failed` with `INCONCLUSIVE` (not a negative result, never charged, retryable once a directory is imported;
 * interface §1.6 and §7.3), `valid: false` so it never counts as valid, and `reasons` saying what to import.
 */
function noDirectory(reason: string) {
  return {
    status: 'failed' as const,
    valid: false,
    directoryMatch: null,
    reasons: [reason],
    error: { code: 'INCONCLUSIVE', message: VERIFICATION_ERRORS.INCONCLUSIVE.message },
  };
}

function normaliseBic(value: string): string {
  if (value.length === 8 || value.length === 11) {
    let plain = true;
    for (let i = 0; i < value.length && plain; i++) plain = value.charCodeAt(i) > 32 && value.charCodeAt(i) < 127;
    if (plain) return value.toUpperCase();
  }
  return value.trim().replace(/\s/g, '').toUpperCase();
}


// ---------------------------------------------------------------------------------------------------------------
// BIC

export function evaluateBic(bic: string, ctx: RoutingContext): Evaluation<BicResult> {
  const parsed = parseBic(bic);
  if (!parsed.ok) {
    return {
      result: {
        status: 'success',
        valid: false,
        bic: bic.trim(),
        institutionCode: null,
        countryCode: null,
        locationCode: null,
        branchCode: null,
        isPrimaryOffice: null,
        isTestBic: null,
        bankName: null,
        city: null,
        directoryMatch: null,
        reasons: parsed.reasons,
      },
      codes: ['BIC_MALFORMED'],
    };
  }
  // Object literals written out rather than spread: batch files run this for every distinct BIC, and the spreads
  // were most of its cost. The key order is the one the API has always answered with.
  const norm = normaliseBic(bic);
  const p = parsed.parts;
  const dir = directoryOf(ctx);
  const entry = dir ? dir.findBic(norm) : null;
  if (!dir || entry) {
    return {
      result: {
        status: 'success',
        valid: true,
        bic: norm,
        institutionCode: p.institutionCode,
        countryCode: p.countryCode,
        locationCode: p.locationCode,
        branchCode: p.branchCode,
        isPrimaryOffice: p.isPrimaryOffice,
        isTestBic: p.isTestBic,
        bankName: entry ? entry.bankName : null,
        city: entry ? entry.city : null,
        directoryMatch: entry ? true : null,
      },
      codes: [],
    };
  }
  const miss = notInDirectory(`The BIC ${norm}`, dir, ctx);
  return {
    result: {
      bic: norm,
      institutionCode: p.institutionCode,
      countryCode: p.countryCode,
      locationCode: p.locationCode,
      branchCode: p.branchCode,
      isPrimaryOffice: p.isPrimaryOffice,
      isTestBic: p.isTestBic,
      bankName: null,
      city: null,
      ...miss.fields,
    },
    codes: miss.codes,
  };
}

export function checkBic(bic: string, ctx: RoutingContext): BicResult {
  return evaluateBic(bic, ctx).result;
}

// ---------------------------------------------------------------------------------------------------------------
// ABA routing number

export function evaluateRoutingNumber(routingNumber: string, ctx: RoutingContext): Evaluation<RoutingResult> {
  const v = routingNumber.trim();
  // The rule is shared with directory imports, which refuse the rows this refuses (validators/aba.ts).
  const { checksumValid, district, problems } = judgeAba(v);
  // Written out rather than spread (batch files run this for every distinct number); key order as the API's.
  if (problems.length > 0) {
    const reasons = problems.map((p) => p.reason);
    const codes: ReasonCode[] = problems.map((p) => p.code);
    return {
      result: {
        status: 'success',
        valid: false,
        routingNumber: v,
        checksumValid,
        federalReserveDistrict: district,
        bankName: null,
        directoryMatch: null,
        reasons,
      },
      codes,
    };
  }
  const dir = directoryOf(ctx);
  const entry = dir ? dir.findAba(v) : null;
  if (!dir || entry) {
    return {
      result: {
        status: 'success',
        valid: true,
        routingNumber: v,
        checksumValid,
        federalReserveDistrict: district,
        bankName: entry ? entry.bankName : null,
        directoryMatch: entry ? true : null,
      },
      codes: [],
    };
  }
  const miss = notInDirectory(`The routing number ${v}`, dir, ctx);
  return {
    result: { routingNumber: v, checksumValid, federalReserveDistrict: district, bankName: null, ...miss.fields },
    codes: miss.codes,
  };
}

export function checkRoutingNumber(routingNumber: string, ctx: RoutingContext): RoutingResult {
  return evaluateRoutingNumber(routingNumber, ctx).result;
}

// ---------------------------------------------------------------------------------------------------------------
// Correspondents

function toCorrespondent(dir: RoutingDirectory, e: CorrespondentEntry): Correspondent {
  const bic = normaliseBic(e.correspondentBic);
  const entry = dir.findBic(bic);
  return {
    bic,
    bankName: entry?.bankName ?? null,
    country: entry?.country ?? bic.slice(4, 6),
    currency: e.currency.toUpperCase(),
    confidence: e.confidence,
  };
}

export function evaluateCorrespondents(
  bic: string,
  currency: string | undefined,
  ctx: RoutingContext,
): Evaluation<CorrespondentsResult> {
  const parsed = parseBic(bic);
  const ccy = currency?.trim().toUpperCase();
  const reasons: string[] = [];
  const codes: ReasonCode[] = [];
  if (!parsed.ok) {
    reasons.push(...parsed.reasons);
    codes.push('BIC_MALFORMED');
  }
  if (ccy !== undefined && !isCurrencyCode(ccy)) {
    reasons.push(`The currency must be an ISO 4217 code of 3 letters; "${currency}" is not.`);
    codes.push('CURRENCY_MALFORMED');
  }
  const norm = parsed.ok ? normaliseBic(bic) : bic.trim();
  const base = { bic: norm, currency: ccy ?? null };
  if (reasons.length > 0) {
    return {
      result: { status: 'success', valid: false, ...base, bankName: null, correspondents: [], directoryMatch: null, reasons },
      codes,
    };
  }
  const dir = directoryOf(ctx);
  if (!dir) {
    return {
      result: {
        ...base,
        bankName: null,
        correspondents: [],
        ...noDirectory('No routing directory is imported, so correspondent banks cannot be looked up.'),
      },
      codes: ['NO_ROUTING_DIRECTORY'],
    };
  }
  const entry = dir.findBic(norm);
  const relations = dir.correspondentsOf(norm, ccy);
  if (!entry && ctx.sandbox) {
    return {
      result: {
        status: 'failed',
        valid: false,
        ...base,
        bankName: null,
        correspondents: [],
        directoryMatch: false,
        error: notFound(`The BIC ${norm}`),
      },
      codes: ['TEST_NUMBER_NOT_FOUND'],
    };
  }
  // A live directory may list relationships for a bank missing from its BIC table; they still count as a match.
  const matched = entry !== null || relations.length > 0;
  const correspondents = relations
    .map((e) => toCorrespondent(dir, e))
    .sort((a, b) => b.confidence - a.confidence || a.bic.localeCompare(b.bic));
  return {
    result: {
      status: 'success',
      valid: matched,
      ...base,
      bankName: entry?.bankName ?? null,
      correspondents,
      directoryMatch: matched,
      ...(matched ? {} : { reasons: [`The BIC ${norm} is not in the routing directory "${dir.name}".`] }),
    },
    codes: matched ? [] : ['NOT_IN_DIRECTORY'],
  };
}

export function findCorrespondents(bic: string, currency: string | undefined, ctx: RoutingContext): CorrespondentsResult {
  return evaluateCorrespondents(bic, currency, ctx).result;
}

// ---------------------------------------------------------------------------------------------------------------
// Route

interface PathCandidate {
  path: string[];
  hops: 0 | 1;
  confidence: number;
}

/** Relationships are compared by the 8-character institution+location: a branch settles through its head office. */
function same(a: string, b: string): boolean {
  return normaliseBic(a).slice(0, 8) === normaliseBic(b).slice(0, 8);
}

/**
 * Direct: either bank holds an account with the other. One hop through X: from holds at X and X at to, both hold
 * at X, or to holds at X and X at from. (X holding at both needs a reverse index the directory does not offer.)
 */
function findPath(dir: RoutingDirectory, from: string, to: string, ccy: string): PathCandidate | null {
  if (same(from, to)) return { path: [from, to], hops: 0, confidence: 1 };
  const outFrom = dir.correspondentsOf(from, ccy);
  const outTo = dir.correspondentsOf(to, ccy);
  const candidates: PathCandidate[] = [];
  for (const e of outFrom) if (same(e.correspondentBic, to)) candidates.push({ path: [from, to], hops: 0, confidence: e.confidence });
  for (const e of outTo) if (same(e.correspondentBic, from)) candidates.push({ path: [from, to], hops: 0, confidence: e.confidence });
  if (candidates.length === 0) {
    for (const e1 of outFrom) {
      const x = normaliseBic(e1.correspondentBic);
      for (const e2 of dir.correspondentsOf(x, ccy)) {
        if (same(e2.correspondentBic, to)) candidates.push({ path: [from, x, to], hops: 1, confidence: e1.confidence * e2.confidence });
      }
      for (const e2 of outTo) {
        if (same(e2.correspondentBic, x)) candidates.push({ path: [from, x, to], hops: 1, confidence: e1.confidence * e2.confidence });
      }
    }
    for (const e1 of outTo) {
      const y = normaliseBic(e1.correspondentBic);
      for (const e2 of dir.correspondentsOf(y, ccy)) {
        if (same(e2.correspondentBic, from)) candidates.push({ path: [from, y, to], hops: 1, confidence: e1.confidence * e2.confidence });
      }
    }
  }
  candidates.sort(
    (a, b) => a.hops - b.hops || b.confidence - a.confidence || a.path.join('>').localeCompare(b.path.join('>')),
  );
  const best = candidates[0];
  return best ? { ...best, confidence: Math.round(best.confidence * 1e6) / 1e6 } : null;
}

export function evaluateRoute(fromBic: string, toBic: string, currency: string, ctx: RoutingContext): Evaluation<RouteResult> {
  const pf = parseBic(fromBic);
  const pt = parseBic(toBic);
  const ccy = currency.trim().toUpperCase();
  const reasons: string[] = [];
  const codes: ReasonCode[] = [];
  if (!pf.ok) {
    reasons.push(...pf.reasons.map((r) => `fromBic: ${r}`));
    codes.push('FROM_BIC_MALFORMED');
  }
  if (!pt.ok) {
    reasons.push(...pt.reasons.map((r) => `toBic: ${r}`));
    codes.push('TO_BIC_MALFORMED');
  }
  if (!isCurrencyCode(ccy)) {
    reasons.push(`The currency must be an ISO 4217 code of 3 letters; "${currency}" is not.`);
    codes.push('CURRENCY_MALFORMED');
  }
  const from = pf.ok ? normaliseBic(fromBic) : fromBic.trim();
  const to = pt.ok ? normaliseBic(toBic) : toBic.trim();
  const base = { fromBic: from, toBic: to, currency: ccy };
  const noRoute = { path: [] as string[], hops: null, confidence: null };
  if (reasons.length > 0) {
    return { result: { status: 'success', valid: false, ...base, ...noRoute, directoryMatch: null, reasons }, codes };
  }
  const dir = directoryOf(ctx);
  if (!dir) {
    return {
      result: { ...base, ...noRoute, ...noDirectory('No routing directory is imported, so correspondent routes cannot be checked.') },
      codes: ['NO_ROUTING_DIRECTORY'],
    };
  }
  const fromEntry = dir.findBic(from);
  const toEntry = dir.findBic(to);
  const matched = fromEntry !== null && toEntry !== null;
  if (!matched && ctx.sandbox) {
    const missing = [fromEntry ? null : from, toEntry ? null : to].filter((b): b is string => b !== null);
    return {
      result: {
        status: 'failed',
        valid: false,
        ...base,
        ...noRoute,
        directoryMatch: false,
        error: notFound(`The BIC ${missing.join(' and ')}`),
      },
      codes: ['TEST_NUMBER_NOT_FOUND'],
    };
  }
  const found = findPath(dir, from, to, ccy);
  if (!found) {
    return {
      result: {
        status: 'success',
        valid: false,
        ...base,
        ...noRoute,
        directoryMatch: matched,
        reasons: [`No direct or one-hop ${ccy} correspondent route from ${from} to ${to} is on file.`],
      },
      codes: ['NO_ROUTE'],
    };
  }
  return {
    result: { status: 'success', valid: true, ...base, ...found, directoryMatch: matched },
    codes: [],
  };
}

export function checkRoute(fromBic: string, toBic: string, currency: string, ctx: RoutingContext): RouteResult {
  return evaluateRoute(fromBic, toBic, currency, ctx).result;
}

// ---------------------------------------------------------------------------------------------------------------
// Batch

export function evaluateItem(item: BatchItem, ctx: RoutingContext): Evaluation<BicResult | RoutingResult | RouteResult> {
  switch (item.type) {
    case 'bic':
      return evaluateBic(item.bic, ctx);
    case 'routing':
      return evaluateRoutingNumber(item.routingNumber, ctx);
    case 'route':
      return evaluateRoute(item.fromBic, item.toBic, item.currency, ctx);
  }
}

/** Checks 1..100 items (the caller answers 422 BATCH_TOO_LARGE beyond that); a failed item counts as invalid. */
export function runBatch(
  items: readonly BatchItem[],
  ctx: RoutingContext,
): { results: BatchResultItem[]; summary: { total: number; valid: number; invalid: number } } {
  const results = items.map((item, index) => {
    const { result } = evaluateItem(item, ctx);
    return { index, type: item.type, ...result } as BatchResultItem;
  });
  const valid = results.filter((r) => r.valid).length;
  return { results, summary: { total: results.length, valid, invalid: results.length - valid } };
}
