// Tenancy and roles (issue 9 item 4): with two organizations in one installation, every route and verb given
// the other organization's ids answers 404 (decisions §1: never reveal existence); sandbox keys never reach
// live data or the wallet; DEVELOPER cannot manage keys; unknown fields cannot set what the caller must not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, newKey, NG_OK, TEST_PASSWORD, type CallOptions } from '../helpers/harness';
import { PUBLIC_HOOK_URL, startTwoOrgs, type Tenant, type TwoOrgs } from './two-orgs';

let f: TwoOrgs;
let tried = 0;

async function call(method: string, path: string, o: CallOptions = {}) {
  tried += 1;
  return api(f.ts.url, method, path, o);
}

/** Every credential of `t` that works in `env`: its key, and its owner's token naming that environment. */
function credentialsOf(t: Tenant, env: 'sandbox' | 'live'): CallOptions[] {
  return [{ key: env === 'sandbox' ? t.sandboxKey : t.liveKey }, { token: t.ownerToken, headers: { 'x-environment': env } }];
}

beforeAll(async () => {
  f = await startTwoOrgs();
  expect(f.b.deliveries.sandbox, 'the fixture has deliveries').toBeTruthy();
  expect(f.b.deliveries.live).toBeTruthy();
}, 120_000);

afterAll(async () => {
  console.log(`tenancy and roles: ${tried} requests`);
  await f?.ts.stop();
});

