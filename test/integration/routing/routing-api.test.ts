// The bank-routing endpoints over real HTTP (interface §4.2, decisions §5): sandbox fixtures, unknown and malformed
// identifiers, BATCH_TOO_LARGE, idempotency and billing of correspondents, and live mode with and without a directory.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWallet } from '../../../src-main/core/billing/billing';
import { api, enableLive, newKey, startTestService, type TestService } from '../../helpers/harness';

let ts: TestService;
let base: string;

beforeAll(async () => {
  ts = await startTestService();
  base = ts.url;
});
afterAll(async () => {
  await ts.stop();
});

const post = (path: string, body: unknown, key = ts.sandboxKey, idem?: string) =>
  api(base, 'POST', `/verifications/${path}`, { key, body, ...(idem !== undefined ? { idem } : {}) });

describe('sandbox', () => {
  it('answers a listed BIC with its parts, bank and an rte_ id', async () => {
    const r = await post('bic', { bic: 'DEUTDEFF500' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'success',
      valid: true,
      bic: 'DEUTDEFF500',
      institutionCode: 'DEUT',
      countryCode: 'DE',
      locationCode: 'FF',
      branchCode: '500',
      isPrimaryOffice: false,
      bankName: 'Deutsche Bank AG (Frankfurt branch 500)',
      directoryMatch: true,
      environment: 'sandbox',
      directory: { name: 'sandbox', importedAt: null },
    });
    expect(r.body.id).toMatch(/^rte_[0-9a-f]{24}$/);
  });

  it('answers TEST_NUMBER_NOT_FOUND for a well-formed identifier outside the test set', async () => {
    const bic = await post('bic', { bic: 'UNKNGB2L' });
    expect(bic.status).toBe(200);
    expect(bic.body).toMatchObject({ status: 'failed', valid: false, error: { code: 'TEST_NUMBER_NOT_FOUND' } });
    const aba = await post('routing-codes', { routingNumber: '071000013' });
    expect(aba.body).toMatchObject({ status: 'failed', valid: false, checksumValid: true, error: { code: 'TEST_NUMBER_NOT_FOUND' } });
  });

  it('answers malformed input with 200 valid:false and reasons, not a 422', async () => {
    const bic = await post('bic', { bic: 'DEUT12FF' });
    expect(bic.status).toBe(200);
    expect(bic.body.status).toBe('success');
    expect(bic.body.valid).toBe(false);
    expect(bic.body.reasons.length).toBeGreaterThan(0);
    const aba = await post('routing-codes', { routingNumber: '021000022' });
    expect(aba.status).toBe(200);
    expect(aba.body).toMatchObject({ status: 'success', valid: false, checksumValid: false });
    const batch = await post('batch', { items: [{ type: 'bic', bic: 'X' }] });
    expect(batch.status).toBe(200);
    expect(batch.body.summary).toEqual({ total: 1, valid: 0, invalid: 1 });
  });

  it('answers a wrong JSON type or a missing field with 422 VALIDATION_ERROR', async () => {
    expect((await post('bic', { bic: 42 })).body.code).toBe('VALIDATION_ERROR');
    expect((await post('routing-codes', {})).status).toBe(422);
    expect((await post('batch', { items: [] })).body.code).toBe('VALIDATION_ERROR');
    expect((await post('batch', { items: [{ type: 'wire', iban: 'x' }] })).status).toBe(422);
  });

  it('answers 101 items with 422 BATCH_TOO_LARGE and accepts 100', async () => {
    const item = { type: 'bic', bic: 'DEUTDEFF' };
    const big = await post('batch', { items: Array.from({ length: 101 }, () => item) });
    expect(big.status).toBe(422);
    expect(big.body.code).toBe('BATCH_TOO_LARGE');
    // Even with malformed items: the size is judged before the schema.
    const bigBad = await post('batch', { items: Array.from({ length: 101 }, () => ({ type: 'nope' })) });
    expect(bigBad.body.code).toBe('BATCH_TOO_LARGE');
    const ok = await post('batch', { items: Array.from({ length: 100 }, () => item) });
    expect(ok.status).toBe(200);
    expect(ok.body.summary).toEqual({ total: 100, valid: 100, invalid: 0 });
    expect(ok.body.results[99]).toMatchObject({ index: 99, type: 'bic', valid: true });
    // A batch is a batch (decisions §1: `bat_`), recorded under that id; single checks stay `rte_`.
    expect(ok.body.id).toMatch(/^bat_[0-9a-f]{24}$/);
    const stored = await ts.service.deps.sql.all<{ kind: string }>('SELECT kind FROM routing_checks WHERE id = ?', [ok.body.id]);
    expect(stored).toEqual([{ kind: 'batch' }]);
  });

  it('requires an API key', async () => {
    const r = await api(base, 'POST', '/verifications/bic', { body: { bic: 'DEUTDEFF' } });
    expect(r.status).toBe(401);
  });

  it('requires an Idempotency-Key on correspondents and replays a repeated one', async () => {
    const missing = await post('correspondents', { bic: 'DEUTDEFF', currency: 'USD' });
    expect(missing.status).toBe(422);
    expect(missing.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    const key = newKey();
    const first = await post('correspondents', { bic: 'DEUTDEFF', currency: 'USD' }, ts.sandboxKey, key);
    expect(first.status).toBe(200);
    expect(first.body.correspondents.map((c: { bic: string }) => c.bic)).toEqual(['CHASUS33', 'CITIUS33']);
    expect(first.body.charge.status).toBe('not_charged');
    const again = await post('correspondents', { bic: 'DEUTDEFF', currency: 'USD' }, ts.sandboxKey, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const conflict = await post('correspondents', { bic: 'BARCGB22' }, ts.sandboxKey, key);
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('IDEMPOTENCY_KEY_CONFLICT');
  });

  it('lists the routing fixtures in the public catalogue and each one answers as documented', async () => {
    const res = await api(base, 'GET', '/sandbox/fixtures', { key: ts.sandboxKey });
    expect(res.status).toBe(200);
    const kinds = new Set(['bic', 'routing-codes', 'correspondents', 'batch']);
    const fixtures = (res.body.data as { kind: string; description: string; request: unknown; expected: { status: string; errorCode?: string; fields?: Record<string, unknown> } }[]).filter((f) => kinds.has(f.kind));
    for (const k of kinds) expect(fixtures.some((f) => f.kind === k), k).toBe(true);
    expect(fixtures.length).toBeGreaterThanOrEqual(20);
    for (const f of fixtures) {
      const r = await post(f.kind, f.request, ts.sandboxKey, newKey());
      expect(r.status, f.description).toBe(200);
      expect(r.body.status, f.description).toBe(f.expected.status);
      if (f.expected.errorCode) expect(r.body.error?.code, f.description).toBe(f.expected.errorCode);
      for (const [field, v] of Object.entries(f.expected.fields ?? {})) expect(r.body[field], `${f.description}: ${field}`).toEqual(v);
    }
  });

  it('matches the shorthand of the fixture file (correspondent BICs, route paths) independently of the catalogue', async () => {
    const file = JSON.parse(readFileSync(join(process.cwd(), 'resources/routing/sandbox-fixtures.json'), 'utf8')) as {
      cases: { kind: string; request: unknown; expected: { fields?: { correspondentBics?: string[]; paths?: string[][] } } }[];
    };
    let checked = 0;
    for (const c of file.cases) {
      const want = c.expected.fields;
      if (want?.correspondentBics) {
        const r = await post('correspondents', c.request, ts.sandboxKey, newKey());
        expect(r.body.correspondents.map((x: { bic: string }) => x.bic)).toEqual(want.correspondentBics);
        checked++;
      }
      if (want?.paths) {
        const r = await post('batch', c.request);
        expect(r.body.results.map((x: { path?: string[] }) => x.path ?? null)).toEqual(want.paths);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(7);
  });
});

describe('live', () => {
  it('without a directory judges structure only: bankName null, directoryMatch null, directory null', async () => {
    const bic = await post('bic', { bic: 'DEUTDEFF' }, ts.liveKey);
    expect(bic.status).toBe(200);
    expect(bic.body).toMatchObject({ status: 'success', valid: true, bankName: null, directoryMatch: null, directory: null, environment: 'live' });
    // Unknown to the sandbox, but live has no test set: a well-formed BIC is simply valid.
    const unknown = await post('bic', { bic: 'UNKNGB2L' }, ts.liveKey);
    expect(unknown.body).toMatchObject({ status: 'success', valid: true, directoryMatch: null });
    const aba = await post('routing-codes', { routingNumber: '071000013' }, ts.liveKey);
    expect(aba.body).toMatchObject({ status: 'success', valid: true, checksumValid: true, federalReserveDistrict: 7, bankName: null, directoryMatch: null });
    const route = await post('batch', { items: [{ type: 'route', fromBic: 'DEUTDEFF', toBic: 'CHASUS33', currency: 'USD' }] }, ts.liveKey);
    expect(route.body.summary).toEqual({ total: 1, valid: 0, invalid: 1 });
    expect(route.body.results[0]).toMatchObject({ status: 'failed', valid: false, directoryMatch: null, error: { code: 'INCONCLUSIVE' } });
  });

  it('without a correspondents directory answers correspondents INCONCLUSIVE, as a route item, and never charges', async () => {
    const live = await startTestService();
    try {
      await enableLive(live, 'correspondents', { price: 40, balance: 1000 });
      const orgId = live.org!.organizationId;
      const inconclusive = { status: 'failed', valid: false, correspondents: [], directoryMatch: null, error: { code: 'INCONCLUSIVE' } };
      const corr = await api(live.url, 'POST', '/verifications/correspondents', { key: live.liveKey, body: { bic: 'DEUTDEFF', currency: 'USD' }, idem: newKey() });
      expect(corr.status).toBe(200);
      expect(corr.body).toMatchObject({ ...inconclusive, charge: { amount: 0, status: 'not_charged' } });
      expect(corr.body.reasons).toEqual(['No routing directory is imported, so correspondent banks cannot be looked up.']);
      const batch = await api(live.url, 'POST', '/verifications/batch', {
        key: live.liveKey,
        body: { items: [{ type: 'route', fromBic: 'DEUTDEFF', toBic: 'CHASUS33', currency: 'USD' }] },
      });
      expect(batch.body.results[0]).toMatchObject({ status: 'failed', valid: false, directoryMatch: null, error: corr.body.error });
      expect((await getWallet(live.service.deps, orgId)).balance).toBe(1000);
      const charges = await live.service.deps.sql.all("SELECT id FROM ledger_entries WHERE kind = 'charge' AND organization_id = ?", [orgId]);
      expect(charges).toEqual([]);
    } finally {
      await live.stop();
    }
  });

  it('bills correspondents: refused while the service is not enabled, charged once enabled, not charged on a replay', async () => {
    // A look-up needs a correspondents directory (without one the answer is INCONCLUSIVE and free, test above).
    const h = ts.service.handlers as unknown as Record<string, (i: unknown) => Promise<any>>;
    await h['routing:import']!({ path: join(process.cwd(), 'resources/routing/sample-correspondents.csv') });
    const key = newKey();
    const refused = await post('correspondents', { bic: 'DEUTDEFF' }, ts.liveKey, key);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('SERVICE_NOT_ENABLED');
    await enableLive(ts, 'correspondents', { price: 40, balance: 1000 });
    const orgId = ts.org!.organizationId;
    // The refusal was not stored: the same key now executes, and is charged once.
    const ok = await post('correspondents', { bic: 'DEUTDEFF' }, ts.liveKey, key);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    expect(ok.body.charge).toEqual({ amount: 40, currency: 'USD', status: 'charged' });
    expect((await getWallet(ts.service.deps, orgId)).balance).toBe(960);
    const replay = await post('correspondents', { bic: 'DEUTDEFF' }, ts.liveKey, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(ok.body);
    expect((await getWallet(ts.service.deps, orgId)).balance).toBe(960);
    // The charge and the stored answer are one commit: the ledger names the answer's id.
    const charges = await ts.service.deps.sql.all<{ verification_id: string }>("SELECT verification_id FROM ledger_entries WHERE kind = 'charge' AND organization_id = ?", [orgId]);
    expect(charges).toEqual([{ verification_id: ok.body.id }]);
    // Like a verification's, the live check is in the audit trail, in the transaction of its charge (found by the money review).
    const audited = await ts.service.deps.sql.all<{ target_id: string; detail: string }>("SELECT target_id, detail FROM audit_events WHERE organization_id = ? AND action = 'verification.live_check'", [orgId]);
    expect(audited.map((a) => a.target_id)).toEqual([ok.body.id]);
    expect(JSON.parse(audited[0]!.detail)).toMatchObject({ kind: 'correspondents', charge: { amount: 40, currency: 'USD' } });
    // A structurally invalid BIC is a format error: answered, never charged (decisions §2).
    const bad = await post('correspondents', { bic: 'DEUT12FF' }, ts.liveKey, newKey());
    expect(bad.body).toMatchObject({ valid: false, charge: { status: 'not_charged' } });
    expect((await getWallet(ts.service.deps, orgId)).balance).toBe(960);
  });

  it('answers from an imported directory and names it with its import date', async () => {
    const h = ts.service.handlers as unknown as Record<string, (i: unknown) => Promise<any>>;
    const imported = await h['routing:import']!({ path: join(process.cwd(), 'resources/routing/sample-bic-directory.csv') });
    expect(imported).toMatchObject({ kind: 'bic', rows: 9, errors: 0, name: 'sample-bic-directory.csv' });
    await h['routing:import']!({ path: join(process.cwd(), 'resources/routing/sample-aba-directory.csv') });
    await h['routing:import']!({ path: join(process.cwd(), 'resources/routing/sample-correspondents.csv') });

    const hit = await post('bic', { bic: 'chasus33' }, ts.liveKey);
    expect(hit.body).toMatchObject({
      valid: true,
      bankName: 'JPMorgan Chase Bank, N.A.',
      city: 'New York',
      directoryMatch: true,
      directory: { name: 'sample-bic-directory.csv', importedAt: imported.importedAt },
    });
    const miss = await post('bic', { bic: 'UNKNGB2L' }, ts.liveKey);
    expect(miss.body).toMatchObject({ status: 'success', valid: false, directoryMatch: false });
    expect(miss.body.reasons[0]).toContain('sample-bic-directory.csv');
    const aba = await post('routing-codes', { routingNumber: '021000021' }, ts.liveKey);
    expect(aba.body).toMatchObject({ valid: true, bankName: 'JPMorgan Chase Bank, N.A.', directory: { name: 'sample-aba-directory.csv' } });
    const corr = await post('correspondents', { bic: 'DEUTDEFF', currency: 'USD' }, ts.liveKey, newKey());
    expect(corr.body.correspondents.map((c: { bic: string }) => c.bic)).toEqual(['CHASUS33', 'CITIUS33']);
    expect(corr.body.directory.name).toBe('sample-correspondents.csv');
    const dirs = await h['routing:directories']!({});
    // The billing test imported the correspondents file once before: that import is kept, no longer current.
    expect(dirs.map((d: { kind: string; current: boolean }) => `${d.kind}:${d.current}`).sort()).toEqual(['aba:true', 'bic:true', 'correspondents:false', 'correspondents:true']);

    // The sandbox still answers from its own test set.
    const sandbox = await post('bic', { bic: 'UNKNGB2L' });
    expect(sandbox.body.error.code).toBe('TEST_NUMBER_NOT_FOUND');
  });

  it('publishes the routing paths in the OpenAPI document', async () => {
    const r = await api(base, 'GET', '/openapi.json');
    expect(r.status).toBe(200);
    for (const p of ['bic', 'routing-codes', 'correspondents', 'batch']) expect(Object.keys(r.body.paths)).toContain(`/api/v1/verifications/${p}`);
  });
});
