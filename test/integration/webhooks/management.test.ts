// Webhook management over real HTTP (interface §2.7, §4.3, §7.5; decisions §6–§7): registration rules and 422s,
// secrets shown once, scoping (404 for another organization or environment), filters, PATCH and DELETE.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, createUser } from '../../../src-main/core/orgs/organizations';
import { setRegistrationResolverForTests } from '../../../src-main/core/webhooks/webhooks-service';
import type { TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { api, login, TEST_PASSWORD, type TestService } from '../../helpers/harness';
import { receiverAndService } from './helpers';

let ts: TestService;
let receiver: TestReceiver;
let hookUrl: string;

beforeAll(async () => {
  ({ ts, receiver } = await receiverAndService());
  hookUrl = `${receiver.url}/hook`;
  // No DNS traffic in tests: names resolve through this table.
  setRegistrationResolverForTests(async (host) => {
    const table: Record<string, string[]> = {
      'hooks.example.com': ['93.184.216.34'],
      'internal.example.com': ['10.1.2.3'],
      'mixed.example.com': ['93.184.216.34', '169.254.169.254'],
    };
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  });
});
afterAll(async () => {
  setRegistrationResolverForTests(null);
  await ts.stop();
  await receiver.close();
});

describe('POST /client/webhooks', () => {
  it('registers an endpoint and shows the secret exactly once', async () => {
    const r = await api(ts.url, 'POST', '/client/webhooks', {
      key: ts.sandboxKey,
      body: { url: 'https://hooks.example.com/vc', events: ['verification.completed'], description: 'orders' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ url: 'https://hooks.example.com/vc', events: ['verification.completed'], status: 'active', description: 'orders', environment: 'sandbox' });
    expect(r.body.id).toMatch(/^whk_/);
    expect(r.body.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(r.body.secretPrefix).toBe(r.body.secret.slice(0, 10));
    const secret: string = r.body.secret;

    const one = await api(ts.url, 'GET', `/client/webhooks/${r.body.id}`, { key: ts.sandboxKey });
    expect(one.status).toBe(200);
    expect(one.body.secret).toBeUndefined();
    expect(one.text).not.toContain(secret.slice(6));
    const list = await api(ts.url, 'GET', '/client/webhooks', { key: ts.sandboxKey });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(secret.slice(6));
    expect(list.body.pagination).toMatchObject({ limit: 20, offset: 0 });
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(r.body.id);
  });

  it.each([
    ['http on a public host', 'http://hooks.example.com/vc'],
    ['localhost', 'https://localhost/vc'],
    ['loopback literal', 'https://127.0.0.1/vc'],
    ['private range', 'https://10.0.0.8/vc'],
    ['IPv6 loopback', 'https://[::1]/vc'],
    ['IPv4-mapped private', 'https://[::ffff:192.168.1.1]/vc'],
    ['decimal loopback', 'https://2130706433/vc'],
    ['a name resolving to a private address', 'https://internal.example.com/vc'],
    ['a name with one link-local answer', 'https://mixed.example.com/vc'],
    ['not a URL', 'not a url'],
    ['ftp', 'ftp://hooks.example.com/vc'],
    ['credentials', 'https://user:pw@hooks.example.com/vc'],
    ['our own API listener', 'OWN'],
  ])('refuses %s with 422 INVALID_WEBHOOK_URL', async (_name, url) => {
    // https, so that the own-listener rule itself (checked before the address ranges) is what refuses it.
    const target = url === 'OWN' ? `https://127.0.0.1:${ts.port}/api/v1/meta` : url;
    const r = await api(ts.url, 'POST', '/client/webhooks', { key: ts.sandboxKey, body: { url: target, events: ['verification.completed'] } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('INVALID_WEBHOOK_URL');
    expect(r.body.details[0].field).toBe('url');
    expect(r.body.action.type).toBe('FIX_INPUT');
    if (url === 'OWN') expect(r.body.details[0].message).toBe('URL points at this service');
  });

  it('accepts a host name that cannot be resolved right now (decisions §7)', async () => {
    const r = await api(ts.url, 'POST', '/client/webhooks', { key: ts.sandboxKey, body: { url: 'https://offline.example.net/hook', events: ['verification.failed'] } });
    expect(r.status).toBe(201);
  });

  it('validates events with 422 VALIDATION_ERROR', async () => {
    for (const events of [[], ['verification.started'], 'verification.completed']) {
      const r = await api(ts.url, 'POST', '/client/webhooks', { key: ts.sandboxKey, body: { url: hookUrl, events } });
      expect(r.status).toBe(422);
      expect(r.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('accepts a Bearer token of any role', async () => {
    const { accessToken } = await login(ts.url, ts.email);
    const r = await api(ts.url, 'POST', '/client/webhooks', { token: accessToken, body: { url: hookUrl, events: ['verification.completed'] } });
    expect(r.status).toBe(201);
    await createUser(ts.service.deps, ts.org!.organizationId, { email: 'dev-webhooks@example.com', password: TEST_PASSWORD, role: 'DEVELOPER' });
    const dev = await login(ts.url, 'dev-webhooks@example.com');
    const byDeveloper = await api(ts.url, 'POST', '/client/webhooks', { token: dev.accessToken, body: { url: hookUrl, events: ['verification.failed'] } });
    expect(byDeveloper.status).toBe(201);
    const viaKey = await api(ts.url, 'GET', `/client/webhooks/${r.body.id}`, { key: ts.sandboxKey });
    expect(viaKey.status).toBe(200);
    const noCredential = await api(ts.url, 'GET', '/client/webhooks');
    expect(noCredential.status).toBe(401);
  });
});

describe('scoping and lookup', () => {
  it('answers 404 for an unknown id, another environment and another organization', async () => {
    const created = await api(ts.url, 'POST', '/client/webhooks', { key: ts.sandboxKey, body: { url: hookUrl, events: ['verification.completed'] } });
    const id: string = created.body.id;
    expect((await api(ts.url, 'GET', '/client/webhooks/whk_doesnotexist', { key: ts.sandboxKey })).status).toBe(404);
    const live = await api(ts.url, 'GET', `/client/webhooks/${id}`, { key: ts.liveKey });
    expect(live.status).toBe(404);
    expect(live.body.code).toBe('NOT_FOUND');

    const other = await bootstrap(ts.service.deps, { email: 'other-org@example.com', password: TEST_PASSWORD });
    const otherKey = other.keys.sandbox.key;
    for (const [method, path, body] of [
      ['GET', `/client/webhooks/${id}`, undefined],
      ['PATCH', `/client/webhooks/${id}`, { status: 'inactive' }],
      ['DELETE', `/client/webhooks/${id}`, undefined],
      ['GET', `/client/webhooks/${id}/deliveries`, undefined],
    ] as const) {
      const r = await api(ts.url, method, path, { key: otherKey, ...(body ? { body } : {}) });
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    const otherList = await api(ts.url, 'GET', '/client/webhooks', { key: otherKey });
    expect(otherList.body.data).toEqual([]);
    // Still there and unchanged for its owner.
    const mine = await api(ts.url, 'GET', `/client/webhooks/${id}`, { key: ts.sandboxKey });
    expect(mine.body.status).toBe('active');
  });

  it('filters the list by status and event', async () => {
    const a = await api(ts.url, 'POST', '/client/webhooks', { key: ts.liveKey, body: { url: hookUrl, events: ['verification.failed'] } });
    const b = await api(ts.url, 'POST', '/client/webhooks', { key: ts.liveKey, body: { url: hookUrl, events: ['verification.completed'] } });
    await api(ts.url, 'PATCH', `/client/webhooks/${b.body.id}`, { key: ts.liveKey, body: { status: 'inactive' } });
    const failedOnes = await api(ts.url, 'GET', '/client/webhooks?event=verification.failed', { key: ts.liveKey });
    expect(failedOnes.body.data.map((w: { id: string }) => w.id)).toEqual([a.body.id]);
    const inactive = await api(ts.url, 'GET', '/client/webhooks?status=inactive', { key: ts.liveKey });
    expect(inactive.body.data.map((w: { id: string }) => w.id)).toEqual([b.body.id]);
    expect(inactive.body.pagination).toEqual({ total: 1, limit: 20, offset: 0, hasMore: false });
    expect((await api(ts.url, 'GET', '/client/webhooks?status=broken', { key: ts.liveKey })).status).toBe(422);
    expect((await api(ts.url, 'GET', '/client/webhooks?limit=101', { key: ts.liveKey })).status).toBe(422);
  });
});

describe('PATCH and DELETE', () => {
  it('updates fields partially, re-checks a new URL, and rotates the secret once', async () => {
    const c = await api(ts.url, 'POST', '/client/webhooks', { key: ts.sandboxKey, body: { url: hookUrl, events: ['verification.completed'] } });
    const id: string = c.body.id;
    const p1 = await api(ts.url, 'PATCH', `/client/webhooks/${id}`, { key: ts.sandboxKey, body: { events: ['verification.failed', 'verification.completed'], description: 'both' } });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ url: hookUrl, events: ['verification.failed', 'verification.completed'], description: 'both', status: 'active' });
    expect(p1.body.secret).toBeUndefined();

    const bad = await api(ts.url, 'PATCH', `/client/webhooks/${id}`, { key: ts.sandboxKey, body: { url: 'https://192.168.0.10/x' } });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('INVALID_WEBHOOK_URL');
    const cannotFail = await api(ts.url, 'PATCH', `/client/webhooks/${id}`, { key: ts.sandboxKey, body: { status: 'failed' } });
    expect(cannotFail.status).toBe(422);

    const rot = await api(ts.url, 'PATCH', `/client/webhooks/${id}`, { key: ts.sandboxKey, body: { rotateSecret: true } });
    expect(rot.status).toBe(200);
    expect(rot.body.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(rot.body.secret).not.toBe(c.body.secret);
    expect(rot.body.previousSecretExpiresAt).not.toBeNull();
    const after = await api(ts.url, 'GET', `/client/webhooks/${id}`, { key: ts.sandboxKey });
    expect(after.body.secret).toBeUndefined();
    expect(after.body.secretPrefix).toBe(rot.body.secret.slice(0, 10));
  });

  it('deletes with 204, after which the webhook is 404', async () => {
    const c = await api(ts.url, 'POST', '/client/webhooks', { key: ts.sandboxKey, body: { url: hookUrl, events: ['verification.completed'] } });
    const d = await api(ts.url, 'DELETE', `/client/webhooks/${c.body.id}`, { key: ts.sandboxKey });
    expect(d.status).toBe(204);
    expect(d.text).toBe('');
    expect((await api(ts.url, 'GET', `/client/webhooks/${c.body.id}`, { key: ts.sandboxKey })).status).toBe(404);
    expect((await api(ts.url, 'DELETE', `/client/webhooks/${c.body.id}`, { key: ts.sandboxKey })).status).toBe(404);
    const row = (await ts.service.deps.sql.get<{ secret: string }>('SELECT secret FROM webhooks WHERE id = ?', [c.body.id]))!;
    expect(row.secret).toBe('');
  });

  it('appears in the OpenAPI document', async () => {
    const r = await api(ts.url, 'GET', '/openapi.json', { key: ts.sandboxKey });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(['/api/v1/client/webhooks', '/api/v1/client/webhooks/{id}/deliveries/{deliveryId}']));
    // The recovery extension (docs/api-decisions.md): documented, with operation ids, Bearer-only, 403 listed.
    const recover = r.body.paths['/api/v1/client/webhooks/{id}/recoveries'].post;
    expect(recover.operationId).toBe('recoverWebhookEvents');
    expect(recover.description).toContain('Extension beyond the interface');
    expect(recover.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(recover.responses)).toEqual(expect.arrayContaining(['202', '403', '422']));
    const preview = r.body.paths['/api/v1/client/webhooks/{id}/recoveries/preview'].get;
    expect(preview.operationId).toBe('previewWebhookRecovery');
    expect(preview.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['id', 'since', 'until']));
    expect(r.body.components.schemas.WebhookDelivery.properties).toHaveProperty('dropReason');
  });
});
