// The NG account-verification slice over real HTTP: every documented sandbox fixture (resources/sandbox/
// fixtures.json), the record shape, GET by id, list filters and pagination, tenancy, and async completion.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { api, enableLive, login, newKey, NG_OK, startTestService, TEST_PASSWORD, type TestService } from '../../helpers/harness';

interface Fixture {
  kind: string;
  country: string;
  description: string;
  request: Record<string, unknown>;
  expected: { status: string; errorCode?: string; fields?: Record<string, unknown> };
}

const FIXTURES = (JSON.parse(readFileSync(join(process.cwd(), 'resources/sandbox/fixtures.json'), 'utf8')) as Fixture[]).filter(
  (f) => f.kind === 'account' && f.country === 'NG',
);

let ts: TestService;
let base: string;
const submitted: { fixture: Fixture; record: any }[] = [];

beforeAll(async () => {
  ts = await startTestService();
  base = ts.url;
});
afterAll(async () => {
  await ts.stop();
});

describe('POST /verify/account with the NG sandbox fixtures', () => {
  it('has NG fixtures to test', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(5);
  });

  it.each(FIXTURES.map((f) => [f.description, f] as const))('%s', async (_d, f) => {
    const r = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: f.request });
    expect(r.status).toBe(200);
    const rec = r.body;
    expect(rec.status).toBe(f.expected.status);
    expect(rec.verified).toBe(f.expected.status === 'success');
    if (f.expected.errorCode) {
      expect(rec.error.code).toBe(f.expected.errorCode);
      expect(typeof rec.error.message).toBe('string');
    } else {
      expect(rec.error).toBeUndefined();
    }
    // `fields.message` of a failed fixture is its error message (the catalogue's convention, decisions §10).
    for (const [k, v] of Object.entries(f.expected.fields ?? {})) expect(k === 'message' ? rec.error?.message : rec[k], k).toEqual(v);
    expect(rec).toMatchObject({
      verificationType: 'ACCOUNT_NUMBER',
      identifier: f.request['accountNumber'],
      country: 'NG',
      environment: 'sandbox',
      mode: 'sync',
    });
    expect(rec.id).toMatch(/^ver_/);
    expect(['live', 'cache']).toContain(rec.source);
    expect(r.text).not.toMatch(/providerName/i);
    expect(rec.charge).toMatchObject({ currency: expect.any(String), status: expect.any(String) });
    expect(Number.isInteger(rec.charge.amount)).toBe(true);

    const got = await api(base, 'GET', `/verify/${rec.id}`, { key: ts.sandboxKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(rec);
    expect(got.text).not.toMatch(/providerName/i);
    submitted.push({ fixture: f, record: rec });
  });
});

describe('GET /verify', () => {
  async function listAll(query = ''): Promise<any> {
    const r = await api(base, 'GET', `/verify?limit=100${query}`, { key: ts.sandboxKey });
    expect(r.status).toBe(200);
    return r.body;
  }

  it('lists every recorded verification in the envelope', async () => {
    expect(submitted).toHaveLength(FIXTURES.length);
    const all = await listAll();
    expect(all.pagination).toEqual({ total: FIXTURES.length, limit: 100, offset: 0, hasMore: false });
    expect(new Set(all.data.map((x: { id: string }) => x.id))).toEqual(new Set(submitted.map((s) => s.record.id)));
    expect(JSON.stringify(all)).not.toMatch(/providerName/i);
  });

  it('filters by status', async () => {
    for (const status of ['success', 'failed', 'error']) {
      const expected = submitted.filter((s) => s.record.status === status).map((s) => s.record.id);
      expect(expected.length, status).toBeGreaterThan(0);
      const r = await listAll(`&status=${status}`);
      expect(r.pagination.total).toBe(expected.length);
      expect(new Set(r.data.map((x: { id: string }) => x.id))).toEqual(new Set(expected));
      for (const x of r.data) expect(x.status).toBe(status);
    }
    expect((await listAll('&status=pending')).data).toEqual([]);
  });

  it('filters by type (kind or verificationType) and country', async () => {
    for (const q of ['&type=account', '&type=ACCOUNT_NUMBER', '&country=NG', '&country=ng']) {
      expect((await listAll(q)).pagination.total, q).toBe(FIXTURES.length);
    }
    for (const q of ['&type=phone', '&type=PHONE_NUMBER', '&country=GB']) {
      const r = await listAll(q);
      expect(r.pagination.total, q).toBe(0);
      expect(r.data).toEqual([]);
    }
  });

  it('pages with limit and offset, newest first, and reports hasMore', async () => {
    const all = (await listAll()).data.map((x: { id: string; createdAt: string }) => x);
    for (let i = 1; i < all.length; i++) expect(all[i - 1].createdAt >= all[i].createdAt).toBe(true);
    const p1 = await api(base, 'GET', '/verify?limit=2&offset=0', { key: ts.sandboxKey });
    expect(p1.body.pagination).toEqual({ total: all.length, limit: 2, offset: 0, hasMore: true });
    expect(p1.body.data.map((x: { id: string }) => x.id)).toEqual(all.slice(0, 2).map((x: { id: string }) => x.id));
    const last = await api(base, 'GET', `/verify?limit=2&offset=${all.length - 1}`, { key: ts.sandboxKey });
    expect(last.body.pagination).toEqual({ total: all.length, limit: 2, offset: all.length - 1, hasMore: false });
    expect(last.body.data.map((x: { id: string }) => x.id)).toEqual([all[all.length - 1].id]);
    const def = await api(base, 'GET', '/verify', { key: ts.sandboxKey });
    expect(def.body.pagination.limit).toBe(20);
    expect(def.body.pagination.offset).toBe(0);
  });

  it('answers out-of-range paging with 422 VALIDATION_ERROR', async () => {
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
      const r = await api(base, 'GET', `/verify?${q}`, { key: ts.sandboxKey });
      expect(r.status, q).toBe(422);
      expect(r.body.code, q).toBe('VALIDATION_ERROR');
      expect(r.body.details.length, q).toBeGreaterThan(0);
    }
    // Digits only: what Number() would also take (hex, exponents, signs, spaces, empty) is refused in words, on
    // every list that pages (verifications, usage, keys, audit, webhooks).
    const { accessToken } = await login(ts.url, ts.email);
    const auth = (path: string) => (path === '/verify' ? { key: ts.sandboxKey } : { token: accessToken });
    for (const path of ['/verify', '/client/usage', '/client/api-keys', '/client/webhooks', '/client/audit-events']) {
      for (const q of ['limit=0x10', 'limit=1e1', 'limit=%2B5', 'limit=%2016', 'limit=', 'offset=0x1', 'offset=1.5']) {
        const r = await api(base, 'GET', `${path}?${q}`, auth(path));
        expect([r.status, r.body.code], `${path}?${q}`).toEqual([422, 'VALIDATION_ERROR']);
        expect(r.body.details[0], `${path}?${q}`).toMatchObject({ field: `querystring.${q.split('=')[0]}`, message: 'must be a whole number written in digits, e.g. 20' });
      }
      const ok = await api(base, 'GET', `${path}?limit=16&offset=0`, auth(path));
      expect(ok.status, path).toBe(200);
      expect(ok.body.pagination, path).toMatchObject({ limit: 16, offset: 0 });
    }
  });
});

