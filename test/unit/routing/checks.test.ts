// Single-item routing checks (decisions §5) in sandbox, live without a directory and live with one.
import { describe, expect, it } from 'vitest';
import { abaChecksumValid } from '../../../src-shared/validators/aba';
import { checkBic, checkRoute, checkRoutingNumber, findCorrespondents, runBatch, type RoutingContext } from '../../../src-main/core/routing/checks';
import { createMemoryDirectory } from '../../../src-main/core/routing/directory';
import { routingSandboxFixtures, SANDBOX_DIRECTORY_ENTRIES } from '../../../src-main/core/routing/sandbox-directory';
import {
  BatchRequestSchema,
  BatchResultSchema,
  BicResultSchema,
  CorrespondentsResultSchema,
  isBatchTooLarge,
  RouteResultSchema,
  RoutingNumberResultSchema,
  type BatchItem,
} from '../../../src-shared/schemas/routing';

const sandbox: RoutingContext = { directory: null, sandbox: true };
const liveBare: RoutingContext = { directory: null, sandbox: false };
const liveDir: RoutingContext = {
  sandbox: false,
  directory: createMemoryDirectory('imported-2026-11', '2026-11-20T10:00:00.000Z', {
    bics: [
      { bic: 'DEUTDEFF', bankName: 'Deutsche Bank AG', city: 'Frankfurt am Main', country: 'DE' },
      { bic: 'CHASUS33', bankName: 'JPMorgan Chase Bank, N.A.', city: 'New York', country: 'US' },
    ],
    abas: [{ routingNumber: '071000013', bankName: 'JPMorgan Chase Bank, N.A.', city: 'Chicago', state: 'IL' }],
    correspondents: [{ bic: 'DEUTDEFF', correspondentBic: 'CHASUS33', currency: 'USD', confidence: 0.9 }],
  }),
};

describe('sandbox fixtures', () => {
  it('every fixture routing number in the directory passes the ABA checksum', () => {
    for (const a of SANDBOX_DIRECTORY_ENTRIES.abas) expect(abaChecksumValid(a.routingNumber), a.routingNumber).toBe(true);
  });

  it('covers valid, invalid and unknown identifiers of every kind', () => {
    const cases = routingSandboxFixtures();
    for (const kind of ['bic', 'routing-codes', 'correspondents'] as const) {
      const ofKind = cases.filter((c) => c.kind === kind);
      expect(ofKind.some((c) => c.expected.status === 'success' && c.expected.fields?.valid === true)).toBe(true);
      expect(ofKind.some((c) => c.expected.status === 'success' && c.expected.fields?.valid === false)).toBe(true);
      expect(ofKind.some((c) => c.expected.errorCode === 'TEST_NUMBER_NOT_FOUND')).toBe(true);
    }
  });

  // The documented list is the contract: each case must give exactly what docs/routing.md and /sandbox/fixtures say.
  for (const c of routingSandboxFixtures()) {
    it(`${c.kind}: ${c.description}`, () => {
      const req = c.request as Record<string, string>;
      let result: Record<string, unknown>;
      if (c.kind === 'bic') result = BicResultSchema.parse(checkBic(req.bic ?? '', sandbox));
      else if (c.kind === 'routing-codes') result = RoutingNumberResultSchema.parse(checkRoutingNumber(req.routingNumber ?? '', sandbox));
      else if (c.kind === 'correspondents') {
        const r = CorrespondentsResultSchema.parse(findCorrespondents(req.bic ?? '', req.currency, sandbox));
        result = { ...r, correspondentBics: r.correspondents.map((x) => x.bic) };
      } else {
        const body = BatchRequestSchema.parse(c.request);
        const r = BatchResultSchema.parse(runBatch(body.items, sandbox));
        result = { ...r, status: 'success', paths: r.results.map((x) => ('path' in x ? x.path : null)) };
      }
      expect(result.status).toBe(c.expected.status);
      if (c.expected.errorCode) expect((result.error as { code: string }).code).toBe(c.expected.errorCode);
      else expect(result.error).toBeUndefined();
      for (const [k, v] of Object.entries(c.expected.fields ?? {})) expect(result[k], k).toEqual(v);
    });
  }
});

