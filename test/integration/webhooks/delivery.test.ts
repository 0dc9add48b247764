// Signed delivery end to end (interface §6, §3.2–§3.3; decisions §7): a real async verification, a real local
// receiver, the retry schedule with a 50 ms "minute", failure of the webhook, resumption, redirects, rotation,
// replay and forwarding.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyStandardWebhook, verifyXSignature } from '../../../src-main/core/webhooks/signing';
import { replayDelivery, setForward } from '../../../src-main/core/webhooks/deliveries';
import { startTestReceiver, type ReceivedRequest, type TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { api, NG_OK, newKey, TEST_PASSWORD, type TestService } from '../../helpers/harness';
import { deliveryRows, eventDispatched, NG_FAILED, receiverAndService, registerWebhook, until, verifyAsync } from './helpers';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(retryUnitMs = 50) {
  const { ts, receiver } = await receiverAndService({ retryUnitMs });
  cleanup.push(() => receiver.close(), () => ts.stop());
  return { ts, receiver };
}

function h(req: ReceivedRequest, name: string): string {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0]! : (v ?? '');
}

function std(req: ReceivedRequest) {
  return { 'webhook-id': h(req, 'webhook-id'), 'webhook-timestamp': h(req, 'webhook-timestamp'), 'webhook-signature': h(req, 'webhook-signature') };
}

