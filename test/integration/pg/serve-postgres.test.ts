// `serve --database postgres://…` (docs/team-server.md): the same service on PostgreSQL, end to end over HTTP — the
// sync and async checks, idempotent replays, signed webhooks to a real receiver, History, billing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestReceiver, type TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { api, enableLive, newKey, NG_OK, startTestService, type TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';

let db: TestDatabase;
let ts: TestService;
let receiver: TestReceiver;

beforeAll(async () => {
  db = await freshDatabase();
  receiver = await startTestReceiver();
  ts = await startTestService({ databaseUrl: db.url, retryUnitMs: 50, allowWebhookHosts: [`127.0.0.1:${receiver.port}`] });
}, 60_000);

afterAll(async () => {
  await ts?.stop();
  await receiver?.close();
  await db?.drop();
});

describe('the service on PostgreSQL', () => {
  it('answers a sync sandbox check, replays it by Idempotency-Key, and lists it', async () => {
    const idem = newKey();
    const first = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem, body: NG_OK });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'success', verified: true, country: 'NG' });
    const again = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem, body: NG_OK });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    const conflict = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem, body: { ...NG_OK, accountNumber: '0000000000' } });
    expect(conflict.status).toBe(409);
    const one = await api(ts.url, 'GET', `/verify/${first.body.id}`, { key: ts.sandboxKey });
    expect(one.body).toEqual(first.body);
    const list = await api(ts.url, 'GET', '/verify?limit=10', { key: ts.sandboxKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((v: { id: string }) => v.id)).toContain(first.body.id);
  });

  it('runs an async check through the queue and delivers its signed webhook', async () => {
    const hook = await api(ts.url, 'POST', '/client/webhooks', { key: ts.sandboxKey, body: { url: `${receiver.url}/hook`, events: ['verification.completed'] } });
    expect(hook.status).toBe(201);
    const r = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: { ...NG_OK, mode: 'async' } });
    expect(r.status).toBe(202);
    const [req] = await receiver.waitFor(1);
    const body = JSON.parse(req!.rawBody.toString('utf8'));
    expect(body).toMatchObject({ event: 'verification.completed', verificationId: r.body.id });
    const polled = await api(ts.url, 'GET', `/verify/${r.body.id}`, { key: ts.sandboxKey });
    expect(polled.body.status).toBe('success');
  });

  it('charges a live check against the wallet', async () => {
    await enableLive(ts);
    const before = (await api(ts.url, 'GET', '/client/wallet', { key: ts.liveKey })).body;
    const r = await api(ts.url, 'POST', '/verify/account', { key: ts.liveKey, idem: newKey(), body: NG_OK });
    expect(r.status).toBe(200);
    expect(r.body.charge.status).toBe('charged');
    const after = (await api(ts.url, 'GET', '/client/wallet', { key: ts.liveKey })).body;
    expect(after.balance).toBe(before.balance - r.body.charge.amount);
  });
});
