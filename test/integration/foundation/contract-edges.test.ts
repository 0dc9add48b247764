// Edges of the contract an outside integrator hits, over real HTTP (a review against the interface, 27 Nov 2026):
// `mode` is a common field of every verification request (interface §2.2), a routing currency of the wrong shape is
// an answer (`valid: false`), not a 422 (decisions §5), the list's `type` filter takes only the values decisions §3
// names (anything else is a 422, decisions §2), and a filter's bound may carry a UTC offset (ISO 8601), read as the
// instant it names — on the verification list and on the audit trail.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, login, newKey, NG_OK, startTestService, type TestService } from '../../helpers/harness';

interface Fixture {
  kind: string;
  request: Record<string, unknown>;
  expected: { status: string };
}
const FIXTURES = JSON.parse(readFileSync(join(process.cwd(), 'resources/sandbox/fixtures.json'), 'utf8')) as Fixture[];
const fixture = (kind: string) => FIXTURES.find((f) => f.kind === kind && f.expected.status === 'success')!.request;

let ts: TestService;
beforeAll(async () => {
  ts = await startTestService();
});
afterAll(async () => {
  await ts.stop();
});

const post = (path: string, body: unknown) => api(ts.url, 'POST', path, { key: ts.sandboxKey, idem: newKey(), body });

/** `iso` (a UTC instant) written with the offset +01:00, as a client in that zone would send it. */
function plusOneHour(iso: string): string {
  const t = new Date(Date.parse(iso) + 3_600_000).toISOString();
  return `${t.slice(0, 19)}+01:00`;
}

describe('mode on every verification endpoint (interface §2.2)', () => {
  it('an address job takes mode "async" (it is always asynchronous): 202 pending', async () => {
    const r = await post('/verify/address', { ...fixture('address'), mode: 'async' });
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ status: 'pending', verificationType: 'ADDRESS' });
  });

  it('a facial check is synchronous only: mode "async" is ASYNC_NOT_SUPPORTED on field mode, and without mode it answers', async () => {
    const r = await post('/verify/face', { ...fixture('face'), mode: 'async' });
    expect(r.status, r.text).toBe(422);
    expect(r.body).toMatchObject({ code: 'ASYNC_NOT_SUPPORTED', details: [{ field: 'mode' }] });
    const sync = await post('/verify/face', fixture('face'));
    expect(sync.status, sync.text).toBe(200);
    expect(sync.body).toMatchObject({ status: 'success', mode: 'sync' });
  });

  it('a mode other than "async" is still a 422 VALIDATION_ERROR', async () => {
    for (const path of ['/verify/address', '/verify/face']) {
      const r = await post(path, { ...fixture(path.slice('/verify/'.length)), mode: 'later' });
      expect(r.status, `${path}: ${r.text}`).toBe(422);
      expect(r.body.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('a routing currency of the wrong shape is an answer, not a 422 (decisions §5, docs/routing.md)', () => {
  it('correspondents: valid false with the reason', async () => {
    const r = await post('/verifications/correspondents', { bic: 'DEUTDEFF', currency: 'XXXX' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ status: 'success', valid: false });
    expect(r.body.reasons.join(' ')).toContain('ISO 4217');
  });

  it('a batch route item: that item invalid, the others answered', async () => {
    const r = await post('/verifications/batch', {
      items: [
        { type: 'route', fromBic: 'DEUTDEFF', toBic: 'CHASUS33', currency: 'US' },
        { type: 'route', fromBic: 'DEUTDEFF', toBic: 'CHASUS33', currency: 'USD' },
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.summary).toEqual({ total: 2, valid: 1, invalid: 1 });
  });

  it('an empty or oversized currency is still a 422 (bounds, not structure)', async () => {
    expect((await post('/verifications/correspondents', { bic: 'DEUTDEFF', currency: '' })).status).toBe(422);
    expect((await post('/verifications/correspondents', { bic: 'DEUTDEFF', currency: 'X'.repeat(65) })).status).toBe(422);
  });
});

describe('GET /verify filters', () => {
  let createdAt: string;
  beforeAll(async () => {
    const r = await post('/verify/account', NG_OK);
    expect(r.status).toBe(200);
    createdAt = r.body.createdAt as string;
  });
  const list = (query: string) => api(ts.url, 'GET', `/verify?${query}`, { key: ts.sandboxKey });

  it('type is a kind or a verificationType value; anything else is a 422 naming the field', async () => {
    for (const type of ['account', 'ACCOUNT_NUMBER']) {
      const r = await list(`type=${type}`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.pagination.total).toBeGreaterThanOrEqual(1);
    }
    const bad = await list('type=bogus');
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(bad.body.details)).toContain('type');
  });

  it('from and to take a UTC offset and compare as the instant it names', async () => {
    const before = plusOneHour(new Date(Date.parse(createdAt) - 60_000).toISOString());
    const after = plusOneHour(new Date(Date.parse(createdAt) + 60_000).toISOString());
    const from = await list(`from=${encodeURIComponent(before)}`);
    expect(from.status, from.text).toBe(200);
    expect(from.body.data.map((v: { createdAt: string }) => v.createdAt)).toContain(createdAt);
    const past = await list(`from=${encodeURIComponent(after)}`);
    expect(past.status, past.text).toBe(200);
    expect(past.body.pagination.total).toBe(0);
    const to = await list(`to=${encodeURIComponent(before)}`);
    expect(to.status, to.text).toBe(200);
    expect(to.body.pagination.total).toBe(0);
  });
});

describe('GET /client/audit-events: a bound with an offset is the instant it names', () => {
  it('entries written a moment ago are after an hour ago written as +01:00, and before an hour from now', async () => {
    const owner = await login(ts.url, ts.email);
    const now = Date.now();
    const hourAgo = plusOneHour(new Date(now - 3_600_000).toISOString());
    const inAnHour = plusOneHour(new Date(now + 3_600_000).toISOString());
    const all = await api(ts.url, 'GET', '/client/audit-events?limit=100', { token: owner.accessToken });
    expect(all.status, all.text).toBe(200);
    expect(all.body.pagination.total).toBeGreaterThan(0);
    // As text, "…T(h+1):mm:ss+01:00" sorts after every entry of the last hour: compared as text the window is empty.
    const window = await api(ts.url, 'GET', `/client/audit-events?limit=100&from=${encodeURIComponent(hourAgo)}&to=${encodeURIComponent(inAnHour)}`, {
      token: owner.accessToken,
    });
    expect(window.status, window.text).toBe(200);
    expect(window.body.pagination.total).toBe(all.body.pagination.total);
    const later = await api(ts.url, 'GET', `/client/audit-events?from=${encodeURIComponent(inAnHour)}`, { token: owner.accessToken });
    expect(later.body.pagination.total).toBe(0);
  });
});
