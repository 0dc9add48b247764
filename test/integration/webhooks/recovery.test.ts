// A failure nobody misses, and recovery (docs/webhooks.md "When an endpoint fails", "Recovery"): a real endpoint
// fails, the failure is recorded (alert, webhook.failed event, dropped deliveries that say so), then a recovery of
// the period delivers exactly that period's events once each, with valid signatures, across a restart of the
// service in the middle.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhooksRecover } from '../../../src-main/cli/webhooks-commands';
import { listWebhookAlerts, onWebhookFailed, type WebhookFailedEvent } from '../../../src-main/core/webhooks/failures';
import { previewRecovery } from '../../../src-main/core/webhooks/recovery';
import { startTestReceiver, type ReceivedRequest } from '../../../src-main/core/webhooks/test-receiver';
import { api, login, NG_OK, startTestService, type TestService } from '../../helpers/harness';
import { eventDispatched, NG_FAILED, registerWebhook, until, verifyAsync } from './helpers';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function header(req: ReceivedRequest, name: string): string {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0]! : (v ?? '');
}

interface Row {
  id: string;
  status: string;
  attempts: number;
  event_id: string;
  verification_id: string;
  original_event_id: string | null;
  origin: string;
  recovery_id: string | null;
  dropped_reason: string | null;
  dropped_at_ms: number | null;
  payload: string;
}

/** The webhook's deliveries in the order they were made (ids sort in creation order, on both engines). */
function rows(ts: TestService, webhookId: string): Promise<Row[]> {
  return ts.service.deps.sql.all<Row>('SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at_ms, id', [webhookId]);
}

async function eventOf(ts: TestService, verificationId: string): Promise<{ id: string; payload: string; created_at: string }> {
  return (await ts.service.deps.sql.get<{ id: string; payload: string; created_at: string }>('SELECT id, payload, created_at FROM outbox_events WHERE verification_id = ?', [
    verificationId,
  ]))!;
}

