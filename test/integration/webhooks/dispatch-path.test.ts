// The pipeline's CPU cuts (docs/performance.md, "The async pipeline's statements") keep every rule, on both engines:
// an async check's event is written with its deliveries in the transaction of its result (subscribers, event types
// and environments as the fan-out chose them), leased for this process's dispatcher while it has a free slot and
// started by it once that transaction is durable, the others claimed as before; a claim returns what its attempt needs, and an attempt made from
// those rows counts only while the delivery is still as claimed; a completion whose record changed meanwhile reads
// it again instead of overwriting it.
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../../src-main/core/keys/keys-service';
import type { Principal } from '../../../src-main/core/principal';
import { processVerification, type VerificationRuntime } from '../../../src-main/core/verification/engine';
import type { ProviderAnswer } from '../../../src-main/core/verification/types';
import { submitOnce } from '../../../src-main/core/verification/verification-service';
import { claimDueAttempts, runScheduledAttempt, setForward } from '../../../src-main/core/webhooks/deliveries';
import { startTestReceiver, type TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { createWebhook, updateWebhook, type Scope } from '../../../src-main/core/webhooks/webhooks-service';
import { type Core } from '../../../src-main/service';
import { CountingDispatcher, dispatchCore } from './helpers';

const ASYNC_NG = { country: 'NG', accountNumber: '0123456789', bankCode: '058', mode: 'async' } as const;

interface Setup {
  core: Core;
  receiver: TestReceiver;
  scope: Scope & { kind: 'console'; role: 'OWNER' };
  principal: Principal;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(): Promise<Setup> {
  const receiver = await startTestReceiver();
  const { core, org, scope } = await dispatchCore([receiver], cleanup, 'dispatch@example.com');
  const principal = await authenticateApiKey(core.deps, org.keys.sandbox.key);
  return { core, receiver, scope, principal };
}

async function submitAsync(s: Setup): Promise<string> {
  const res = await submitOnce(s.core.rt.verification, s.principal, 'account', ASYNC_NG);
  return (JSON.parse(res.body) as { id: string }).id;
}

describe('an async check and its webhook deliveries', () => {
  it('commits its event already fanned out, with a delivery for each subscribed active webhook of its environment', async () => {
    const s = await setup();
    const { core, receiver, scope } = s;
    const url = `${receiver.url}/hook`;
    const both = await createWebhook(core.rt, scope, { url, events: ['verification.completed', 'verification.failed'] });
    const completed = await createWebhook(core.rt, scope, { url, events: ['verification.completed'] });
    await createWebhook(core.rt, scope, { url, events: ['verification.failed'] });
    const paused = await createWebhook(core.rt, scope, { url, events: ['verification.completed'] });
    await updateWebhook(core.rt, scope, paused.id, { status: 'inactive' });
    await createWebhook(core.rt, { ...scope, environment: 'live' }, { url, events: ['verification.completed'] });
    const id = await submitAsync(s);

    const inside: { hooks: string[]; dispatched: boolean; status: string }[] = [];
    await processVerification(core.rt.verification, id, (write) => async (tx) => {
      await write(tx);
      const rows = await tx.all<{ webhook_id: string }>('SELECT webhook_id FROM webhook_deliveries WHERE verification_id = ?', [id]);
      const event = await tx.get<{ dispatched_at: string | null }>('SELECT dispatched_at FROM outbox_events WHERE verification_id = ?', [id]);
      const rec = await tx.get<{ status: string }>('SELECT status FROM verifications WHERE id = ?', [id]);
      inside.push({ hooks: rows.map((r) => r.webhook_id).sort(), dispatched: event?.dispatched_at != null, status: rec!.status });
    });
    // In the transaction that stored the result: the event, dispatched, and its deliveries beside it.
    expect(inside).toEqual([{ hooks: [both.id, completed.id].sort(), dispatched: true, status: 'success' }]);
    expect(await core.deps.sql.get('SELECT count(*) AS n FROM outbox_events WHERE dispatched_at IS NULL')).toEqual({ n: 0 });

    // They are claimed and delivered like any other, carrying the event's bytes.
    const claimed = await claimDueAttempts(core.deps, 10);
    expect(claimed.map((c) => c.hook?.id).sort()).toEqual([both.id, completed.id].sort());
    for (const c of claimed) await runScheduledAttempt(core.rt, c.d.id, 'scheduled', undefined, c);
    const payload = (await core.deps.sql.get<{ payload: string }>('SELECT payload FROM outbox_events WHERE verification_id = ?', [id]))!.payload;
    expect(receiver.requests.map((r) => r.rawBody.toString('utf8'))).toEqual([payload, payload]);
    expect(await core.deps.sql.all("SELECT status, attempts FROM webhook_deliveries WHERE verification_id = ? ORDER BY id", [id])).toEqual([
      { status: 'success', attempts: 1 },
      { status: 'success', attempts: 1 },
    ]);
  });

  it('a claim returns the delivery, its webhook and the forward target; an attempt from stale claimed rows is logged without counting', async () => {
    const s = await setup();
    const { core, receiver, scope } = s;
    const hook = await createWebhook(core.rt, scope, { url: `${receiver.url}/hook`, events: ['verification.completed'] });
    const forward = await setForward(core.rt, scope.organizationId, `http://localhost:${receiver.port}/copy`);
    const id = await submitAsync(s);
    await processVerification(core.rt.verification, id);

    const [claimed, ...others] = await claimDueAttempts(core.deps, 10);
    expect(others).toEqual([]);
    const row = await core.deps.sql.get<Record<string, unknown>>(
      'SELECT id, webhook_id, organization_id, event_type, payload, status, attempts FROM webhook_deliveries WHERE verification_id = ?',
      [id],
    );
    expect(claimed!.d).toEqual(row);
    const w = await core.deps.sql.get<Record<string, unknown>>(
      'SELECT id, url, status, deleted_at, secret, previous_secret, previous_secret_expires_at_ms FROM webhooks WHERE id = ?',
      [hook.id],
    );
    expect(claimed!.hook).toEqual({ ...w, forward: forward.url });
    // Leased by the claim: not claimed again while the lease lasts.
    expect(await claimDueAttempts(core.deps, 10)).toEqual([]);

    await runScheduledAttempt(core.rt, claimed!.d.id, 'scheduled', undefined, claimed);
    // A second run from the same rows (a stale holder: the delivery changed since they were read) sends, but the
    // delivery keeps the count and outcome of the first; the attempt is in the log, uncounted.
    await runScheduledAttempt(core.rt, claimed!.d.id, 'scheduled', undefined, claimed);
    const hooked = receiver.requests.filter((r) => r.path === '/hook');
    expect(hooked.map((r) => r.headers['webhook-id'])).toEqual([claimed!.d.id, claimed!.d.id]);
    expect(receiver.requests.filter((r) => r.path === '/copy')).toHaveLength(2);
    expect(await core.deps.sql.get('SELECT status, attempts, next_attempt_at_ms FROM webhook_deliveries WHERE id = ?', [claimed!.d.id])).toEqual({
      status: 'success',
      attempts: 1,
      next_attempt_at_ms: null,
    });
    expect(await core.deps.sql.all("SELECT attempt, kind FROM webhook_attempts WHERE delivery_id = ? AND kind <> 'forward' ORDER BY seq", [claimed!.d.id])).toEqual([
      { attempt: 1, kind: 'scheduled' },
      { attempt: null, kind: 'scheduled' },
    ]);
  });

  it('a completion whose record changed while its provider answered reads it again: one result, one event, one delivery', async () => {
    const s = await setup();
    const { core, receiver, scope } = s;
    await createWebhook(core.rt, scope, { url: `${receiver.url}/hook`, events: ['verification.completed', 'verification.failed'] });
    const id = await submitAsync(s);
    let answer!: (a: ProviderAnswer) => void;
    const slow: VerificationRuntime = { ...core.rt.verification, providers: { ask: () => new Promise<ProviderAnswer>((r) => (answer = r)) } };
    const late = processVerification(slow, id);
    while (!answer) await new Promise((r) => setTimeout(r, 5));
    // Meanwhile another run completes it (the queue is at-least-once).
    await processVerification(core.rt.verification, id);
    const stored = (await core.deps.sql.get<{ result: string }>('SELECT result FROM verifications WHERE id = ?', [id]))!.result;
    answer({ outcome: 'error', errorCode: 'VERIFICATION_ERROR' });
    await late;
    expect((await core.deps.sql.get<{ result: string }>('SELECT result FROM verifications WHERE id = ?', [id]))!.result).toBe(stored);
    expect((JSON.parse(stored) as { status: string }).status).toBe('success');
    expect(await core.deps.sql.get('SELECT count(*) AS n FROM outbox_events WHERE verification_id = ?', [id])).toEqual({ n: 1 });
    expect(await core.deps.sql.all('SELECT event_type FROM webhook_deliveries WHERE verification_id = ?', [id])).toEqual([{ event_type: 'verification.completed' }]);
  });

  it("leases an event's deliveries for the running dispatcher's free slots as they are written and starts them after the commit; the rest are claimed", async () => {
    const s = await setup();
    const { core, receiver, scope } = s;
    const url = `${receiver.url}/hook`;
    const hooks: { id: string }[] = [];
    for (const n of [1, 2, 3]) hooks.push(await createWebhook(core.rt, scope, { url: `${url}?n=${n}`, events: ['verification.completed'] }));
    // One request open at once and two leased (LEASED_PER_OPEN), and no poll to speak of: the handed deliveries start
    // without a pass, one after the other; the third waits for the signal's.
    const dispatcher = new CountingDispatcher(core.rt, { concurrency: 1, pollMs: 600_000 });
    dispatcher.start();
    cleanup.push(() => dispatcher.stop());
    // Its first pass done (a claim holds the free slots while it runs, so a hand-off beside it would find none).
    await until(async () => dispatcher.passes >= 1);
    const id = await submitAsync(s);
    let inside: { webhook_id: string; leased: number }[] = [];
    let sentBeforeDurable = -1;
    await processVerification(core.rt.verification, id, (write) => async (tx) => {
      await write(tx);
      inside = await tx.all<{ webhook_id: string; leased: number }>(
        'SELECT webhook_id, CASE WHEN lease_until_ms IS NULL THEN 0 ELSE 1 END AS leased FROM webhook_deliveries WHERE verification_id = ?',
        [id],
      );
      sentBeforeDurable = receiver.requests.length;
    });
    // Written in the result's transaction: two leased for the free leases, one left to be claimed.
    expect(inside.map((r) => r.leased).sort()).toEqual([0, 1, 1]);
    expect(sentBeforeDurable).toBe(0);
    await receiver.waitFor(3);
    const path = (webhookId: string) => `/hook?n=${hooks.findIndex((h) => h.id === webhookId) + 1}`;
    // The handed ones went first (the other needed a lease they held).
    expect(receiver.requests.slice(0, 2).map((r) => r.path).sort()).toEqual(inside.filter((r) => r.leased === 1).map((r) => path(r.webhook_id)).sort());
    expect(receiver.requests[2]!.path).toBe(path(inside.find((r) => r.leased === 0)!.webhook_id));
    await until(async () => (await core.deps.sql.all("SELECT id FROM webhook_deliveries WHERE verification_id = ? AND status = 'success'", [id])).length === 3);
    expect(await core.deps.sql.all('SELECT webhook_id, attempts, lease_until_ms FROM webhook_deliveries WHERE verification_id = ? ORDER BY webhook_id', [id])).toEqual(
      hooks.map((h) => h.id).sort().map((w) => ({ webhook_id: w, attempts: 1, lease_until_ms: null })),
    );
  });
});


/** Polls `cond` (a bound on a hang, not a timing assertion). */
async function until(cond: () => Promise<boolean>, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}
