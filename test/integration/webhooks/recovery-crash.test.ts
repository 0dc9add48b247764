// Recovery survives a crash (docs/webhooks.md "Recovery"): the real service as a child process fails a webhook,
// a recovery is queued through the API, the process is SIGKILLed while recovered deliveries are in flight, and
// after a restart every event of the period reaches the endpoint with a valid signature, each through its one
// recovered delivery (a delivery cut by the kill may arrive twice with the same id: at-least-once, interface §6).
import { afterEach, describe, expect, it } from 'vitest';
import { startTestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { api, login } from '../../helpers/harness';
import { killChild, prepareDataDir, removeDataDirs, startChild, stopChild, type ChildService } from '../../reliability/child-service';
import { until } from './helpers';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

interface DeliveryView {
  id: string;
  status: string;
  origin: string;
  eventId: string;
  verificationId: string;
  recoveryId: string | null;
}

describe('recovery across a SIGKILL', () => {
  it('finishes after a restart: each event of the period once through its recovered delivery, signed', async () => {
    let mode: 'fail' | 'hang-after-2' | 'ok' = 'fail';
    let answered = 0;
    const receiver = await startTestReceiver();
    cleanup.push(() => receiver.close());
    receiver.setResponder(() => {
      if (mode === 'fail') return { status: 500, body: 'down' };
      if (mode === 'hang-after-2' && answered >= 2) return new Promise(() => {}); // never answers: in flight at the kill
      answered++;
      return { status: 200, body: 'ok' };
    });
    const prep = await prepareDataDir();
    cleanup.push(() => removeDataDirs());
    const args = ['--allow-webhook-host', `127.0.0.1:${receiver.port}`, '--retry-unit-ms', '1'];
    let child: ChildService = await startChild(prep.dataDir, { args });
    cleanup.push(() => killChild(child));
    const key = prep.sandboxKey;

    const created = await api(child.url, 'POST', '/client/webhooks', { key, body: { url: `${receiver.url}/hook`, events: ['verification.completed', 'verification.failed'] } });
    expect(created.status).toBe(201);
    const hook = created.body as { id: string; secret: string };
    receiver.setSecrets([hook.secret]);
    const check = async (n: number) => {
      const r = await api(child.url, 'POST', '/verify/account', { key, idem: `rcv-crash-${n}`, body: { country: 'NG', accountNumber: '0123456789', bankCode: '058', mode: 'async' } });
      expect(r.status).toBe(202);
      return r.body.id as string;
    };
    const verifications = [await check(1), await check(2), await check(3)];
    await until(async () => (await api(child.url, 'GET', `/client/webhooks/${hook.id}`, { key })).body.status === 'failed', 'webhook failed', 30_000);
    // The other checks' deliveries are dropped at their next attempt once the webhook has failed (a few ms with this
    // retry unit); until then they are pending, and a recovery counts a pending delivery's event as handled (it goes
    // on once the webhook is re-enabled), so it would queue fewer than the four events (seen once under load).
    const pending = async () =>
      ((await api(child.url, 'GET', `/client/webhooks/${hook.id}/deliveries?limit=100`, { key })).body.data as DeliveryView[]).filter((d) => d.status === 'pending').length;
    await until(async () => (await pending()) === 0, 'the failed webhook\'s pending deliveries dropped');
    verifications.push(await check(4)); // while failed: not queued, recoverable
    await until(async () => (await api(child.url, 'GET', `/verify/${verifications[3]}`, { key })).body.status !== 'pending', 'the fourth check done');

    mode = 'hang-after-2';
    const before = receiver.requests.length;
    const { accessToken } = await login(child.url, prep.email);
    const rec = await api(child.url, 'POST', `/client/webhooks/${hook.id}/recoveries`, { token: accessToken, body: {} });
    expect(rec.status).toBe(202);
    expect(rec.body.queued).toBe(4);
    // Two answered, two in flight (never answered): kill the process now.
    await until(() => receiver.requests.length - before >= 4, 'four recovered deliveries attempted');
    await killChild(child);

    mode = 'ok';
    child = await startChild(prep.dataDir, { args });
    const list = async () => ((await api(child.url, 'GET', `/client/webhooks/${hook.id}/deliveries?limit=100`, { key })).body.data as DeliveryView[]).filter((d) => d.origin === 'recovery');
    await until(async () => {
      const l = await list();
      return l.length === 4 && l.every((d) => d.status === 'success');
    }, 'every recovered delivery succeeded after the restart', 30_000);
    const recovered = await list();
    expect(new Set(recovered.map((d) => d.verificationId))).toEqual(new Set(verifications));
    expect(new Set(recovered.map((d) => d.eventId)).size).toBe(4);
    expect(recovered.every((d) => d.recoveryId === rec.body.recoveryId)).toBe(true);

    const seen = receiver.requests.slice(before);
    const recoveredIds = new Set(recovered.map((d) => d.id));
    expect(seen.every((q) => recoveredIds.has(String(q.headers['x-delivery-id'])))).toBe(true);
    for (const q of seen) {
      expect(q.xSignatureValid).toBe(true);
      expect(q.standardSignatureValid).toBe(true);
    }
    // Every recovered delivery reached the endpoint; none of another event did.
    expect(new Set(seen.map((q) => String(q.headers['x-delivery-id'])))).toEqual(recoveredIds);
    await stopChild(child);
  }, 120_000);
});
