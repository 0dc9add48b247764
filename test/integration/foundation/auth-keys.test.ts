// Sign-in, sessions and API key management over real HTTP (interface §2.1, §5; decisions §6), against a real
// SQLite file. A ManualClock drives token expiry and the brute-force window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { ManualClock } from '../../../src-main/core/clock';
import { bootstrap, createUser } from '../../../src-main/core/orgs/organizations';
import { api, login, startTestService, TEST_PASSWORD, type TestService } from '../../helpers/harness';

const MIN = 60_000;
let ts: TestService;
let clock: ManualClock;
let base: string;

beforeAll(async () => {
  clock = new ManualClock();
  ts = await startTestService({ clock });
  base = ts.url;
});
afterAll(async () => {
  await ts.stop();
});

function b64url(o: object): string {
  return Buffer.from(JSON.stringify(o)).toString('base64url');
}

async function jwtSecret(): Promise<Uint8Array> {
  const row = (await ts.service.deps.sql.get<{ value: string }>("SELECT value FROM settings WHERE key = 'jwt_secret'"))!;
  return Buffer.from(row.value, 'hex');
}

describe('login', () => {
  it('returns the token pair of decisions §6', async () => {
    const r = await api(base, 'POST', '/auth/login', { body: { email: ts.email, password: TEST_PASSWORD } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 900 });
    expect(typeof r.body.accessToken).toBe('string');
    expect(r.body.accessToken.split('.')).toHaveLength(3);
    expect(typeof r.body.refreshToken).toBe('string');
    expect(r.body.user).toEqual({ id: ts.org!.owner.id, email: ts.email, role: 'OWNER', organizationId: ts.org!.organizationId });
  });

  it('answers a wrong password and an unknown email with identical 401 bodies', async () => {
    const wrong = await api(base, 'POST', '/auth/login', { body: { email: ts.email, password: 'not the password' } });
    const unknown = await api(base, 'POST', '/auth/login', { body: { email: 'nobody@example.com', password: 'not the password' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.code).toBe('INVALID_CREDENTIALS');
    expect(wrong.text).toBe(unknown.text);
  });

  it('locks an email after 10 failures within 15 minutes, then lifts', async () => {
    const email = 'throttled@example.com';
    await createUser(ts.service.deps, ts.org!.organizationId, { email, password: TEST_PASSWORD, role: 'ADMIN' });
    for (let i = 0; i < 10; i++) {
      const r = await api(base, 'POST', '/auth/login', { body: { email, password: `wrong-${i}-pass` } });
      expect(r.status).toBe(401);
    }
    // The 11th attempt is refused even with the right password.
    const locked = await api(base, 'POST', '/auth/login', { body: { email, password: TEST_PASSWORD } });
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('TOO_MANY_LOGIN_ATTEMPTS');
    expect(locked.body.action.type).toBe('WAIT_AND_RETRY');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Other accounts are not affected.
    expect((await api(base, 'POST', '/auth/login', { body: { email: ts.email, password: TEST_PASSWORD } })).status).toBe(200);
    clock.advance(15 * MIN + 1000);
    const after = await api(base, 'POST', '/auth/login', { body: { email, password: TEST_PASSWORD } });
    expect(after.status).toBe(200);
  });
});

describe('refresh, logout, expiry', () => {
  it('rotates the refresh token; reusing the old one revokes the session', async () => {
    const first = await login(base, ts.email);
    const r1 = await api(base, 'POST', '/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(r1.status).toBe(200);
    expect(r1.body.refreshToken).not.toBe(first.refreshToken);
    expect(r1.body.tokenType).toBe('Bearer');
    // The new access token works ...
    expect((await api(base, 'GET', '/client/api-keys', { token: r1.body.accessToken })).status).toBe(200);
    // ... until the old refresh token is presented again.
    const reuse = await api(base, 'POST', '/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(reuse.status).toBe(401);
    const afterReuse = await api(base, 'GET', '/client/api-keys', { token: r1.body.accessToken });
    expect(afterReuse.status).toBe(401);
    const newRefresh = await api(base, 'POST', '/auth/refresh', { body: { refreshToken: r1.body.refreshToken } });
    expect(newRefresh.status).toBe(401);
  });

  it('logout answers 204 and the access token stops working at once', async () => {
    const t = await login(base, ts.email);
    expect((await api(base, 'GET', '/client/api-keys', { token: t.accessToken })).status).toBe(200);
    const out = await api(base, 'POST', '/auth/logout', { token: t.accessToken });
    expect(out.status).toBe(204);
    expect(out.text).toBe('');
    const after = await api(base, 'GET', '/client/api-keys', { token: t.accessToken });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('TOKEN_INVALID');
    expect((await api(base, 'POST', '/auth/refresh', { body: { refreshToken: t.refreshToken } })).status).toBe(401);
  });

  it('an access token older than 15 minutes gets 401 TOKEN_EXPIRED', async () => {
    const t = await login(base, ts.email);
    clock.advance(16 * MIN);
    const r = await api(base, 'GET', '/client/api-keys', { token: t.accessToken });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('TOKEN_EXPIRED');
    // The refresh token still renews the session.
    const again = await api(base, 'POST', '/auth/refresh', { body: { refreshToken: t.refreshToken } });
    expect(again.status).toBe(200);
    expect((await api(base, 'GET', '/client/api-keys', { token: again.body.accessToken })).status).toBe(200);
  });

  it('refuses alg none, a wrong signature and a wrong issuer with TOKEN_INVALID', async () => {
    const t = await login(base, ts.email);
    const [, payloadPart] = t.accessToken.split('.');
    const claims = JSON.parse(Buffer.from(payloadPart!, 'base64url').toString('utf8')) as Record<string, unknown>;
    const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
    const now = Math.floor(clock.now() / 1000);
    const build = (iss: string) =>
      new SignJWT({ sid: claims['sid'], org: claims['org'], role: claims['role'] })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(claims['sub']))
        .setIssuer(iss)
        .setAudience(String(claims['aud']))
        .setIssuedAt(now)
        .setExpirationTime(now + 600);
    const wrongSig = await build(String(claims['iss'])).sign(new Uint8Array(32).fill(7));
    const wrongIss = await build('someone-else').sign(await jwtSecret());
    // Control: the same construction with the right issuer and secret is accepted, so the refusals are meaningful.
    const control = await build(String(claims['iss'])).sign(await jwtSecret());
    expect((await api(base, 'GET', '/client/api-keys', { token: control })).status).toBe(200);
    for (const token of [none, wrongSig, wrongIss, 'not-a-jwt']) {
      const r = await api(base, 'GET', '/client/api-keys', { token });
      expect(r.status, token).toBe(401);
      expect(r.body.code, token).toBe('TOKEN_INVALID');
    }
  });
});

describe('API keys', () => {
  it('creates a key (201, full value once) and lists keys without it, newest first', async () => {
    const t = await login(base, ts.email);
    const created = await api(base, 'POST', '/client/api-keys', { token: t.accessToken, body: { name: 'CI key', environment: 'sandbox' } });
    expect(created.status).toBe(201);
    const k = created.body;
    expect(k.key).toMatch(/^svc_sandbox_[0-9a-f]{64}$/);
    expect(k.keyPrefix).toBe(k.key.slice(0, 20));
    expect(k).toMatchObject({ name: 'CI key', environment: 'sandbox', status: 'active', lastUsedAt: null, expiresAt: null });
    expect(k.id).toMatch(/^key_/);
    expect(typeof k.createdAt).toBe('string');

    clock.advance(1000);
    const second = await api(base, 'POST', '/client/api-keys', { token: t.accessToken, body: { name: 'Live key', environment: 'live' } });
    expect(second.status).toBe(201);
    expect(second.body.key).toMatch(/^svc_live_[0-9a-f]{64}$/);

    const list = await api(base, 'GET', '/client/api-keys', { token: t.accessToken });
    expect(list.status).toBe(200);
    expect(list.body.pagination).toMatchObject({ total: 4, limit: 20, offset: 0, hasMore: false });
    expect(list.body.data.map((x: { id: string }) => x.id).slice(0, 2)).toEqual([second.body.id, k.id]);
    for (const item of list.body.data) {
      expect(item).not.toHaveProperty('key');
      expect(item).toHaveProperty('lastUsedAt');
      expect(item).toHaveProperty('expiresAt', null);
    }
    expect(list.text).not.toContain(k.key);

    const page = await api(base, 'GET', '/client/api-keys?limit=1&offset=1', { token: t.accessToken });
    expect(page.body.data).toHaveLength(1);
    expect(page.body.data[0].id).toBe(k.id);
    expect(page.body.pagination).toMatchObject({ total: 4, limit: 1, offset: 1, hasMore: true });
  });

  it('refuses a DEVELOPER user and an API key with 403 FORBIDDEN', async () => {
    const devEmail = 'dev@example.com';
    await createUser(ts.service.deps, ts.org!.organizationId, { email: devEmail, password: TEST_PASSWORD, role: 'DEVELOPER' });
    const dev = await login(base, devEmail);
    const someId = ts.org!.keys.live.id;
    const calls = [
      api(base, 'POST', '/client/api-keys', { token: dev.accessToken, body: { name: 'x', environment: 'sandbox' } }),
      api(base, 'GET', '/client/api-keys', { token: dev.accessToken }),
      api(base, 'DELETE', `/client/api-keys/${someId}`, { token: dev.accessToken }),
      api(base, 'POST', '/client/api-keys', { key: ts.sandboxKey, body: { name: 'x', environment: 'sandbox' } }),
      api(base, 'GET', '/client/api-keys', { key: ts.sandboxKey }),
      api(base, 'DELETE', `/client/api-keys/${someId}`, { key: ts.sandboxKey }),
    ];
    for (const r of await Promise.all(calls)) {
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('FORBIDDEN');
    }
    // The refused revoke did not happen.
    const owner = await login(base, ts.email);
    const list = await api(base, 'GET', '/client/api-keys?limit=100', { token: owner.accessToken });
    expect(list.body.data.find((x: { id: string }) => x.id === someId).status).toBe('active');
  });

  it('revokes a key: 200, and the key is refused at once with API_KEY_REVOKED', async () => {
    const t = await login(base, ts.email);
    const created = (await api(base, 'POST', '/client/api-keys', { token: t.accessToken, body: { name: 'to revoke', environment: 'sandbox' } })).body;
    expect((await api(base, 'GET', '/verify', { key: created.key })).status).toBe(200);
    const del = await api(base, 'DELETE', `/client/api-keys/${created.id}`, { token: t.accessToken });
    expect(del.status).toBe(200);
    expect(Object.keys(del.body).sort()).toEqual(['id', 'revokedAt', 'status']);
    expect(del.body).toMatchObject({ id: created.id, status: 'revoked' });
    expect(Number.isNaN(Date.parse(del.body.revokedAt))).toBe(false);
    const used = await api(base, 'GET', '/verify', { key: created.key });
    expect(used.status).toBe(401);
    expect(used.body.code).toBe('API_KEY_REVOKED');
    expect(used.body.action.type).toBe('CHECK_API_KEY');
    const list = await api(base, 'GET', '/client/api-keys?limit=100', { token: t.accessToken });
    expect(list.body.data.find((x: { id: string }) => x.id === created.id)).toMatchObject({ status: 'revoked', revokedAt: del.body.revokedAt });
  });

  it('answers a missing key and a malformed key with 401 and CHECK_API_KEY', async () => {
    const missing = await api(base, 'GET', '/verify');
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('API_KEY_MISSING');
    expect(missing.body.action.type).toBe('CHECK_API_KEY');
    for (const key of ['svc_sandbox_123', 'sk_test_abc', `svc_other_${'a'.repeat(64)}`]) {
      const bad = await api(base, 'GET', '/verify', { key });
      expect(bad.status).toBe(401);
      expect(bad.body.code).toBe('API_KEY_INVALID');
      expect(bad.body.action.type).toBe('CHECK_API_KEY');
    }
    // Well-formed but unknown.
    const unknown = await api(base, 'GET', '/verify', { key: `svc_sandbox_${'0'.repeat(64)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('API_KEY_INVALID');
  });

  it('sets lastUsedAt once the key is used', async () => {
    const t = await login(base, ts.email);
    const created = (await api(base, 'POST', '/client/api-keys', { token: t.accessToken, body: { name: 'usage', environment: 'live' } })).body;
    const before = (await api(base, 'GET', '/client/api-keys?limit=100', { token: t.accessToken })).body.data.find((x: { id: string }) => x.id === created.id);
    expect(before.lastUsedAt).toBeNull();
    expect((await api(base, 'GET', '/verify', { key: created.key })).status).toBe(200);
    const after = (await api(base, 'GET', '/client/api-keys?limit=100', { token: t.accessToken })).body.data.find((x: { id: string }) => x.id === created.id);
    expect(after.lastUsedAt).toBe(new Date(clock.now()).toISOString());
  });

  it("answers another organization's key id with 404", async () => {
    const other = await bootstrap(ts.service.deps, { email: 'other-owner@example.com', password: TEST_PASSWORD });
    const t = await login(base, ts.email);
    const r = await api(base, 'DELETE', `/client/api-keys/${other.keys.sandbox.id}`, { token: t.accessToken });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('NOT_FOUND');
    // Still usable: the foreign revoke did nothing.
    expect((await api(base, 'GET', '/verify', { key: other.keys.sandbox.key })).status).toBe(200);
    const list = await api(base, 'GET', '/client/api-keys?limit=100', { token: t.accessToken });
    expect(list.body.data.some((x: { id: string }) => x.id === other.keys.sandbox.id)).toBe(false);
  });
});