describe('checkBic', () => {
  it('returns the parts and the bank of a sandbox BIC', () => {
    expect(checkBic('DEUTDEFF500', sandbox)).toMatchObject({
      status: 'success',
      valid: true,
      bic: 'DEUTDEFF500',
      institutionCode: 'DEUT',
      countryCode: 'DE',
      locationCode: 'FF',
      branchCode: '500',
      isPrimaryOffice: false,
      isTestBic: false,
      city: 'Frankfurt am Main',
      directoryMatch: true,
    });
  });

  it('reports a malformed BIC as valid:false with reasons, never as an error', () => {
    const r = checkBic('DE!TDEFF', sandbox);
    expect(r.status).toBe('success');
    expect(r.valid).toBe(false);
    expect(r.reasons?.length).toBeGreaterThan(0);
    expect(r.error).toBeUndefined();
    expect(r.institutionCode).toBeNull();
  });

  it('in live without a directory reports structure only', () => {
    const r = checkBic('UNKNGB2L', liveBare);
    expect(r).toMatchObject({ status: 'success', valid: true, countryCode: 'GB', bankName: null, city: null, directoryMatch: null });
  });

  it('in live with a directory reports directoryMatch true or false', () => {
    expect(checkBic('CHASUS33', liveDir)).toMatchObject({ valid: true, directoryMatch: true, bankName: 'JPMorgan Chase Bank, N.A.' });
    const miss = checkBic('BARCGB22', liveDir);
    expect(miss).toMatchObject({ status: 'success', valid: false, directoryMatch: false, bankName: null });
    expect(miss.error).toBeUndefined();
    expect(miss.reasons?.[0]).toContain('imported-2026-11');
  });
});

describe('checkRoutingNumber', () => {
  it('finds the district and bank of a sandbox number', () => {
    expect(checkRoutingNumber(' 026009593 ', sandbox)).toMatchObject({
      status: 'success',
      valid: true,
      routingNumber: '026009593',
      checksumValid: true,
      federalReserveDistrict: 2,
      bankName: 'Bank of America, N.A.',
    });
  });

  it('in sandbox answers TEST_NUMBER_NOT_FOUND for a well-formed unknown number', () => {
    const r = checkRoutingNumber('322271627', sandbox);
    expect(r.status).toBe('failed');
    expect(r.valid).toBe(false);
    expect(r.error?.code).toBe('TEST_NUMBER_NOT_FOUND');
  });

  it('does not look up a number that fails the checksum', () => {
    const r = checkRoutingNumber('026009594', sandbox);
    expect(r).toMatchObject({ status: 'success', valid: false, checksumValid: false, directoryMatch: null });
    expect(r.reasons).toHaveLength(1);
  });

  it('live without a directory: checksum only, bankName and directoryMatch null', () => {
    expect(checkRoutingNumber('322271627', liveBare)).toMatchObject({
      status: 'success',
      valid: true,
      checksumValid: true,
      federalReserveDistrict: 12,
      bankName: null,
      directoryMatch: null,
    });
  });

  it('live with a directory', () => {
    expect(checkRoutingNumber('071000013', liveDir)).toMatchObject({ valid: true, directoryMatch: true, federalReserveDistrict: 7 });
    expect(checkRoutingNumber('021000021', liveDir)).toMatchObject({ status: 'success', valid: false, directoryMatch: false });
  });
});

describe('findCorrespondents', () => {
  it('sorts by confidence, highest first, with bank names and countries', () => {
    const r = findCorrespondents('BARCGB22', undefined, sandbox);
    const conf = r.correspondents.map((c) => c.confidence);
    expect(conf).toEqual([...conf].sort((a, b) => b - a));
    expect(r.correspondents[0]).toEqual({ bic: 'DEUTDEFF', bankName: 'Deutsche Bank AG', country: 'DE', currency: 'EUR', confidence: 0.85 });
  });

  it('filters by currency, case-insensitively', () => {
    const r = findCorrespondents('DEUTDEFF', 'gbp', sandbox);
    expect(r.currency).toBe('GBP');
    expect(r.correspondents.map((c) => c.bic)).toEqual(['BARCGB22']);
  });

  it('live: without a directory nothing is known; with one the imported relationships answer', () => {
    // Nothing could be looked up: a non-answer (INCONCLUSIVE, never charged), not an empty list of correspondents.
    expect(findCorrespondents('DEUTDEFF', 'USD', liveBare)).toMatchObject({ status: 'failed', valid: false, correspondents: [], directoryMatch: null, error: { code: 'INCONCLUSIVE' } });
    expect(findCorrespondents('DEUTDEFF', 'USD', liveDir).correspondents.map((c) => c.bic)).toEqual(['CHASUS33']);
    expect(findCorrespondents('BNPAFRPP', 'USD', liveDir)).toMatchObject({ valid: false, directoryMatch: false });
  });
});