describe("another organization's ids → 404 on every route and verb", () => {
  for (const env of ['sandbox', 'live'] as const) {
    it(`${env}: verifications, webhooks, deliveries`, async () => {
      const b = f.b;
      const wh = b.webhooks[env];
      const del = b.deliveries[env]!;
      const mine = f.a.webhooks[env];
      const cases: [string, string, unknown?][] = [
        ['GET', `/verify/${b.verifications[env]}`],
        ['GET', `/client/webhooks/${wh}`],
        ['PATCH', `/client/webhooks/${wh}`, { status: 'inactive' }],
        ['PATCH', `/client/webhooks/${wh}`, { rotateSecret: true }],
        ['DELETE', `/client/webhooks/${wh}`],
        ['GET', `/client/webhooks/${wh}/deliveries`],
        ['GET', `/client/webhooks/${wh}/deliveries/${del}`],
        // B's delivery under A's own webhook id.
        ['GET', `/client/webhooks/${mine}/deliveries/${del}`],
      ];
      for (const cred of credentialsOf(f.a, env)) {
        for (const [method, path, body] of cases) {
          if (path.startsWith('/verify/') && cred.token) continue; // verification routes take API keys only
          const r = await call(method, path, { ...cred, ...(body !== undefined ? { body } : {}) });
          expect(r.status, `${method} ${path} ${cred.key ? 'key' : 'token'}: ${r.text}`).toBe(404);
          expect(r.body.code).toBe('NOT_FOUND');
        }
      }
      // Nothing of B changed: its webhook is still active and readable by B.
      const still = await call('GET', `/client/webhooks/${wh}`, { key: env === 'sandbox' ? b.sandboxKey : b.liveKey });
      expect(still.status).toBe(200);
      expect(still.body.status).toBe('active');
      expect(still.body.secretPrefix).toBeTruthy();
    });
  }

  it("keys: revoking B's key with A's owner token → 404, and B's key keeps working", async () => {
    for (const id of [f.b.sandboxKeyId, f.b.liveKeyId]) {
      const r = await call('DELETE', `/client/api-keys/${id}`, { token: f.a.ownerToken });
      expect(r.status, r.text).toBe(404);
    }
    expect((await call('GET', '/verify', { key: f.b.sandboxKey })).status).toBe(200);
    expect((await call('GET', '/verify', { key: f.b.liveKey })).status).toBe(200);
  });

  it("lists never show the other organization's records; filters by B's ids find nothing", async () => {
    const bIds = new Set([f.b.verifications.sandbox, f.b.verifications.live, f.b.webhooks.sandbox, f.b.webhooks.live, f.b.sandboxKeyId, f.b.liveKeyId]);
    const lists = [
      await call('GET', '/verify?limit=100', { key: f.a.sandboxKey }),
      await call('GET', '/verify?limit=100', { key: f.a.liveKey }),
      await call('GET', '/client/webhooks?limit=100', { key: f.a.sandboxKey }),
      await call('GET', '/client/webhooks?limit=100', { token: f.a.ownerToken, headers: { 'x-environment': 'live' } }),
      await call('GET', '/client/api-keys?limit=100', { token: f.a.ownerToken }),
      await call('GET', `/client/usage?verificationId=${f.b.verifications.live}`, { key: f.a.liveKey }),
      await call('GET', '/client/usage?limit=100', { key: f.a.liveKey }),
    ];
    for (const l of lists) {
      expect(l.status, l.text).toBe(200);
      for (const item of l.body.data as { id: string; verificationId?: string }[]) {
        expect(bIds.has(item.id)).toBe(false);
        if (item.verificationId) expect(bIds.has(item.verificationId)).toBe(false);
      }
    }
    // A's own live charge is there, so the filter is not simply empty.
    const own = await call('GET', `/client/usage?verificationId=${f.a.verifications.live}`, { key: f.a.liveKey });
    expect(own.body.data.length).toBeGreaterThan(0);
    expect((await call('GET', `/client/usage?verificationId=${f.b.verifications.live}`, { key: f.a.liveKey })).body.data).toEqual([]);
    const wallet = await call('GET', '/client/wallet', { key: f.a.liveKey });
    expect(wallet.body.organizationId).toBe(f.a.organizationId);
  });

  it('an idempotency key reused by the other organization is a different request (scoped per organization)', async () => {
    const idem = newKey();
    const ra = await call('POST', '/verify/account', { key: f.a.sandboxKey, idem, body: NG_OK });
    const rb = await call('POST', '/verify/account', { key: f.b.sandboxKey, idem, body: NG_OK });
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);
    expect(rb.body.id).not.toBe(ra.body.id);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('sandbox keys never reach live data or the wallet', () => {
  it('a sandbox key cannot read live verifications or live webhooks of its own organization (404), and vice versa', async () => {
    const a = f.a;
    expect((await call('GET', `/verify/${a.verifications.live}`, { key: a.sandboxKey })).status).toBe(404);
    expect((await call('GET', `/verify/${a.verifications.sandbox}`, { key: a.liveKey })).status).toBe(404);
    expect((await call('GET', `/client/webhooks/${a.webhooks.live}`, { key: a.sandboxKey })).status).toBe(404);
    expect((await call('GET', `/client/webhooks/${a.webhooks.live}/deliveries/${a.deliveries.live}`, { key: a.sandboxKey })).status).toBe(404);
    expect((await call('PATCH', `/client/webhooks/${a.webhooks.live}`, { key: a.sandboxKey, body: { status: 'inactive' } })).status).toBe(404);
    const list = await call('GET', '/verify?limit=100', { key: a.sandboxKey });
    expect(list.body.data.every((v: { environment: string }) => v.environment === 'sandbox')).toBe(true);
    expect(list.body.data.some((v: { id: string }) => v.id === a.verifications.live)).toBe(false);
  });

  it('a sandbox key gets 403 on the wallet and usage; a live key and a signed-in user read them', async () => {
    for (const path of ['/client/wallet', '/client/usage']) {
      const r = await call('GET', path, { key: f.a.sandboxKey });
      expect(r.status, r.text).toBe(403);
      expect(r.body.code).toBe('FORBIDDEN');
      expect((await call('GET', path, { key: f.a.liveKey })).status).toBe(200);
      expect((await call('GET', path, { token: f.a.ownerToken })).status).toBe(200);
    }
  });

  it('a sandbox verification is never charged, whatever the body says', async () => {
    const before = (await call('GET', '/client/wallet', { key: f.a.liveKey })).body.balance;
    const r = await call('POST', '/verify/account', { key: f.a.sandboxKey, idem: newKey(), body: NG_OK });
    expect(r.body.charge.status).toBe('not_charged');
    expect((await call('GET', '/client/wallet', { key: f.a.liveKey })).body.balance).toBe(before);
  });
});

describe('roles', () => {
  it('DEVELOPER cannot create, list or revoke API keys (403); API keys cannot either', async () => {
    for (const cred of [{ token: f.developerToken }, { key: f.a.sandboxKey }, { key: f.a.liveKey }] as CallOptions[]) {
      const create = await call('POST', '/client/api-keys', { ...cred, body: { name: 'sneaky', environment: 'live' } });
      expect(create.status, create.text).toBe(403);
      expect(create.body.code).toBe('FORBIDDEN');
      expect((await call('GET', '/client/api-keys', cred)).status).toBe(403);
      const revoke = await call('DELETE', `/client/api-keys/${f.a.liveKeyId}`, cred);
      expect(revoke.status).toBe(403);
    }
    // Nothing was created or revoked.
    const keys = await call('GET', '/client/api-keys?limit=100', { token: f.a.ownerToken });
    expect(keys.body.data.some((k: { name: string }) => k.name === 'sneaky')).toBe(false);
    expect(keys.body.data.find((k: { id: string }) => k.id === f.a.liveKeyId).status).toBe('active');
  });

  it('DEVELOPER may manage webhooks (interface §1.7)', async () => {
    const r = await call('POST', '/client/webhooks', { token: f.developerToken, body: { url: PUBLIC_HOOK_URL, events: ['verification.failed'] } });
    expect(r.status, r.text).toBe(201);
    expect((await call('DELETE', `/client/webhooks/${r.body.id}`, { token: f.developerToken })).status).toBe(204);
  });
});

describe('mass assignment: unknown fields cannot set organization, status, price, secret, environment, verified or charge', () => {
  const forged = {
    organizationId: 'org_forged',
    organization_id: 'org_forged',
    status: 'success',
    verified: true,
    environment: 'live',
    price: 0,
    charge: { amount: 0, currency: 'USD', status: 'not_charged' },
    secret: 'whsec_forged',
    id: 'ver_forged',
  };

  it('verification requests with any of them → 422, nothing recorded', async () => {
    const before = (await call('GET', '/verify?limit=100', { key: f.a.sandboxKey })).body.pagination.total;
    for (const [k, v] of Object.entries(forged)) {
      const r = await call('POST', '/verify/account', { key: f.a.sandboxKey, idem: newKey(), body: { ...NG_OK, [k]: v } });
      expect(r.status, `${k}: ${r.text}`).toBe(422);
      expect(r.body.code).toBe('VALIDATION_ERROR');
    }
    expect((await call('GET', '/verify?limit=100', { key: f.a.sandboxKey })).body.pagination.total).toBe(before);
  });

  it('a live check with a forged charge or price is charged at the configured price', async () => {
    const r = await call('POST', '/verify/account', { key: f.a.liveKey, idem: newKey(), body: { ...NG_OK, price: 0 } });
    expect(r.status).toBe(422);
    const ok = await call('POST', '/verify/account', { key: f.a.liveKey, idem: newKey(), body: NG_OK });
    expect(ok.body.charge).toMatchObject({ status: 'charged', amount: 25 });
  });

  it('webhook create and update with any of them → 422, the stored webhook unchanged', async () => {
    const id = f.a.webhooks.sandbox;
    const before = (await call('GET', `/client/webhooks/${id}`, { key: f.a.sandboxKey })).body;
    for (const [k, v] of Object.entries(forged)) {
      const c = await call('POST', '/client/webhooks', { key: f.a.sandboxKey, body: { url: PUBLIC_HOOK_URL, events: ['verification.failed'], [k]: v } });
      expect(c.status, `create ${k}: ${c.text}`).toBe(422);
      const u = await call('PATCH', `/client/webhooks/${id}`, { key: f.a.sandboxKey, body: { description: 'x', [k]: v } });
      expect(u.status, `update ${k}: ${u.text}`).toBe(422);
    }
    const after = (await call('GET', `/client/webhooks/${id}`, { key: f.a.sandboxKey })).body;
    expect(after).toEqual(before);
  });

  it('API key creation: a forged organization, status or key value is refused (strict body)', async () => {
    const r = await call('POST', '/client/api-keys', {
      token: f.a.ownerToken,
      body: { name: 'mass-assign probe', environment: 'sandbox', organizationId: f.b.organizationId, status: 'revoked', key: 'svc_sandbox_' + '0'.repeat(64) },
    });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('VALIDATION_ERROR');
    const keysA = await call('GET', '/client/api-keys?limit=100', { token: f.a.ownerToken });
    expect(keysA.body.data.some((k: { name: string }) => k.name === 'mass-assign probe')).toBe(false);
  });

  it('login with a forged role or organization is refused (strict body)', async () => {
    const r = await call('POST', '/auth/login', { body: { email: f.developerEmail, password: TEST_PASSWORD, role: 'OWNER', organizationId: f.b.organizationId } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('VALIDATION_ERROR');
  });
});