describe('tenancy', () => {
  it("answers another organization's verification id with 404", async () => {
    const other = await bootstrap(ts.service.deps, { email: 'verify-other@example.com', password: TEST_PASSWORD });
    const id = submitted[0]!.record.id;
    const r = await api(base, 'GET', `/verify/${id}`, { key: other.keys.sandbox.key });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('NOT_FOUND');
    const list = await api(base, 'GET', '/verify', { key: other.keys.sandbox.key });
    expect(list.body.pagination.total).toBe(0);
    expect((await api(base, 'GET', '/verify/ver_doesnotexist', { key: ts.sandboxKey })).status).toBe(404);
  });

  it('keeps live records out of sight of a sandbox key (and back)', async () => {
    await enableLive(ts);
    const live = await api(base, 'POST', '/verify/account', { key: ts.liveKey, idem: newKey(), body: NG_OK });
    expect(live.status).toBe(200);
    expect(live.body.environment).toBe('live');
    const fromSandbox = await api(base, 'GET', `/verify/${live.body.id}`, { key: ts.sandboxKey });
    expect(fromSandbox.status).toBe(404);
    const sandboxList = await api(base, 'GET', '/verify?limit=100', { key: ts.sandboxKey });
    expect(sandboxList.body.data.some((x: { id: string }) => x.id === live.body.id)).toBe(false);
    const liveList = await api(base, 'GET', '/verify?limit=100', { key: ts.liveKey });
    expect(liveList.body.data.map((x: { id: string }) => x.id)).toEqual([live.body.id]);
    const sandboxId = submitted[0]!.record.id;
    expect((await api(base, 'GET', `/verify/${sandboxId}`, { key: ts.liveKey })).status).toBe(404);
  });
});

describe('async mode', () => {
  it('answers 202 pending, completes in the background, and writes the outbox event', async () => {
    const r = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: { ...NG_OK, mode: 'async' } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: 'pending', verificationType: 'ACCOUNT_NUMBER', identifier: NG_OK.accountNumber, country: 'NG' });
    expect(r.body.id).toMatch(/^ver_/);
    const id: string = r.body.id;

    let rec: any;
    for (let i = 0; i < 500; i++) {
      const g = await api(base, 'GET', `/verify/${id}`, { key: ts.sandboxKey });
      expect(g.status).toBe(200);
      rec = g.body;
      if (rec.status !== 'pending') break;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(rec.status).toBe('success');
    expect(rec.verified).toBe(true);
    expect(rec.mode).toBe('async');
    expect(rec.accountName).toBe('ADAEZE OKAFOR');
    expect(typeof rec.completedAt).toBe('string');

    const rows = await ts.service.deps.sql.all<{ event_type: string; organization_id: string; environment: string; payload: string }>(
      'SELECT event_type, organization_id, environment, payload FROM outbox_events WHERE verification_id = ?',
      [id],
    );
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.event_type).toBe('verification.completed');
    expect(row.organization_id).toBe(ts.org!.organizationId);
    expect(row.environment).toBe('sandbox');
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    expect(Object.keys(payload).sort()).toEqual(['data', 'event', 'organizationId', 'timestamp', 'verificationId']);
    expect(payload).toMatchObject({ event: 'verification.completed', verificationId: id, organizationId: ts.org!.organizationId });
    expect(payload['data']).toEqual(rec);
    expect(row.payload).not.toMatch(/providerName/i);
  });

  it('records a failed async verification with a verification.failed event', async () => {
    const body = { country: 'NG', accountNumber: '0000000000', bankCode: '058', mode: 'async' };
    const r = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body });
    expect(r.status).toBe(202);
    await ts.service.worker.drain();
    const g = await api(base, 'GET', `/verify/${r.body.id}`, { key: ts.sandboxKey });
    expect(g.body).toMatchObject({ status: 'failed', verified: false, error: { code: 'ACCOUNT_NOT_FOUND' } });
    const row = (await ts.service.deps.sql.get<{ event_type: string }>('SELECT event_type FROM outbox_events WHERE verification_id = ?', [r.body.id]))!;
    expect(row.event_type).toBe('verification.failed');
  });
});
