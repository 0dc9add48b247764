// Sample events (docs/webhooks.md "Sample events") through the normal signed path, checked by the official
// Standard Webhooks and Svix libraries; and async submissions that end at once still send verification.failed
// (docs/api-decisions.md).
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { parseTriggerArgs, webhooksTrigger } from '../../../src-main/cli/webhooks-commands';
import { verifyXSignature } from '../../../src-main/core/webhooks/signing';
import type { ReceivedRequest } from '../../../src-main/core/webhooks/test-receiver';
import { api, newKey } from '../../helpers/harness';
import { receiverAndService, registerWebhook, until } from './helpers';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup() {
  const { ts, receiver } = await receiverAndService();
  cleanup.push(() => receiver.close(), () => ts.stop());
  return { ts, receiver };
}

function headersOf(req: ReceivedRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') out[k] = v;
  return out;
}

const quiet = { out: () => {}, err: () => {} };

describe('sample events', () => {
  it('sends each event type, built from a sandbox fixture, signed so that standardwebhooks and svix accept it', async () => {
    const { ts, receiver } = await setup();
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    const scope = () => ({ organizationId: ts.org!.organizationId, environment: 'sandbox' as const });

    const completed = await webhooksTrigger(ts.service.rt, parseTriggerArgs(['verification.completed']), scope, quiet);
    expect(completed.exitCode).toBe(0);
    const failed = await webhooksTrigger(ts.service.rt, parseTriggerArgs(['verification.failed', '--webhook', hook.id]), scope, quiet);
    expect(failed.exitCode).toBe(0);
    const reqs = await receiver.waitFor(2);

    for (const [result, status] of [
      [completed.result, 'success'],
      [failed.result, 'failed'],
    ] as const) {
      const deliveryId = result.deliveries[0]!.deliveryId;
      const req = reqs.find((r) => r.headers['x-delivery-id'] === deliveryId)!;
      expect(req.headers['x-event-type']).toBe(result.eventType);
      const raw = req.rawBody.toString('utf8');
      // The official libraries, as a receiver would use them.
      expect(new StandardWebhook(hook.secret).verify(raw, headersOf(req))).toEqual(JSON.parse(raw));
      expect(new SvixWebhook(hook.secret).verify(raw, headersOf(req))).toEqual(JSON.parse(raw));
      expect(() => new StandardWebhook('whsec_' + Buffer.from('another secret of 32 bytes......').toString('base64')).verify(raw, headersOf(req))).toThrow();
      expect(verifyXSignature(hook.secret, req.rawBody, String(req.headers['x-signature']))).toBe(true);

      const body = JSON.parse(raw);
      expect(Object.keys(body).sort()).toEqual(['data', 'event', 'organizationId', 'timestamp', 'verificationId']);
      expect(body.event).toBe(result.eventType);
      expect(body.data).toMatchObject({ id: body.verificationId, status, country: 'NG', verificationType: 'ACCOUNT_NUMBER', mode: 'async', environment: 'sandbox' });
      if (status === 'failed') expect(body.data.error.code).toBe('ACCOUNT_NOT_FOUND');
      else expect(body.data.accountName).toEqual(expect.any(String));

      await until(async () => (await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries/${deliveryId}`, { key: ts.sandboxKey })).body.status === 'success', 'delivered');
      const d = await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries/${deliveryId}`, { key: ts.sandboxKey });
      expect(d.body).toMatchObject({ origin: 'trigger', attempts: 1, eventType: result.eventType });
      // The sample's verification is not stored: nothing real was checked.
      expect((await api(ts.url, 'GET', `/verify/${body.verificationId}`, { key: ts.sandboxKey })).status).toBe(404);
    }
  });

  it('says why nothing was sent: no subscriber, a paused webhook, an unsubscribed event, bad arguments', async () => {
    const { ts, receiver } = await setup();
    const scope = () => ({ organizationId: ts.org!.organizationId, environment: 'sandbox' as const });
    const errs: string[] = [];
    const none = await webhooksTrigger(ts.service.rt, parseTriggerArgs(['verification.failed']), scope, { out: () => {}, err: (l) => errs.push(l) });
    expect(none.exitCode).toBe(1);
    expect(errs[0]).toContain('No active sandbox webhook');
    const only = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/c`, ['verification.completed']);
    await expect(webhooksTrigger(ts.service.rt, parseTriggerArgs(['verification.failed', '--webhook', only.id]), scope, quiet)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await api(ts.url, 'PATCH', `/client/webhooks/${only.id}`, { key: ts.sandboxKey, body: { status: 'inactive' } });
    await expect(webhooksTrigger(ts.service.rt, parseTriggerArgs(['verification.completed', '--webhook', only.id]), scope, quiet)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(webhooksTrigger(ts.service.rt, parseTriggerArgs(['verification.completed', '--webhook', 'whk_00']), scope, quiet)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(() => parseTriggerArgs(['verification.started'])).toThrow(/usage/);
    expect(() => parseTriggerArgs(['verification.failed', '--webhook', 'nope'])).toThrow(/whk_/);
    expect(() => parseTriggerArgs(['verification.failed', '--environment', 'prod'])).toThrow(/sandbox or live/);
    expect(parseTriggerArgs(['verification.failed', '--environment', 'live'])).toEqual({ event: 'verification.failed', environment: 'live' });
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('async submissions that end at once', () => {
  it('a corridor format failure answers the final failed record and also sends verification.failed', async () => {
    const { ts, receiver } = await setup();
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    const r = await api(ts.url, 'POST', '/verify/account', {
      key: ts.sandboxKey,
      idem: newKey(),
      body: { country: 'NG', accountNumber: '012345678', bankCode: '058', mode: 'async' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'failed', mode: 'async', error: { code: 'INVALID_ACCOUNT_NUMBER' } });
    const [req] = await receiver.waitFor(1);
    const body = JSON.parse(req!.rawBody.toString('utf8'));
    expect(body).toMatchObject({ event: 'verification.failed', verificationId: r.body.id });
    expect(body.data).toEqual(r.body);
    expect(req!.headers['x-event-type']).toBe('verification.failed');
    expect(verifyXSignature(hook.secret, req!.rawBody, String(req!.headers['x-signature']))).toBe(true);

    // A sync format failure sends nothing (sync verifications have no events).
    const sync = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: { country: 'NG', accountNumber: '012345678', bankCode: '058' } });
    expect(sync.body.status).toBe('failed');
    const events = (await ts.service.deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM outbox_events WHERE verification_id = ?', [sync.body.id]))!;
    expect(events.n).toBe(0);
  });
});
