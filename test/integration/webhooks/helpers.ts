// Shared pieces of the webhook integration tests: a service whose URL rules allow the test receivers, async
// verifications, and polling of store state (condition-based, never a timed assertion).
import { api, NG_OK, newKey, startTestService, type TestService } from '../../helpers/harness';
import { startTestReceiver, type TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import type { Clock } from '../../../src-main/core/clock';
import { WebhookDispatcher } from '../../../src-main/jobs/webhook-dispatcher';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { closeAgents } from '../../../src-main/core/webhooks/sender';
import { createCore, type Core } from '../../../src-main/service';
import { dropTestStore, testStore } from '../../helpers/harness';

export const NG_FAILED = { country: 'NG', accountNumber: '0000000000', bankCode: '058' } as const;

export async function receiverAndService(opts: { retryUnitMs?: number; dataDir?: string; receiver?: TestReceiver; clock?: Clock } = {}) {
  const receiver = opts.receiver ?? (await startTestReceiver());
  const ts = await startTestService({
    retryUnitMs: opts.retryUnitMs ?? 50,
    allowWebhookHosts: [`127.0.0.1:${receiver.port}`],
    ...(opts.dataDir ? { dataDir: opts.dataDir, bootstrap: false as const } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  return { receiver, ts };
}

export async function registerWebhook(ts: TestService, key: string, url: string, events = ['verification.completed', 'verification.failed']) {
  const r = await api(ts.url, 'POST', '/client/webhooks', { key, body: { url, events } });
  if (r.status !== 201) throw new Error(`register failed: ${r.status} ${r.text}`);
  return r.body as { id: string; secret: string; status: string };
}

export async function verifyAsync(ts: TestService, key: string, body: object = NG_OK): Promise<string> {
  const r = await api(ts.url, 'POST', '/verify/account', { key, idem: newKey(), body: { ...body, mode: 'async' } });
  if (r.status !== 202) throw new Error(`async verify failed: ${r.status} ${r.text}`);
  return r.body.id as string;
}

/** Polls until fn returns a truthy value (the deadline only keeps a broken test from hanging). */
export async function until<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** True once every outbox event of the verification has been fanned out. */
export async function eventDispatched(ts: TestService, verificationId: string): Promise<boolean> {
  const row = (await ts.service.deps.sql.get<{ n: number; d: number }>('SELECT count(*) AS n, count(dispatched_at) AS d FROM outbox_events WHERE verification_id = ?', [
    verificationId,
  ]))!;
  return row.n > 0 && row.n === row.d;
}

/** A webhook's deliveries in the order they were made (ids sort in creation order, on both engines). */
export function deliveryRows(ts: TestService, webhookId: string) {
  return ts.service.deps.sql.all<{
    id: string;
    status: string;
    attempts: number;
    verification_id: string;
  }>('SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at_ms, id', [webhookId]);
}

/** A dispatcher that counts its finished passes (to wait for the first one, or to see a loop that spins). */
export class CountingDispatcher extends WebhookDispatcher {
  passes = 0;
  override async tick(): Promise<number> {
    const n = await super.tick();
    this.passes++;
    return n;
  }
}

/**
 * A core without its queue worker (the test drives the dispatcher) on a fresh store of the project's engine, its URL
 * rules allowing `receivers`, with an organization; everything it made (and the receivers) is undone by `cleanup`,
 * run in reverse by the test's afterEach.
 */
export async function dispatchCore(receivers: TestReceiver[], cleanup: (() => Promise<void>)[], email: string, extra: { leaseMs?: number; clock?: Clock; syncForTests?: () => Promise<void> } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'vc-dispatch-'));
  const core: Core = await createCore({
    dataDir: dir,
    startWorker: false,
    logLevel: 'silent',
    scryptN: 1024,
    allowWebhookHosts: receivers.map((r) => `127.0.0.1:${r.port}`),
    ...extra,
    ...(await testStore(dir)),
  });
  cleanup.push(
    ...receivers.map((r) => async () => r.close()),
    async () => rmSync(dir, { recursive: true, force: true }),
    async () => dropTestStore(dir),
    async () => core.close(),
    async () => closeAgents(core.rt),
  );
  const org = await bootstrap(core.deps, { email, password: 'correct horse battery staple' });
  const scope = { kind: 'console' as const, organizationId: org.organizationId, environment: 'sandbox' as const, role: 'OWNER' as const };
  return { core, org, scope };
}