describe('delivery of verification events', () => {
  it('delivers verification.completed for an async NG verification, signed both ways over the raw body', async () => {
    const { ts, receiver } = await setup();
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    const verificationId = await verifyAsync(ts, ts.sandboxKey, NG_OK);
    const [req] = await receiver.waitFor(1);
    expect(req!.method).toBe('POST');
    expect(req!.path).toBe('/hook');
    expect(h(req!, 'content-type')).toBe('application/json');
    expect(h(req!, 'user-agent')).toBe('VerificationConsole-Webhooks/1.0');
    expect(h(req!, 'x-event-type')).toBe('verification.completed');
    const deliveryId = h(req!, 'x-delivery-id');
    expect(deliveryId).toMatch(/^del_/);
    expect(h(req!, 'webhook-id')).toBe(deliveryId);
    expect(h(req!, 'webhook-timestamp')).toMatch(/^\d+$/);

    expect(verifyXSignature(hook.secret, req!.rawBody, h(req!, 'x-signature'))).toBe(true);
    expect(verifyStandardWebhook(hook.secret, std(req!), req!.rawBody, Date.now() / 1000)).toBe(true);
    // A re-serialised body does not verify (interface §6 rule 2): the signature covers the exact bytes.
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(req!.rawBody.toString('utf8')), null, 2));
    expect(verifyXSignature(hook.secret, reserialised, h(req!, 'x-signature'))).toBe(false);

    const body = JSON.parse(req!.rawBody.toString('utf8'));
    expect(Object.keys(body).sort()).toEqual(['data', 'event', 'organizationId', 'timestamp', 'verificationId']);
    expect(body).toMatchObject({ event: 'verification.completed', verificationId, organizationId: ts.org!.organizationId });
    const polled = await api(ts.url, 'GET', `/verify/${verificationId}`, { key: ts.sandboxKey });
    expect(body.data).toEqual(polled.body);

    await until(async () => (await deliveryRows(ts, hook.id))[0]?.status === 'success', 'delivery success');
    const list = await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries`, { key: ts.sandboxKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ id: deliveryId, webhookId: hook.id, verificationId, status: 'success', attempts: 1, payload: body });
    expect(list.body.data[0].response.statusCode).toBe(200);
    const one = await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries/${deliveryId}`, { key: ts.sandboxKey });
    expect(one.body.attemptLog).toHaveLength(1);
    expect(one.body.attemptLog[0]).toMatchObject({ attempt: 1, kind: 'scheduled', statusCode: 200, error: null, responseBody: 'ok', nextAttemptAt: null });
    expect((await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries?status=failed`, { key: ts.sandboxKey })).body.data).toEqual([]);
    expect((await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries/del_nope`, { key: ts.sandboxKey })).status).toBe(404);
  });

  it('delivers verification.failed only to subscribers, and sends nothing for sync verifications', async () => {
    const { ts, receiver } = await setup();
    const completedOnly = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/completed`, ['verification.completed']);
    const failedOnly = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/failed`, ['verification.failed']);
    const sync = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: NG_OK });
    expect(sync.status).toBe(200);
    const failedId = await verifyAsync(ts, ts.sandboxKey, NG_FAILED);
    const [req] = await receiver.waitFor(1);
    expect(req!.path).toBe('/failed');
    const body = JSON.parse(req!.rawBody.toString('utf8'));
    expect(body.event).toBe('verification.failed');
    expect(body.verificationId).toBe(failedId);
    expect(body.data.verified).toBe(false);
    await until(() => eventDispatched(ts, failedId), 'fan-out');
    await until(async () => (await deliveryRows(ts, failedOnly.id))[0]?.status === 'success', 'success');
    expect(await deliveryRows(ts, completedOnly.id)).toEqual([]);
    expect(receiver.requests).toHaveLength(1);
    const outbox = (await ts.service.deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM outbox_events WHERE verification_id = ?', [sync.body.id]))!;
    expect(outbox.n).toBe(0);
  });

  it('fails the webhook after 5 failed attempts, drops events while failed, and resumes only new ones on PATCH active', async () => {
    const { ts, receiver } = await setup();
    receiver.setResponder(() => ({ status: 500, body: 'x'.repeat(5000) }));
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    const v1 = await verifyAsync(ts, ts.sandboxKey);
    await until(async () => (await api(ts.url, 'GET', `/client/webhooks/${hook.id}`, { key: ts.sandboxKey })).body.status === 'failed', 'webhook failed');
    expect(receiver.requests).toHaveLength(5);
    expect(new Set(receiver.requests.map((r) => h(r, 'x-delivery-id'))).size).toBe(1);
    const [d] = await deliveryRows(ts, hook.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 5, verification_id: v1 });
    const detail = await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries/${d!.id}`, { key: ts.sandboxKey });
    expect(detail.body.attemptLog.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(detail.body.attemptLog.every((a: { statusCode: number }) => a.statusCode === 500)).toBe(true);
    expect(Buffer.byteLength(detail.body.response.body)).toBeLessThanOrEqual(2048);
    // Consecutive waits grow 1, 3, 9, 27 "minutes" (never shorter than scheduled).
    const starts = detail.body.attemptLog.map((a: { startedAt: string }) => Date.parse(a.startedAt));
    [1, 3, 9, 27].forEach((m, i) => expect(starts[i + 1] - starts[i]).toBeGreaterThanOrEqual(m * 50));
    expect(detail.body.attemptLog[4].nextAttemptAt).toBeNull();

    receiver.setResponder(() => ({ status: 200, body: 'ok' }));
    const v2 = await verifyAsync(ts, ts.sandboxKey);
    await until(() => eventDispatched(ts, v2), 'fan-out of v2');
    expect(await deliveryRows(ts, hook.id)).toHaveLength(1);

    const on = await api(ts.url, 'PATCH', `/client/webhooks/${hook.id}`, { key: ts.sandboxKey, body: { status: 'active' } });
    expect(on.body.status).toBe('active');
    const v3 = await verifyAsync(ts, ts.sandboxKey);
    const reqs = await receiver.waitFor(6);
    expect(JSON.parse(reqs[5]!.rawBody.toString('utf8')).verificationId).toBe(v3);
    await until(() => eventDispatched(ts, v3), 'fan-out of v3');
    expect((await deliveryRows(ts, hook.id)).map((r) => r.verification_id)).toEqual([v1, v3]);
  });

  it('treats a 302 as a failed attempt and does not follow it', async () => {
    const { ts, receiver } = await setup(60_000);
    receiver.setResponder((r) => (r.path === '/hook' ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 }));
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    await verifyAsync(ts, ts.sandboxKey);
    await until(async () => (await deliveryRows(ts, hook.id))[0]?.attempts === 1, 'first attempt');
    const d = (await deliveryRows(ts, hook.id))[0]!;
    expect(d.status).toBe('pending');
    const detail = await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries/${d.id}`, { key: ts.sandboxKey });
    expect(detail.body.attemptLog[0]).toMatchObject({ attempt: 1, statusCode: 302 });
    expect(detail.body.attemptLog[0].error).toMatch(/redirect/);
    expect(detail.body.nextAttemptAt).not.toBeNull();
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hook']);

    // Deleting the webhook cancels the rest of the schedule.
    expect((await api(ts.url, 'DELETE', `/client/webhooks/${hook.id}`, { key: ts.sandboxKey })).status).toBe(204);
    expect((await deliveryRows(ts, hook.id))[0]).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('signs with both secrets for 24 h after a rotation', async () => {
    const { ts, receiver } = await setup();
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    const rot = await api(ts.url, 'PATCH', `/client/webhooks/${hook.id}`, { key: ts.sandboxKey, body: { rotateSecret: true } });
    const newSecret: string = rot.body.secret;
    await verifyAsync(ts, ts.sandboxKey);
    const [req] = await receiver.waitFor(1);
    const sigs = h(req!, 'webhook-signature').split(' ');
    expect(sigs).toHaveLength(2);
    const now = Date.now() / 1000;
    expect(verifyStandardWebhook(newSecret, std(req!), req!.rawBody, now)).toBe(true);
    expect(verifyStandardWebhook(hook.secret, std(req!), req!.rawBody, now)).toBe(true);
    expect(verifyStandardWebhook(newSecret, { ...std(req!), 'webhook-signature': sigs[0]! }, req!.rawBody, now)).toBe(true);
    expect(verifyStandardWebhook(hook.secret, { ...std(req!), 'webhook-signature': sigs[1]! }, req!.rawBody, now)).toBe(true);
    // X-Signature has room for one value: the old secret keeps it during the overlap (rotation.test.ts).
    expect(verifyXSignature(hook.secret, req!.rawBody, h(req!, 'x-signature'))).toBe(true);
    expect(verifyXSignature(newSecret, req!.rawBody, h(req!, 'x-signature'))).toBe(false);
  });

  it('replays byte for byte with the original signatures, or re-signed, to the webhook or a local receiver', async () => {
    const { ts, receiver } = await setup();
    const local = await startTestReceiver();
    cleanup.push(() => local.close());
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    await verifyAsync(ts, ts.sandboxKey);
    const [orig] = await receiver.waitFor(1);
    const deliveryId = h(orig!, 'x-delivery-id');
    await until(async () => (await deliveryRows(ts, hook.id))[0]?.status === 'success', 'success');
    const scope = { organizationId: ts.org!.organizationId, environment: 'sandbox' as const };

    // localhost is refused for registration, but allowed as the console's local receiver.
    const res = await replayDelivery(ts.service.rt, scope, deliveryId, { target: `http://localhost:${local.port}/replayed`, resign: false });
    expect(res).toMatchObject({ ok: true, statusCode: 200, signature: 'original' });
    const [copy] = await local.waitFor(1);
    expect(copy!.path).toBe('/replayed');
    expect(copy!.rawBody.equals(orig!.rawBody)).toBe(true);
    for (const name of ['x-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-delivery-id', 'x-event-type', 'user-agent', 'content-type']) {
      expect(h(copy!, name), name).toBe(h(orig!, name));
    }

    const resigned = await replayDelivery(ts.service.rt, scope, deliveryId, { target: 'webhook', resign: true });
    expect(resigned).toMatchObject({ ok: true, signature: 'fresh' });
    const [, again] = await receiver.waitFor(2);
    expect(again!.rawBody.equals(orig!.rawBody)).toBe(true);
    expect(verifyStandardWebhook(hook.secret, std(again!), again!.rawBody, Date.now() / 1000)).toBe(true);
    expect(h(again!, 'x-delivery-id')).toBe(deliveryId);

    await expect(replayDelivery(ts.service.rt, scope, deliveryId, { target: `${ts.url}/api/v1/health`, resign: false })).rejects.toMatchObject({ code: 'INVALID_WEBHOOK_URL' });
    await expect(replayDelivery(ts.service.rt, scope, deliveryId, { target: 'https://10.0.0.1/x', resign: false })).rejects.toMatchObject({ code: 'INVALID_WEBHOOK_URL' });
    await expect(replayDelivery(ts.service.rt, { ...scope, environment: 'live' }, deliveryId, { target: 'webhook', resign: false })).rejects.toMatchObject({ code: 'NOT_FOUND' });

    // Replays are logged but leave the delivery's status and attempt count alone.
    const detail = await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries/${deliveryId}`, { key: ts.sandboxKey });
    expect(detail.body).toMatchObject({ status: 'success', attempts: 1 });
    expect(detail.body.attemptLog.map((a: { kind: string }) => a.kind)).toEqual(['scheduled', 'replay', 'replay']);
  });

  it('a replay to localhost reaches a local receiver that listens on ::1 only (a dev server bound to localhost)', async () => {
    const { ts, receiver } = await setup();
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    await verifyAsync(ts, ts.sandboxKey);
    const [orig] = await receiver.waitFor(1);
    await until(async () => (await deliveryRows(ts, hook.id))[0]?.status === 'success', 'success');
    const got: Buffer[] = [];
    const v6 = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push(Buffer.concat(chunks));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => v6.listen(0, '::1', () => r()));
    cleanup.push(() => new Promise<void>((r) => v6.close(() => r())));
    const port = (v6.address() as AddressInfo).port;
    const scope = { organizationId: ts.org!.organizationId, environment: 'sandbox' as const };
    const res = await replayDelivery(ts.service.rt, scope, h(orig!, 'x-delivery-id'), { target: `http://localhost:${port}/replayed`, resign: false });
    expect(res).toMatchObject({ ok: true, statusCode: 200 });
    expect(got).toHaveLength(1);
    expect(got[0]!.equals(orig!.rawBody)).toBe(true);
  });

  it('forwards each delivery to the organization local receiver as it is sent', async () => {
    const { ts, receiver } = await setup();
    const local = await startTestReceiver();
    cleanup.push(() => local.close());
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    await expect(setForward(ts.service.rt, ts.org!.organizationId, 'https://example.com/x')).rejects.toThrow();
    await setForward(ts.service.rt, ts.org!.organizationId, `http://localhost:${local.port}/fwd`);
    await verifyAsync(ts, ts.sandboxKey);
    const [sent] = await receiver.waitFor(1);
    const [fwd] = await local.waitFor(1);
    expect(fwd!.rawBody.equals(sent!.rawBody)).toBe(true);
    expect(h(fwd!, 'x-signature')).toBe(h(sent!, 'x-signature'));
    expect(verifyXSignature(hook.secret, fwd!.rawBody, h(fwd!, 'x-signature'))).toBe(true);
  });

  it('lengthens the next wait on 429 with Retry-After', async () => {
    const { ts, receiver } = await setup(50);
    // Retry-After 120 s = 2 "minutes" = 100 ms here, longer than the 1-minute (50 ms) wait it replaces.
    receiver.setResponder(() => ({ status: 429, headers: { 'retry-after': '120' } }));
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    await verifyAsync(ts, ts.sandboxKey);
    await receiver.waitFor(2);
    const d = (await deliveryRows(ts, hook.id))[0]!;
    // The second attempt's log commits once its 429 is back (through the write port, after its sync).
    const detail = await until(async () => {
      const r = await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries/${d.id}`, { key: ts.sandboxKey });
      return r.body.attemptLog?.length >= 2 ? r : null;
    }, 'two logged attempts');
    const [a1, a2] = detail.body.attemptLog;
    expect(Date.parse(a1.nextAttemptAt) - Date.parse(a1.startedAt)).toBeGreaterThanOrEqual(100);
    expect(Date.parse(a2.startedAt)).toBeGreaterThanOrEqual(Date.parse(a1.nextAttemptAt));
  });
});

describe('durability', () => {
  it('resumes the remaining attempts after a restart mid-schedule', async () => {
    const receiver = await startTestReceiver({ responder: () => ({ status: 503 }) });
    cleanup.push(() => receiver.close());
    const dataDir = mkdtempSync(join(tmpdir(), 'vc-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const first = await receiverAndService({ retryUnitMs: 100, dataDir, receiver });
    const org = await bootstrap(first.ts.service.deps, { email: 'restart@example.com', password: TEST_PASSWORD });
    const key = org.keys.sandbox.key;
    const hook = await registerWebhook(first.ts, key, `${receiver.url}/hook`);
    await verifyAsync(first.ts, key);
    await receiver.waitFor(2);
    await first.ts.stop({ keepDir: true });
    const before = receiver.requests.length;
    expect(before).toBeLessThan(5);

    const second = await receiverAndService({ retryUnitMs: 100, dataDir, receiver });
    cleanup.push(() => second.ts.stop({ keepDir: true }));
    await until(async () => (await deliveryRows(second.ts, hook.id))[0]?.status === 'failed', 'delivery failed after restart');
    expect(receiver.requests).toHaveLength(5);
    expect(new Set(receiver.requests.map((r) => h(r, 'x-delivery-id'))).size).toBe(1);
    const status = await api(second.ts.url, 'GET', `/client/webhooks/${hook.id}`, { key });
    expect(status.body.status).toBe('failed');
  });
});

export type { TestReceiver, TestService };