describe('a failed webhook: alert, dropped deliveries, recovery', () => {
  it('records the failure, drops the rest visibly, and a recovery across a restart delivers each event of the period once, signed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vc-rcv-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    let mode: 'ok' | 'fail' | 'partial' = 'ok';
    let acceptedInPartial = 0;
    // The webhook fails at the fifth failed attempt of one delivery; its other pending delivery is dropped then. That
    // second delivery must exist by then, whatever the machine's speed: the first event's last attempt is answered
    // only once it does (`secondPending`). Failed attempts are counted per event, by the body's verificationId.
    const failedAttempts = new Map<string, number>();
    let secondPending!: () => void;
    const secondExists = new Promise<void>((r) => (secondPending = r));
    const receiver = await startTestReceiver({
      responder: async (rec) => {
        if (mode === 'ok') return { status: 200, body: 'ok' };
        if (mode === 'partial' && acceptedInPartial < 2) {
          acceptedInPartial++;
          return { status: 200, body: 'ok' };
        }
        if (mode === 'fail') {
          const id = (JSON.parse(rec.rawBody.toString('utf8')) as { verificationId: string }).verificationId;
          const n = (failedAttempts.get(id) ?? 0) + 1;
          failedAttempts.set(id, n);
          if (n === 5) await secondExists;
        }
        return { status: mode === 'fail' ? 500 : 503, body: 'down' };
      },
    });
    cleanup.push(() => receiver.close());
    const start = (retryUnitMs: number, bootstrap: boolean) =>
      startTestService({ dataDir, retryUnitMs, allowWebhookHosts: [`127.0.0.1:${receiver.port}`], ...(bootstrap ? {} : { bootstrap: false as const }) });

    // Run A: the endpoint fails.
    let ts = await start(20, true);
    let running = true;
    cleanup.push(async () => {
      if (running) await ts.stop({ keepDir: true });
    });
    const { sandboxKey, email } = ts;
    const scope = { organizationId: ts.org!.organizationId, environment: 'sandbox' as const };
    const hook = await registerWebhook(ts, sandboxKey, `${receiver.url}/hook`);
    receiver.setSecrets([hook.secret]);
    const failures: WebhookFailedEvent[] = [];
    onWebhookFailed(ts.service.deps, (e) => failures.push(e));

    const v0 = await verifyAsync(ts, sandboxKey, NG_OK);
    await until(async () => (await rows(ts, hook.id))[0]?.status === 'success', 'the first event delivered');

    mode = 'fail';
    const v1 = await verifyAsync(ts, sandboxKey, NG_OK);
    await until(async () => (await rows(ts, hook.id)).find((r) => r.attempts >= 1 && r.status === 'pending'), 'the first failing attempt');
    const v2 = await verifyAsync(ts, sandboxKey, NG_FAILED);
    await until(async () => (await rows(ts, hook.id)).some((r) => r.verification_id === v2 && r.status === 'pending'), 'the second delivery pending');
    secondPending();
    await until(async () => (await api(ts.url, 'GET', `/client/webhooks/${hook.id}`, { key: sandboxKey })).body.status === 'failed', 'webhook failed', 30_000);

    // The failure: one domain event, one open alert naming the endpoint, the last error and what was dropped.
    expect(failures).toHaveLength(1);
    const all = await rows(ts, hook.id);
    const cause = all.find((r) => r.attempts === 5)!;
    const dropped = all.filter((r) => r.dropped_reason === 'webhook_failed');
    expect(cause.status).toBe('failed');
    expect(cause.dropped_reason).toBeNull();
    expect(dropped).toHaveLength(1);
    expect(dropped[0]!.status).toBe('failed');
    expect(dropped[0]!.dropped_at_ms).not.toBeNull();
    expect(failures[0]).toMatchObject({ type: 'webhook.failed', webhookId: hook.id, url: `${receiver.url}/hook`, deliveryId: cause.id, lastStatusCode: 500, lastError: 'HTTP 500', droppedDeliveries: 1 });
    const shown = await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries/${dropped[0]!.id}`, { key: sandboxKey });
    expect(shown.body).toMatchObject({ status: 'failed', dropReason: 'webhook_failed', droppedAt: expect.any(String), nextAttemptAt: null, origin: 'event' });

    // Events while failed are not queued (interface §3.2) but counted.
    // One after the other: an event's time is its completion's, and two checks queued together may complete in
    // either order (the explicit period below ends at E3 and must not hold E4).
    const v3 = await verifyAsync(ts, sandboxKey, NG_OK);
    await until(() => eventDispatched(ts, v3), 'E3 dispatched');
    const v4 = await verifyAsync(ts, sandboxKey, NG_FAILED);
    await until(() => eventDispatched(ts, v4), 'E4 dispatched');
    expect(await rows(ts, hook.id)).toHaveLength(3);
    const [alert] = await listWebhookAlerts(ts.service.deps, scope);
    expect(alert).toMatchObject({ webhookId: hook.id, url: `${receiver.url}/hook`, lastError: 'HTTP 500', lastStatusCode: 500, droppedDeliveries: 1, eventsNotSent: 2 });
    expect(await listWebhookAlerts(ts.service.deps, { ...scope, environment: 'live' })).toEqual([]);

    // The default period starts at the first event the failure left undelivered: E1..E4, not E0.
    const preview = await previewRecovery(ts.service.deps, scope, hook.id);
    expect(preview).toMatchObject({ events: 4, skipped: 0, toDeliver: 4, reenables: true });
    // An explicit period: up to (not including) E3.
    const lines: string[] = [];
    await webhooksRecover(ts.service.rt, { webhookId: hook.id, since: (await eventOf(ts, v1)).created_at, until: (await eventOf(ts, v3)).created_at, dryRun: true }, { out: (l) => lines.push(l), err: (l) => lines.push(l) });
    expect(lines[0]).toContain('2 to redeliver');
    expect(lines[0]).toContain('re-enables');
    await ts.stop({ keepDir: true });
    running = false;

    // Run B: a slow retry schedule; the endpoint takes two deliveries, then answers 503, and we stop mid-way.
    ts = await start(2_000, false);
    running = true;
    mode = 'partial';
    const { accessToken } = await login(ts.url, email);
    const byKey = await api(ts.url, 'POST', `/client/webhooks/${hook.id}/recoveries`, { key: sandboxKey, body: {} });
    expect(byKey.status).toBe(403); // OWNER or ADMIN only
    const before = receiver.requests.length;
    const rec = await api(ts.url, 'POST', `/client/webhooks/${hook.id}/recoveries`, { token: accessToken, body: {} });
    expect(rec.status).toBe(202);
    expect(rec.body).toMatchObject({ queued: 4, skipped: 0, reenabled: true, webhook: { status: 'active' } });
    await until(() => receiver.requests.length - before >= 4, 'a first attempt of every recovered delivery');
    await until(async () => (await rows(ts, hook.id)).filter((r) => r.origin === 'recovery' && r.attempts >= 1).length === 4, 'attempts logged');
    const mid = (await rows(ts, hook.id)).filter((r) => r.origin === 'recovery');
    expect(mid.filter((r) => r.status === 'success')).toHaveLength(2);
    expect(mid.filter((r) => r.status === 'pending')).toHaveLength(2);
    await ts.stop({ keepDir: true });
    running = false;

    // Run C: after the restart the queue finishes the recovery.
    mode = 'ok';
    ts = await start(20, false);
    running = true;
    await until(async () => (await rows(ts, hook.id)).filter((r) => r.origin === 'recovery').every((r) => r.status === 'success'), 'recovery complete', 30_000);

    const recovered = (await rows(ts, hook.id)).filter((r) => r.origin === 'recovery');
    const period = await Promise.all([v1, v2, v3, v4].map((v) => eventOf(ts, v)));
    expect(recovered.map((r) => r.original_event_id).sort()).toEqual(period.map((e) => e.id).sort());
    expect(new Set(recovered.map((r) => r.recovery_id)).size).toBe(1);
    for (const r of recovered) expect(r.payload).toBe(period.find((e) => e.id === r.original_event_id)!.payload);
    const e0 = await eventOf(ts, v0);
    expect(recovered.some((r) => r.original_event_id === e0.id)).toBe(false);

    // Exactly one 2xx per event of the period, every one signed validly with the webhook's secret.
    const recoveredIds = new Set(recovered.map((r) => r.id));
    const acceptedReqs = receiver.requests.slice(before).filter((q) => recoveredIds.has(header(q, 'x-delivery-id')));
    const okPerDelivery = new Map<string, number>();
    for (const q of acceptedReqs) {
      expect(q.xSignatureValid).toBe(true);
      expect(q.standardSignatureValid).toBe(true);
    }
    for (const r of recovered) okPerDelivery.set(r.id, 0);
    for (const d of await ts.service.deps.sql.all<{ delivery_id: string }>(`SELECT delivery_id FROM webhook_attempts WHERE status_code = 200 AND kind = 'scheduled'`)) {
      if (okPerDelivery.has(d.delivery_id)) okPerDelivery.set(d.delivery_id, okPerDelivery.get(d.delivery_id)! + 1);
    }
    expect([...okPerDelivery.values()]).toEqual([1, 1, 1, 1]);
    const bodies = acceptedReqs.map((q) => JSON.parse(q.rawBody.toString('utf8')).verificationId as string);
    expect(new Set(bodies)).toEqual(new Set([v1, v2, v3, v4]));

    // The API shows the link; the alert is closed; a second recovery of the same period has nothing to send.
    const list = await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries?limit=100`, { key: sandboxKey });
    const fromRecovery = (list.body.data as { origin: string; eventId: string; recoveryId: string }[]).filter((d) => d.origin === 'recovery');
    expect(fromRecovery.map((d) => d.eventId).sort()).toEqual(period.map((e) => e.id).sort());
    expect(fromRecovery.every((d) => d.recoveryId === rec.body.recoveryId)).toBe(true);
    expect(await listWebhookAlerts(ts.service.deps, scope)).toEqual([]);
    const again = await previewRecovery(ts.service.deps, scope, hook.id);
    expect(again).toMatchObject({ events: 4, skipped: 4, toDeliver: 0, reenables: false });
  }, 60_000);

  it('refuses a period it cannot use, and a paused webhook, with a clear 422', async () => {
    const receiver = await startTestReceiver();
    cleanup.push(() => receiver.close());
    const ts = await startTestService({ allowWebhookHosts: [`127.0.0.1:${receiver.port}`] });
    cleanup.push(() => ts.stop());
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    const { accessToken } = await login(ts.url, ts.email);
    const post = (body: object) => api(ts.url, 'POST', `/client/webhooks/${hook.id}/recoveries`, { token: accessToken, body });
    const never = await post({});
    expect(never.status).toBe(422);
    expect(never.body.details[0]).toMatchObject({ field: 'since' });
    expect((await post({ since: 'yesterday' })).body.details[0]).toMatchObject({ field: 'since' });
    expect((await post({ since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' })).body.details[0]).toMatchObject({ field: 'until' });
    // A start in the future is the start's problem (the console shows it under "From"), with or without an end.
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect((await post({ since: future })).body.details[0]).toMatchObject({ field: 'since', message: expect.stringContaining('future') });
    expect((await post({ since: future, until: '2026-01-01T00:00:00Z' })).body.details[0]).toMatchObject({ field: 'since' });
    // A period with nothing to redeliver is refused, not recorded as an empty recovery with its audit entry.
    const auditBefore = await ts.service.deps.sql.all<{ n: number }>(`SELECT count(*) AS n FROM audit_events WHERE action = 'webhook.recovered'`);
    const nothing = await post({ since: '2026-01-01T00:00:00Z' });
    expect(nothing.status).toBe(422);
    expect(nothing.body.details[0]).toMatchObject({ field: 'period', message: expect.stringContaining('nothing to redeliver') });
    expect(await ts.service.deps.sql.all(`SELECT id FROM webhook_recoveries WHERE webhook_id = ?`, [hook.id])).toEqual([]);
    expect(await ts.service.deps.sql.all<{ n: number }>(`SELECT count(*) AS n FROM audit_events WHERE action = 'webhook.recovered'`)).toEqual(auditBefore);
    await api(ts.url, 'PATCH', `/client/webhooks/${hook.id}`, { key: ts.sandboxKey, body: { status: 'inactive' } });
    const paused = await post({ since: '2026-01-01T00:00:00Z' });
    expect(paused.status).toBe(422);
    expect(paused.body.details[0]).toMatchObject({ field: 'status' });
    expect((await api(ts.url, 'POST', '/client/webhooks/whk_nope/recoveries', { token: accessToken, body: {} })).status).toBe(404);
    const preview = await api(ts.url, 'GET', `/client/webhooks/${hook.id}/recoveries/preview?since=2026-01-01T00:00:00Z`, { token: accessToken });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ webhookId: hook.id, events: 0, toDeliver: 0 });
  });

  it('`vconsole webhooks recover` of a failed webhook with nothing to redeliver re-enables it, recording no recovery', async () => {
    const receiver = await startTestReceiver();
    cleanup.push(() => receiver.close());
    const ts = await startTestService({ allowWebhookHosts: [`127.0.0.1:${receiver.port}`] });
    cleanup.push(() => ts.stop());
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    // Failed, and nothing missed since (its missed deliveries were delivered by Retry, say).
    await ts.service.deps.sql.transaction((tx) => tx.run(`UPDATE webhooks SET status = 'failed' WHERE id = ?`, [hook.id]));
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const r = await webhooksRecover(ts.service.rt, { webhookId: hook.id, since: '2026-01-01T00:00:00Z', dryRun: false }, io);
    expect([r.exitCode, r.result]).toEqual([0, null]);
    expect(lines.join('\n')).toContain('the webhook is active again');
    expect((await ts.service.deps.sql.get<{ status: string }>('SELECT status FROM webhooks WHERE id = ?', [hook.id]))!.status).toBe('active');
    expect(await ts.service.deps.sql.all('SELECT id FROM webhook_recoveries WHERE webhook_id = ?', [hook.id])).toEqual([]);
    // Active, nothing to redeliver: said, nothing recorded, exit 0.
    const again = await webhooksRecover(ts.service.rt, { webhookId: hook.id, since: '2026-01-01T00:00:00Z', dryRun: false }, io);
    expect(again.exitCode).toBe(0);
    expect(lines.at(-1)).toContain('no recovery was recorded');
  });
});