describe('checkRoute', () => {
  it('finds a direct route in either direction of the relationship', () => {
    expect(checkRoute('DEUTDEFF', 'CHASUS33', 'USD', sandbox)).toMatchObject({ valid: true, hops: 0, path: ['DEUTDEFF', 'CHASUS33'], confidence: 0.95 });
    // CHASUS33 holds EUR at DEUTDEFF, so DEUTDEFF can pay CHASUS33 in EUR by crediting that account.
    expect(checkRoute('DEUTDEFF', 'CHASUS33', 'EUR', sandbox)).toMatchObject({ valid: true, hops: 0 });
  });

  it('finds a one-hop route through a shared correspondent', () => {
    const r = checkRoute('DEUTDEFF', 'BNPAFRPP', 'USD', sandbox);
    expect(r).toMatchObject({ valid: true, hops: 1, path: ['DEUTDEFF', 'CITIUS33', 'BNPAFRPP'] });
    expect(r.confidence).toBeCloseTo(0.9 * 0.85, 6);
  });

  it('treats two offices of one bank as a direct route', () => {
    expect(checkRoute('DEUTDEFF500', 'DEUTDEFF', 'JPY', sandbox)).toMatchObject({ valid: true, hops: 0, confidence: 1 });
  });

  it('reports a missing route, malformed input and unknown BICs differently', () => {
    expect(checkRoute('COBADEFF', 'CHASUS33', 'GBP', sandbox)).toMatchObject({ status: 'success', valid: false, path: [], hops: null });
    const bad = checkRoute('DEUT', 'CHASUS33', 'US', sandbox);
    expect(bad).toMatchObject({ status: 'success', valid: false });
    expect(bad.reasons?.some((x) => x.startsWith('fromBic:'))).toBe(true);
    expect(bad.reasons?.some((x) => x.includes('ISO 4217'))).toBe(true);
    const unknown = checkRoute('DEUTDEFF', 'UNKNGB2L', 'USD', sandbox);
    expect(unknown).toMatchObject({ status: 'failed', valid: false, error: { code: 'TEST_NUMBER_NOT_FOUND' } });
    expect(unknown.error?.message).toContain('UNKNGB2L');
  });

  it('cannot judge a route in live without a directory', () => {
    expect(checkRoute('DEUTDEFF', 'CHASUS33', 'USD', liveBare)).toMatchObject({ status: 'failed', valid: false, directoryMatch: null, error: { code: 'INCONCLUSIVE' } });
    expect(checkRoute('DEUTDEFF', 'CHASUS33', 'USD', liveDir)).toMatchObject({ valid: true, directoryMatch: true });
  });
});

describe('runBatch and schemas', () => {
  it('checks mixed items in order and summarises', () => {
    const items: BatchItem[] = [
      { type: 'bic', bic: 'BNPAFRPP' },
      { type: 'routing', routingNumber: '121000248' },
      { type: 'route', fromBic: 'BNPAFRPP', toBic: 'HSBCGB2L', currency: 'USD' },
      { type: 'bic', bic: 'XX' },
      { type: 'routing', routingNumber: '071000013' },
    ];
    const out = BatchResultSchema.parse(runBatch(items, sandbox));
    expect(out.results.map((r) => [r.index, r.type, r.valid])).toEqual([
      [0, 'bic', true],
      [1, 'routing', true],
      [2, 'route', true],
      [3, 'bic', false],
      [4, 'routing', false],
    ]);
    expect(out.results[4]?.status).toBe('failed');
    expect(out.summary).toEqual({ total: 5, valid: 3, invalid: 2 });
  });

  it('accepts 1..100 items; more is flagged for BATCH_TOO_LARGE before validation', () => {
    const item = { type: 'bic', bic: 'DEUTDEFF' };
    expect(BatchRequestSchema.safeParse({ items: [] }).success).toBe(false);
    expect(BatchRequestSchema.safeParse({ items: Array(100).fill(item) }).success).toBe(true);
    expect(isBatchTooLarge({ items: Array(100).fill(item) })).toBe(false);
    expect(isBatchTooLarge({ items: Array(101).fill(item) })).toBe(true);
    expect(BatchRequestSchema.safeParse({ items: [{ type: 'iban', iban: 'x' }] }).success).toBe(false);
  });

  it('results of every check match their schema', () => {
    expect(() => RouteResultSchema.parse(checkRoute('DEUT', 'X', 'usd', liveBare))).not.toThrow();
    expect(() => BicResultSchema.parse(checkBic('', liveBare))).not.toThrow();
  });
});
