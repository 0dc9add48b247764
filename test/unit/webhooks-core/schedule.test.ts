// The delivery schedule driven by a ManualClock (interface §6, decisions §7): attempts at exactly 0, 1, 4, 13 and
// 40 "minutes" after the event, Retry-After lengthening but never shortening a wait, the failed transition,
// fan-out rules, and the stored event bytes sent unchanged.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src-main/core/clock';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { claimDue, fanOut, runScheduledAttempt } from '../../../src-main/core/webhooks/deliveries';
import { closeAgents } from '../../../src-main/core/webhooks/sender';
import { startTestReceiver, type Reply, type TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { createWebhook, updateWebhook, type Scope } from '../../../src-main/core/webhooks/webhooks-service';
import { createCore, type Core } from '../../../src-main/service';

const MIN = 60_000;
let dir: string;
let clock: ManualClock;
let core: Core;
let receiver: TestReceiver;
let scope: Scope;
let reply: Reply;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vc-'));
  clock = new ManualClock();
  reply = { status: 500 };
  receiver = await startTestReceiver({ responder: () => reply });
  core = await createCore({ dataDir: dir, clock, logLevel: 'silent', scryptN: 1024, startWorker: false, allowWebhookHosts: [`127.0.0.1:${receiver.port}`] });
  const org = await bootstrap(core.deps, { email: 'sched@example.com', password: 'correct horse battery' });
  scope = { organizationId: org.organizationId, environment: 'sandbox' };
});
afterEach(async () => {
  await closeAgents(core.rt);
  await core.close();
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

// Deliberately odd spacing and key order: the delivery must carry these bytes, not a re-serialisation.
const PAYLOAD = '{"event":"verification.completed",  "verificationId":"ver_1","organizationId":"ORG","timestamp":"2026-11-21T10:00:00.000Z","data":{"status":"success","verified":true,"note":"é"}}';

function emit(eventType = 'verification.completed'): string {
  const id = `evt_${Math.random().toString(16).slice(2)}`;
  core.deps.db!
    .prepare(
      `INSERT INTO outbox_events (id, organization_id, environment, event_type, verification_id, payload, created_at)
       VALUES (?, ?, 'sandbox', ?, 'ver_1', ?, ?)`,
    )
    .run(id, scope.organizationId, eventType, PAYLOAD.replace('ORG', scope.organizationId), new Date(clock.now()).toISOString());
  return id;
}

function delivery(id: string) {
  return core.deps.db!.prepare('SELECT * FROM webhook_deliveries WHERE id = ?').get(id) as {
    status: string;
    attempts: number;
    next_attempt_at_ms: number | null;
  };
}

async function step(): Promise<string[]> {
  const ids = await claimDue(core.deps, 10);
  for (const id of ids) await runScheduledAttempt(core.rt, id);
  return ids;
}

describe('retry schedule', () => {
  it('attempts at exactly 0, 1, 4, 13 and 40 minutes, then fails the delivery and the webhook', async () => {
    const hook = await createWebhook(core.rt, scope, { url: `${receiver.url}/h`, events: ['verification.completed'] });
    const t0 = clock.now();
    emit();
    expect(await fanOut(core.deps)).toBe(1);
    expect(await fanOut(core.deps)).toBe(0);
    const [id] = await step();
    expect(id).toMatch(/^del_/);
    for (const minute of [1, 4, 13, 40]) {
      clock.set(t0 + minute * MIN - 1);
      expect(await step(), `nothing due before minute ${minute}`).toEqual([]);
      clock.set(t0 + minute * MIN);
      expect(await step()).toEqual([id]);
    }
    expect(receiver.requests).toHaveLength(5);
    expect(delivery(id!)).toMatchObject({ status: 'failed', attempts: 5, next_attempt_at_ms: null });
    const status = core.deps.db!.prepare('SELECT status FROM webhooks WHERE id = ?').get(hook.id) as { status: string };
    expect(status.status).toBe('failed');
    clock.advance(1000 * MIN);
    expect(await step()).toEqual([]);

    for (const r of receiver.requests) {
      expect(r.rawBody.toString('utf8')).toBe(PAYLOAD.replace('ORG', scope.organizationId));
      expect(r.headers['x-delivery-id']).toBe(id);
    }
    // webhook-timestamp is the attempt's own time (Unix seconds), not the event's.
    expect(receiver.requests.map((r) => Number(r.headers['webhook-timestamp']) - t0 / 1000)).toEqual([0, 60, 240, 780, 2400]);
  });

  it('stops after the first 2xx', async () => {
    await createWebhook(core.rt, scope, { url: `${receiver.url}/h`, events: ['verification.completed'] });
    emit();
    await fanOut(core.deps);
    const [id] = await step();
    reply = { status: 204 };
    clock.advance(MIN);
    await step();
    expect(delivery(id!)).toMatchObject({ status: 'success', attempts: 2, next_attempt_at_ms: null });
    clock.advance(100 * MIN);
    expect(await step()).toEqual([]);
  });

  it.each([
    [429, '600', 10 * MIN],
    [503, '600', 10 * MIN],
    [503, '5', 1 * MIN],
    [500, '600', 1 * MIN],
    [429, 'soon', 1 * MIN],
  ])('a %i with Retry-After %s makes the next wait %i ms', async (status, retryAfter, wait) => {
    await createWebhook(core.rt, scope, { url: `${receiver.url}/h`, events: ['verification.completed'] });
    reply = { status, headers: { 'retry-after': retryAfter } };
    const t0 = clock.now();
    emit();
    await fanOut(core.deps);
    const [id] = await step();
    expect(delivery(id!).next_attempt_at_ms).toBe(t0 + wait);
  });
});

describe('secret rotation', () => {
  it('signs with both secrets for exactly 24 hours after a rotation, then with the new one only', async () => {
    reply = { status: 204 };
    const hook = await createWebhook(core.rt, scope, { url: `${receiver.url}/h`, events: ['verification.completed'] });
    const rotated = await updateWebhook(core.rt, scope, hook.id, { rotateSecret: true });
    expect(rotated.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(Date.parse(String((rotated as { previousSecretExpiresAt?: string | null }).previousSecretExpiresAt))).toBe(clock.now() + 24 * 60 * MIN);

    emit();
    await fanOut(core.deps);
    await step();
    expect(String(receiver.requests.at(-1)!.headers['webhook-signature']).split(' ')).toHaveLength(2);

    clock.advance(24 * 60 * MIN + 1000);
    emit();
    await fanOut(core.deps);
    await step();
    expect(String(receiver.requests.at(-1)!.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });
});

describe('fan-out', () => {
  it('creates deliveries only for active subscribers and only for events after activation', async () => {
    const both = await createWebhook(core.rt, scope, { url: `${receiver.url}/a`, events: ['verification.completed', 'verification.failed'] });
    const failedOnly = await createWebhook(core.rt, scope, { url: `${receiver.url}/b`, events: ['verification.failed'] });
    const paused = await createWebhook(core.rt, scope, { url: `${receiver.url}/c`, events: ['verification.completed'] });
    await updateWebhook(core.rt, scope, paused.id, { status: 'inactive' });
    const live = await createWebhook(core.rt, { ...scope, environment: 'live' }, { url: `${receiver.url}/d`, events: ['verification.completed'] });
    clock.advance(1000);
    emit('verification.completed');
    await fanOut(core.deps);
    const count = (id: string) => (core.deps.db!.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?').get(id) as { n: number }).n;
    expect([count(both.id), count(failedOnly.id), count(paused.id), count(live.id)]).toEqual([1, 0, 0, 0]);

    // An event emitted while paused but fanned out after re-activation is not delivered.
    emit('verification.completed');
    clock.advance(1000);
    await updateWebhook(core.rt, scope, paused.id, { status: 'active' });
    await fanOut(core.deps);
    expect(count(paused.id)).toBe(0);
    clock.advance(1000);
    emit('verification.completed');
    await fanOut(core.deps);
    expect(count(paused.id)).toBe(1);
  });

  it('cancels pending deliveries when the webhook is paused', async () => {
    const hook = await createWebhook(core.rt, scope, { url: `${receiver.url}/h`, events: ['verification.completed'] });
    emit();
    await fanOut(core.deps);
    const [id] = await step();
    await updateWebhook(core.rt, scope, hook.id, { status: 'inactive' });
    expect(delivery(id!)).toMatchObject({ status: 'failed', attempts: 1, next_attempt_at_ms: null });
    clock.advance(100 * MIN);
    expect(await step()).toEqual([]);
    expect(receiver.requests).toHaveLength(1);
  });
});
