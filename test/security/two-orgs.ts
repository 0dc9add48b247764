// A two-organization fixture for the security suites: one service, organizations A and B (each with an owner,
// a sandbox and a live key), a DEVELOPER in A, and in each organization a sandbox and a live verification,
// a webhook per environment with one delivery, so that every route has a real id of the other tenant to try.
import { randomUUID } from 'node:crypto';
import { bootstrap } from '../../src-main/core/orgs/organizations';
import { createUser } from '../../src-main/core/orgs/organizations';
import { configureStandIn } from '../../src-main/providers/registry';
import { api, enableLive, login, newKey, NG_OK, startTestService, TEST_PASSWORD, type StartOptions, type TestService } from '../helpers/harness';

export interface Tenant {
  organizationId: string;
  email: string;
  sandboxKey: string;
  liveKey: string;
  sandboxKeyId: string;
  liveKeyId: string;
  ownerToken: string;
  /** Verification ids by environment. */
  verifications: { sandbox: string; live: string };
  /** Webhook ids by environment, and one delivery of each. */
  webhooks: { sandbox: string; live: string };
  deliveries: { sandbox: string | null; live: string | null };
}

export interface TwoOrgs {
  ts: TestService;
  a: Tenant;
  b: Tenant;
  developerEmail: string;
  developerToken: string;
}

// A public IP literal: registration needs no DNS; deliveries fail, which is irrelevant here.
export const PUBLIC_HOOK_URL = 'https://93.184.215.14/hooks/security-suite';

async function seed(ts: TestService, t: Omit<Tenant, 'verifications' | 'webhooks' | 'deliveries'>): Promise<Tenant> {
  const webhooks = { sandbox: '', live: '' };
  for (const env of ['sandbox', 'live'] as const) {
    const key = env === 'sandbox' ? t.sandboxKey : t.liveKey;
    const w = await api(ts.url, 'POST', '/client/webhooks', { key, body: { url: PUBLIC_HOOK_URL, events: ['verification.completed', 'verification.failed'] } });
    if (w.status !== 201) throw new Error(`webhook: ${w.status} ${w.text}`);
    webhooks[env] = w.body.id;
  }
  await enableLive(ts, 'account:NG', { organizationId: t.organizationId });
  const verifications = { sandbox: '', live: '' };
  for (const env of ['sandbox', 'live'] as const) {
    const key = env === 'sandbox' ? t.sandboxKey : t.liveKey;
    const v = await api(ts.url, 'POST', '/verify/account', { key, idem: newKey(), body: { ...NG_OK, mode: 'async' } });
    if (v.status !== 202) throw new Error(`verify: ${v.status} ${v.text}`);
    verifications[env] = v.body.id;
  }
  // The async verifications complete through the queue and their events become deliveries.
  const deliveries: Tenant['deliveries'] = { sandbox: null, live: null };
  for (let i = 0; i < 200 && (!deliveries.sandbox || !deliveries.live); i++) {
    for (const env of ['sandbox', 'live'] as const) {
      const key = env === 'sandbox' ? t.sandboxKey : t.liveKey;
      const d = await api(ts.url, 'GET', `/client/webhooks/${webhooks[env]}/deliveries`, { key });
      deliveries[env] = d.body?.data?.[0]?.id ?? null;
    }
    if (!deliveries.sandbox || !deliveries.live) await new Promise((r) => setTimeout(r, 50));
  }
  return { ...t, verifications, webhooks, deliveries };
}

export async function startTwoOrgs(opts: StartOptions = {}): Promise<TwoOrgs> {
  const ts = await startTestService(opts);
  // Live checks answer through the stand-in adapter (sandbox-like, billed as live): no upstream in tests.
  await configureStandIn(ts.service.rt);
  const orgA = ts.org!;
  const emailB = `owner-b-${randomUUID().slice(0, 8)}@example.com`;
  const orgB = await bootstrap(ts.service.deps, { email: emailB, password: TEST_PASSWORD, organizationName: 'Other tenant' });
  const developerEmail = `dev-${randomUUID().slice(0, 8)}@example.com`;
  await createUser(ts.service.deps, orgA.organizationId, { email: developerEmail, password: TEST_PASSWORD, role: 'DEVELOPER' });
  const [la, lb, ld] = [await login(ts.url, ts.email), await login(ts.url, emailB), await login(ts.url, developerEmail)];
  const a = await seed(ts, {
    organizationId: orgA.organizationId,
    email: ts.email,
    sandboxKey: orgA.keys.sandbox.key,
    liveKey: orgA.keys.live.key,
    sandboxKeyId: orgA.keys.sandbox.id,
    liveKeyId: orgA.keys.live.id,
    ownerToken: la.accessToken,
  });
  const b = await seed(ts, {
    organizationId: orgB.organizationId,
    email: emailB,
    sandboxKey: orgB.keys.sandbox.key,
    liveKey: orgB.keys.live.key,
    sandboxKeyId: orgB.keys.sandbox.id,
    liveKeyId: orgB.keys.live.id,
    ownerToken: lb.accessToken,
  });
  return { ts, a, b, developerEmail, developerToken: ld.accessToken };
}
