// The console door: the channel handlers through dispatch() (results as values, never throws), the channel map
// merge, and the headless web bridge over real HTTP (one-time token, session cookie, same-origin only).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dispatch } from '../../../src-main/console/handlers';
import { ALREADY_SET_UP } from '../../../src-main/core/orgs/organizations';
import { mergeChannels } from '../../../src-shared/channels';
import { api, NG_OK, startTestService, type TestService } from '../../helpers/harness';
import { enableService, setPrice, topUp } from '../../../src-main/core/billing/billing';

describe('dispatch() over the service handlers', () => {
  let ts: TestService;
  beforeAll(async () => {
    ts = await startTestService();
  });
  afterAll(async () => {
    await ts.stop();
  });

  it('creates, lists and revokes keys', async () => {
    const h = ts.service.handlers;
    const created = await dispatch(h, 'keys:create', { name: 'console key', environment: 'sandbox' });
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    const key = created.value as { id: string; key: string; status: string };
    expect(key.key).toMatch(/^svc_sandbox_[0-9a-f]{64}$/);
    expect(key.status).toBe('active');
    // The key works over HTTP.
    expect((await api(ts.url, 'GET', '/verify', { key: key.key })).status).toBe(200);

    const listed = await dispatch(h, 'keys:list', {});
    expect(listed.ok).toBe(true);
    if (!listed.ok) return;
    const list = listed.value as { id: string }[];
    expect(list.map((k) => k.id)).toContain(key.id);
    for (const k of list) expect(k).not.toHaveProperty('key');

    const revoked = await dispatch(h, 'keys:revoke', { id: key.id });
    expect(revoked).toMatchObject({ ok: true, value: { id: key.id, status: 'revoked' } });
    const used = await api(ts.url, 'GET', '/verify', { key: key.key });
    expect(used.status).toBe(401);
    expect(used.body.code).toBe('API_KEY_REVOKED');

    const missing = await dispatch(h, 'keys:revoke', { id: 'key_nope' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('verifies an account and records it where the API sees it', async () => {
    const r = await dispatch(ts.service.handlers, 'verify:account', { environment: 'sandbox', request: NG_OK });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const rec = r.value as { id: string; status: string; verified: boolean; accountName?: string };
    expect(rec).toMatchObject({ status: 'success', verified: true, accountName: 'ADAEZE OKAFOR' });
    const got = await api(ts.url, 'GET', `/verify/${rec.id}`, { key: ts.sandboxKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(rec);
    const viaChannel = await dispatch(ts.service.handlers, 'verify:get', { environment: 'sandbox', id: rec.id });
    expect(viaChannel).toEqual({ ok: true, value: rec });
  });

  it('tells a user who may fix a billing refusal where to fix it, and one who may not to ask an administrator', async () => {
    const live = { environment: 'live', request: NG_OK } as const;
    // The desktop's user (no caller) is the owner: told where, not to ask an administrator.
    const desktop = await dispatch(ts.service.handlers, 'verify:account', live);
    expect(desktop.ok).toBe(false);
    if (desktop.ok) return;
    expect(['SERVICE_NOT_ENABLED', 'SERVICE_PRICE_NOT_CONFIGURED', 'WALLET_SUSPENDED']).toContain(desktop.error.code);
    expect(desktop.error.hint).toMatch(/Wallet page/);
    const user = (role: 'OWNER' | 'ADMIN' | 'DEVELOPER') => ({
      user: { userId: 'usr_door', email: 'door@example.test', role, organizationId: ts.org!.organizationId, sessionId: 'ses_door', expiresAtMs: Date.now() + 60_000 },
    });
    for (const role of ['OWNER', 'ADMIN'] as const) {
      const r = await dispatch(ts.service.handlers, 'verify:account', live, undefined, user(role));
      expect(!r.ok && r.error.hint).toMatch(/Wallet page/);
    }
    const developer = await dispatch(ts.service.handlers, 'verify:account', live, undefined, user('DEVELOPER'));
    expect(!developer.ok && developer.error.hint).toMatch(/Ask an administrator/);
    // Enabled, priced and funded, but no live provider: the same code, another remedy (the Providers page, the owner's).
    const org = ts.org!.organizationId;
    await topUp(ts.service.deps, org, 1_000, 'USD');
    await setPrice(ts.service.deps, org, 'account:NG', 25, 'USD');
    await enableService(ts.service.deps, org, 'account:NG');
    const noProvider = await dispatch(ts.service.handlers, 'verify:account', live, undefined, user('OWNER'));
    expect(!noProvider.ok && [noProvider.error.code, noProvider.error.hint]).toEqual(['SERVICE_NOT_ENABLED', expect.stringMatching(/Providers page/)]);
    const admin = await dispatch(ts.service.handlers, 'verify:account', live, undefined, user('ADMIN'));
    expect(!admin.ok && admin.error.hint).toMatch(/Ask an administrator/);
    // The HTTP body is unchanged: the API's client gets the catalogue's action.
    const http = await api(ts.url, 'POST', '/verify/account', { key: ts.liveKey, idem: 'door-live-1', body: NG_OK });
    expect([http.status, http.body.code, http.body.action?.type, 'remedy' in http.body]).toEqual([403, 'SERVICE_NOT_ENABLED', 'CONTACT_ADMIN', false]);
  });

  it('set-up refuses a second organization, in the core (the CLI gets the same refusal)', async () => {
    const r = await dispatch(ts.service.handlers, 'setup:bootstrap', { email: 'second@example.test', password: 'second password 1' });
    expect(r).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', message: ALREADY_SET_UP } });
    expect((await ts.service.deps.sql.all('SELECT id FROM organizations')).length).toBe(1);
  });

  it('answers an unknown channel and invalid input as values', async () => {
    const unknown = await dispatch(ts.service.handlers, 'nope:nothing', {});
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error.code).toBe('NOT_FOUND');
    const proto = await dispatch(ts.service.handlers, 'toString', {});
    expect(proto.ok).toBe(false);

    const invalid = await dispatch(ts.service.handlers, 'verify:account', { environment: 'sandbox', request: { country: 'NG' } });
    expect(invalid.ok).toBe(false);
    if (!invalid.ok) {
      expect(invalid.error.code).toBe('VALIDATION_ERROR');
      expect(invalid.error.details?.map((d) => d.field)).toContain('request.accountNumber');
    }
    const badKey = await dispatch(ts.service.handlers, 'keys:create', { name: 'x', environment: 'staging' });
    expect(badKey).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
    const extra = await dispatch(ts.service.handlers, 'keys:list', { surprise: true });
    expect(extra).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
  });

  it('mergeChannels refuses a channel defined twice', () => {
    const def = { input: z.object({}), output: z.object({}) };
    expect(() => mergeChannels({ 'a:one': def }, { 'a:two': def })).not.toThrow();
    expect(() => mergeChannels({ 'a:one': def }, { 'a:one': def })).toThrow(/a:one/);
  });
});

describe('the headless web bridge', () => {
  let ts: TestService;
  let origin: string;
  beforeAll(async () => {
    ts = await startTestService({ webConsole: true });
    origin = `http://127.0.0.1:${ts.port}`;
  });
  afterAll(async () => {
    await ts.stop();
  });

  function post(path: string, body: unknown, headers: Record<string, string>) {
    return fetch(`${ts.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  }

  it('exchanges a one-time token for a cookie and carries channels from the same origin only', async () => {
    const link = ts.service.consoleUrl();
    expect(link).toMatch(new RegExp(`^${origin}/console/#token=`));
    const token = new URL(link!).hash.replace(/^#token=/, '');
    expect(token.length).toBeGreaterThan(20);

    const crossSession = await post('/console/session', { token }, { origin: 'http://evil.example' });
    expect(crossSession.status).toBe(403);
    await crossSession.text();

    const session = await post('/console/session', { token }, { origin });
    expect(session.status).toBe(200);
    const setCookie = session.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^vc_console=[^;]+/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    await session.text();
    const cookie = setCookie.split(';')[0]!;

    // The token is single-use.
    const again = await post('/console/session', { token }, { origin });
    expect(again.status).toBe(401);
    await again.text();

    const info = await post('/console/bridge/app:info', {}, { origin, cookie });
    expect(info.status).toBe(200);
    const result = (await info.json()) as { ok: boolean; value: { version: string; needsSetup: boolean; door: string } };
    expect(result.ok).toBe(true);
    expect(result.value.needsSetup).toBe(false);
    expect(result.value.door).toBe('web');
    expect(info.headers.get('access-control-allow-origin')).toBeNull();

    const cross = await post('/console/bridge/app:info', {}, { origin: 'http://evil.example', cookie });
    expect(cross.status).toBe(403);
    expect(await cross.text()).not.toContain('"ok":true');
    const noOrigin = await post('/console/bridge/app:info', {}, { cookie });
    expect(noOrigin.status).toBe(403);
    await noOrigin.text();

    const noCookie = await post('/console/bridge/app:info', {}, { origin });
    expect(noCookie.status).toBe(401);
    await noCookie.text();
    const forged = await post('/console/bridge/app:info', {}, { origin, cookie: 'vc_console=forged' });
    expect(forged.status).toBe(401);
    await forged.text();
  });

  it('refuses an unknown token', async () => {
    const r = await post('/console/session', { token: 'not-a-token' }, { origin });
    expect(r.status).toBe(401);
    await r.text();
  });
});
