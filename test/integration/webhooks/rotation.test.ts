// Secret rotation a receiver can follow (docs/webhooks.md "Secret rotation"): real deliveries during the 24 h
// overlap and after it, checked by `vconsole webhooks listen` receivers holding the old secret, the new one, or
// both — per header. During the overlap X-Signature still carries the OLD secret and webhook-signature both; after
// it, the new secret alone signs both headers.
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingHttpHeaders } from 'node:http';
import { accepted, webhooksListen, type VerifyMode } from '../../../src-main/cli/webhooks-commands';
import { checkSignatures, type ReceivedRequest, type TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { SECRET_OVERLAP_MS } from '../../../src-main/core/webhooks/webhooks-service';
import { api, type TestService } from '../../helpers/harness';
import { deliveryRows, receiverAndService, registerWebhook, until, verifyAsync } from './helpers';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const quiet = { out: () => {}, err: () => {} };

async function listener(secrets: string[], verify: VerifyMode = 'both'): Promise<TestReceiver> {
  const l = await webhooksListen({ port: 0, secrets, verify }, quiet);
  cleanup.push(() => l.close());
  return l;
}

/** Sends a captured delivery (exact bytes and signature headers) to a listener; returns its answer. */
async function resend(to: TestReceiver, req: ReceivedRequest): Promise<number> {
  const headers: Record<string, string> = {};
  for (const k of ['content-type', 'x-delivery-id', 'x-event-type', 'x-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const v = req.headers[k];
    if (typeof v === 'string') headers[k] = v;
  }
  const res = await fetch(`${to.url}/`, { method: 'POST', headers, body: new Uint8Array(req.rawBody) });
  await res.arrayBuffer();
  return res.status;
}

function verdicts(secrets: string[], headers: IncomingHttpHeaders, body: Buffer) {
  return checkSignatures(secrets, headers, body, Date.now() / 1000);
}

async function rotate(ts: TestService, id: string): Promise<{ secret: string; previousSecretExpiresAt: string }> {
  const r = await api(ts.url, 'PATCH', `/client/webhooks/${id}`, { key: ts.sandboxKey, body: { rotateSecret: true } });
  expect(r.status).toBe(200);
  return r.body;
}

describe('secret rotation, per header', () => {
  it('during the overlap a receiver holding only the old secret accepts every delivery; new-only passes webhook-signature; both passes all', async () => {
    // A receiver that still holds only the old secret and checks BOTH headers is the webhook's endpoint itself:
    // before this fix it refused every attempt and the webhook failed.
    const { ts, receiver } = await receiverAndService({ receiver: await webhooksListen({ port: 0, secrets: [], verify: 'both' }, quiet) });
    cleanup.push(() => receiver.close(), () => ts.stop());
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    const old = hook.secret;
    receiver.setSecrets([old]);
    const rot = await rotate(ts, hook.id);
    expect(Date.parse(rot.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(SECRET_OVERLAP_MS - 60_000);
    const fresh = rot.secret;

    await verifyAsync(ts, ts.sandboxKey);
    const [req] = await receiver.waitFor(1);
    await until(async () => (await deliveryRows(ts, hook.id))[0]?.status === 'success', 'delivery accepted by the old-secret receiver');
    expect((await deliveryRows(ts, hook.id))[0]!.attempts).toBe(1);

    const body = req!.rawBody;
    expect(String(req!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    // Per header, for each receiver's list of secrets.
    expect(verdicts([old], req!.headers, body)).toEqual({ x: true, standard: true });
    expect(verdicts([fresh], req!.headers, body)).toEqual({ x: false, standard: true });
    expect(verdicts([old, fresh], req!.headers, body)).toEqual({ x: true, standard: true });
    expect(verdicts([fresh, old], req!.headers, body)).toEqual({ x: true, standard: true });

    // The same delivery through `vconsole webhooks listen` receivers.
    expect(await resend(await listener([old]), req!)).toBe(200);
    expect(await resend(await listener([fresh]), req!)).toBe(401);
    expect(await resend(await listener([fresh], 'webhook-signature'), req!)).toBe(200);
    expect(await resend(await listener([fresh], 'x-signature'), req!)).toBe(401);
    expect(await resend(await listener([old, fresh]), req!)).toBe(200);
  });

  it('after the overlap the new secret alone signs both headers: old-only refuses, new-only and both accept', async () => {
    // The rotation happened 24 h and a minute ago: the service's clock is moved back for it only.
    let offsetMs = 0;
    const { ts, receiver } = await receiverAndService({ clock: { now: () => Date.now() + offsetMs } });
    cleanup.push(() => receiver.close(), () => ts.stop());
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    const old = hook.secret;
    offsetMs = -(SECRET_OVERLAP_MS + 60_000);
    const rot = await rotate(ts, hook.id);
    offsetMs = 0;
    const fresh = rot.secret;
    const listed = await api(ts.url, 'GET', `/client/webhooks/${hook.id}`, { key: ts.sandboxKey });
    expect(listed.body.previousSecretExpiresAt).toBeNull();

    await verifyAsync(ts, ts.sandboxKey);
    const [req] = await receiver.waitFor(1);
    const body = req!.rawBody;
    expect(String(req!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verdicts([old], req!.headers, body)).toEqual({ x: false, standard: false });
    expect(verdicts([fresh], req!.headers, body)).toEqual({ x: true, standard: true });
    expect(verdicts([old, fresh], req!.headers, body)).toEqual({ x: true, standard: true });

    expect(await resend(await listener([old]), req!)).toBe(401);
    expect(await resend(await listener([fresh]), req!)).toBe(200);
    expect(await resend(await listener([old, fresh]), req!)).toBe(200);
  });

  it('before any rotation one secret signs both headers', async () => {
    const { ts, receiver } = await receiverAndService();
    cleanup.push(() => receiver.close(), () => ts.stop());
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    await verifyAsync(ts, ts.sandboxKey);
    const [req] = await receiver.waitFor(1);
    expect(verdicts([hook.secret], req!.headers, req!.rawBody)).toEqual({ x: true, standard: true });
    expect(String(req!.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('the listen command accepts per its --verify mode', () => {
    expect(accepted('both', true, false)).toBe(false);
    expect(accepted('both', true, true)).toBe(true);
    expect(accepted('x-signature', true, false)).toBe(true);
    expect(accepted('webhook-signature', false, true)).toBe(true);
    expect(accepted('webhook-signature', true, false)).toBe(false);
    expect(accepted('both', null, null)).toBe(true);
  });
});
