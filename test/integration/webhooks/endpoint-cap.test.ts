// The per-endpoint limits of the webhook dispatcher (docs/webhooks.md, "How many attempts at once"), on both engines:
// a receiver that holds every request open never has more of them at once than a responsive endpoint's limit (three
// quarters of the slots), and once its attempts are seen hanging no more than `perEndpoint` — whichever path leased
// them: the loop's claim, the claim chained to an attempt's log, or the hand-off of an async check's deliveries —
// while the other endpoint's deliveries all go out; once it answers, its waiting deliveries follow (each as one of
// its slots frees, without waiting for a poll), none lost.
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../../src-main/core/keys/keys-service';
import { processVerification } from '../../../src-main/core/verification/engine';
import { submitOnce } from '../../../src-main/core/verification/verification-service';
import { ManualClock } from '../../../src-main/core/clock';
import { ATTEMPT_LEASE_MS, claimDueAttempts, DeliveryHandOff, fanOut, insertFannedOutEvent, nextDueAt } from '../../../src-main/core/webhooks/deliveries';
import { startTestReceiver, type TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { createWebhook, updateWebhook } from '../../../src-main/core/webhooks/webhooks-service';
import { WebhookDispatcher } from '../../../src-main/jobs/webhook-dispatcher';
import type { Core } from '../../../src-main/service';
import type { SqlValue } from '../../../src-main/store/sql-port';
import { CountingDispatcher, dispatchCore, until } from './helpers';

const ASYNC_NG = { country: 'NG', accountNumber: '0123456789', bankCode: '058', mode: 'async' } as const;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/**
 * A receiver that holds every request open (no answer) until release(); after that it answers each at once. `open`
 * counts requests not answered yet, `maxOpen` the most at any moment.
 */
interface HangingReceiver {
  receiver: TestReceiver;
  readonly open: number;
  readonly maxOpen: number;
  /** The most requests open at once among those that arrived after release(). */
  readonly maxOpenAfterRelease: number;
  release(): void;
}

async function startHangingReceiver(): Promise<HangingReceiver> {
  let open = 0;
  let maxOpen = 0;
  let openAfter = 0;
  let maxOpenAfter = 0;
  let released = false;
  const waiting: (() => void)[] = [];
  const receiver = await startTestReceiver({
    responder: async () => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      const after = released;
      if (after) maxOpenAfter = Math.max(maxOpenAfter, ++openAfter);
      if (!released) await new Promise<void>((r) => waiting.push(r));
      // Answered on the next turn, so that requests sent together are open together.
      if (after) await new Promise((r) => setImmediate(r));
      open--;
      if (after) openAfter--;
      return { status: 200, body: 'ok' };
    },
  });
  const h: HangingReceiver = {
    receiver,
    get open() {
      return open;
    },
    get maxOpen() {
      return maxOpen;
    },
    get maxOpenAfterRelease() {
      return maxOpenAfter;
    },
    release() {
      released = true;
      for (const r of waiting.splice(0)) r();
    },
  };
  // Released before the receiver closes, so nothing stays open past the test.
  cleanup.push(async () => h.release());
  return h;
}

/** Outbox events of these types (one each), written and fanned out to the subscribed webhooks' deliveries. */
async function queueEvents(core: Core, organizationId: string, types: string[]): Promise<void> {
  const at = new Date(core.deps.clock.now() + 1).toISOString();
  await core.deps.sql.transaction(async (tx) => {
    for (const [i, type] of types.entries()) {
      await tx.run(
        `INSERT INTO outbox_events (id, organization_id, environment, event_type, verification_id, payload, created_at) VALUES (?, ?, 'sandbox', ?, ?, '{}', ?)`,
        [`evt_cap${i}`, organizationId, type, `ver_cap${i}`, at],
      );
    }
  });
  expect(await fanOut(core.deps)).toBe(types.length);
}

/**
 * A hanging endpoint (`stuck`, `nStuck` deliveries, due first) beside a healthy one (`fine`, `nFine`), webhooks of one
 * organization.
 */
async function hangingBesideHealthy(nStuck: number, nFine: number) {
  const hanging = await startHangingReceiver();
  const healthy = await startTestReceiver();
  const { core, org, scope } = await setup([hanging.receiver, healthy]);
  const stuck = await createWebhook(core.rt, scope, { url: `${hanging.receiver.url}/hook`, events: ['verification.completed'] });
  const fine = await createWebhook(core.rt, scope, { url: `${healthy.url}/hook`, events: ['verification.failed'] });
  await queueEvents(core, org.organizationId, [...Array<string>(nStuck).fill('verification.completed'), ...Array<string>(nFine).fill('verification.failed')]);
  await core.deps.sql.transaction((tx) => tx.run('UPDATE webhook_deliveries SET next_attempt_at_ms = next_attempt_at_ms - 1000 WHERE webhook_id = ?', [stuck.id]));
  return { hanging, healthy, core, stuck, fine };
}

function setup(receivers: TestReceiver[], extra: { leaseMs?: number; clock?: ManualClock; syncForTests?: () => Promise<void> } = {}) {
  return dispatchCore(receivers, cleanup, 'endpoint-cap@example.com', extra);
}

/** A hanging endpoint (one webhook) with `n` due deliveries, on a core set up with `extra`. */
async function hangingWithDue(n: number, extra: Parameters<typeof setup>[1] = {}) {
  const hanging = await startHangingReceiver();
  const { core, org, scope } = await setup([hanging.receiver], extra);
  const hook = await createWebhook(core.rt, scope, { url: `${hanging.receiver.url}/hook`, events: ['verification.completed'] });
  await queueEvents(core, org.organizationId, Array<string>(n).fill('verification.completed'));
  return { hanging, core, scope, hook };
}

/** The core's error lines (message and fields) and warning messages from now on, still logged as before. */
function captureLog(core: Core): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  const log = core.deps.log;
  const error = log.error.bind(log);
  const warn = log.warn.bind(log);
  log.error = ((o: unknown, msg?: string) => (errors.push(`${msg ?? ''} ${JSON.stringify(o)}`), error(o as object, msg))) as typeof log.error;
  log.warn = ((o: unknown, msg?: string) => (warnings.push(msg ?? ''), warn(o as object, msg))) as typeof log.warn;
  cleanup.push(async () => {
    log.error = error;
    log.warn = warn;
  });
  return { errors, warnings };
}


function startDispatcher(core: Core, o: ConstructorParameters<typeof WebhookDispatcher>[1]): CountingDispatcher {
  const d = new CountingDispatcher(core.rt, o);
  d.start();
  cleanup.push(() => d.stop());
  return d;
}

async function count(core: Core, sql: string, args: SqlValue[]): Promise<number> {
  return (await core.deps.sql.get<{ n: number }>(sql, args))!.n;
}

const succeeded = (core: Core, webhookId: string) => count(core, "SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND status = 'success'", [webhookId]);
const attemptsLogged = (core: Core, webhookId: string) =>
  count(core, 'SELECT count(*) AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = ?', [webhookId]);

describe('the per-endpoint limit of the webhook dispatcher', () => {
  it('a claim passes over the webhooks at their limit and takes at most the room of the others, oldest first', async () => {
    const receiver = await startTestReceiver();
    const { core, org, scope } = await setup([receiver]);
    const hooks: string[] = [];
    for (let i = 0; i < 3; i++) hooks.push((await createWebhook(core.rt, scope, { url: `${receiver.url}/hook?n=${i}`, events: ['verification.completed'] })).id);
    const [full, half, idle] = hooks as [string, string, string];
    await queueEvents(core, org.organizationId, Array<string>(10).fill('verification.completed'));
    // Ten due deliveries each: `full`'s the oldest, then `half`'s, then `idle`'s.
    const base = core.deps.clock.now() - 10_000;
    await core.deps.sql.transaction(async (tx) => {
      for (const [i, id] of hooks.entries()) await tx.run('UPDATE webhook_deliveries SET next_attempt_at_ms = ? WHERE webhook_id = ?', [base + i * 1000, id]);
    });
    // One of `idle`'s is held by the dispatcher already (leased, in flight); it is the oldest of `idle`'s.
    const [heldOne] = await core.deps.sql.all<{ id: string }>('SELECT id FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id LIMIT 1', [idle]);
    await core.deps.sql.transaction((tx) =>
      tx.run('UPDATE webhook_deliveries SET next_attempt_at_ms = ?, lease_until_ms = ? WHERE id = ?', [base + 1500, core.deps.clock.now() + 60_000, heldOne!.id]),
    );
    const unlease = () => core.deps.sql.transaction((tx) => tx.run('UPDATE webhook_deliveries SET lease_until_ms = NULL WHERE id <> ?', [heldOne!.id]));
    const byHook = (claimed: { d: { webhook_id: string } }[]) => hooks.map((h) => claimed.filter((c) => c.d.webhook_id === h).length);
    // `full` holds 8 of 8, `half` 6, `idle` 1.
    const cap = { perEndpoint: 8, held: new Map([[full, 8], [half, 6], [idle, 1]]) };

    // More slots than room: `half` gets its 2, `idle` its 7 (not the one it holds), `full` nothing.
    const wide = await claimDueAttempts(core.deps, 16, cap);
    expect(byHook(wide)).toEqual([0, 2, 7]);
    expect(wide.map((c) => c.d.id)).not.toContain(heldOne!.id);
    await unlease();
    // Fewer: the oldest of the webhooks below their limit.
    expect(byHook(await claimDueAttempts(core.deps, 2, cap))).toEqual([0, 2, 0]);
    await unlease();
    expect(byHook(await claimDueAttempts(core.deps, 5, cap))).toEqual([0, 2, 3]);
    await unlease();
    // The oldest due deliveries all of webhooks at their limit (more than the claim reads at first): webhook by webhook.
    expect(byHook(await claimDueAttempts(core.deps, 2, { ...cap, held: new Map([[full, 8], [half, 8], [idle, 1]]) }))).toEqual([0, 0, 2]);
    await unlease();
    // Without a limit: oldest first, whoever it is.
    expect(byHook(await claimDueAttempts(core.deps, 12))).toEqual([10, 2, 0]);
    await unlease();
    // Only one webhook's: from its oldest due delivery, whatever the others have due before it.
    expect(byHook(await claimDueAttempts(core.deps, 16, { ...cap, only: idle }))).toEqual([0, 0, 7]);
    await unlease();
    // The loop's next due time passes over the webhooks at their limit, and over leased deliveries.
    expect(await nextDueAt(core.deps)).toBe(base);
    expect(await nextDueAt(core.deps, [full])).toBe(base + 1000);
    // `idle`'s oldest is leased (in flight): its next is the one after.
    expect(await nextDueAt(core.deps, [full, half])).toBe(base + 2000);
    expect(await nextDueAt(core.deps, [full, half, idle])).toBeNull();
    expect(receiver.requests).toHaveLength(0);
  });

  it('a hanging endpoint holds at most its responsive limit, then perEndpoint, while every other delivery goes out; released, its deliveries follow', async () => {
    // Two endpoints of one organization: 40 deliveries for the hanging one, due before the healthy one's 20.
    const { hanging, healthy, core, stuck, fine } = await hangingBesideHealthy(40, 20);

    // 16 slots: a responsive endpoint may hold 12 (16 less a quarter), a slow one 4 (an attempt open for 200 ms makes
    // it slow), and no poll to speak of: only claims (the first pass, those chained to attempts' logs, the claims and
    // passes an attempt's end starts) move the deliveries.
    const slowAttemptMs = 200;
    const dispatcher = startDispatcher(core, { concurrency: 16, perEndpoint: 4, slowAttemptMs, pollMs: 600_000 });
    await until(async () => (await succeeded(core, fine.id)) === 20, 'every delivery of the healthy endpoint to succeed', 15_000);
    // Delivered while the hanging endpoint still held its requests: none of its attempts had ended (timed out).
    expect(await attemptsLogged(core, stuck.id)).toBe(0);
    // Its first requests went while it was responsive: 12, the other 4 slots left to the healthy endpoint.
    await until(() => hanging.open === 12, 'the hanging endpoint to hold 12 requests');
    expect(hanging.maxOpen).toBe(12);
    expect(healthy.requests).toHaveLength(20);
    // The 28 deliveries still due are not due for this loop while their endpoint is at its limit: it sleeps (its
    // poll is ten minutes) instead of going round. A bound on a count, not on a time: a slower machine makes fewer.
    const passes = dispatcher.passes;
    await new Promise((r) => setTimeout(r, 300));
    expect(dispatcher.passes - passes, 'passes while only capped deliveries were due').toBeLessThanOrEqual(2);
    expect(hanging.maxOpen).toBe(12);

    // Its attempts have been open for more than slowAttemptMs (the wait above): released, they end slow, and the
    // endpoint's deliveries go at most 4 at once from then on (slow for a minute).
    hanging.release();
    // Each of its deliveries goes as one of its slots frees (a lost wake-up would leave them for the ten-minute poll).
    await until(async () => (await succeeded(core, stuck.id)) === 40, 'every delivery of the released endpoint to succeed', 15_000).catch(async (err: unknown) => {
      const rows = await core.deps.sql.all('SELECT status, attempts, count(*) AS n, count(lease_until_ms) AS leased FROM webhook_deliveries WHERE webhook_id = ? GROUP BY status, attempts', [stuck.id]);
      throw new Error(`${String(err)}: its deliveries ${JSON.stringify(rows)}, ${hanging.receiver.requests.length} requests received, ${hanging.open} open`);
    });
    expect(hanging.maxOpen).toBe(12);
    expect(hanging.maxOpenAfterRelease).toBeGreaterThan(0);
    expect(hanging.maxOpenAfterRelease).toBeLessThanOrEqual(4);
    const ids = hanging.receiver.requests.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(40);
    expect(ids).toHaveLength(40);
    expect(await core.deps.sql.all('SELECT status, attempts, count(*) AS n FROM webhook_deliveries GROUP BY status, attempts')).toEqual([
      { status: 'success', attempts: 1, n: 60 },
    ]);
  });

  it('a responsive endpoint is not held to perEndpoint: a quick one gets up to its responsive limit at once', async () => {
    // A receiver that answers only once 12 requests are open together: with the limit of a slow endpoint (4) it
    // would never answer, and the deliveries would wait for the attempts' 10 s timeout.
    const gate = await startHangingReceiver();
    const { core, org, scope } = await setup([gate.receiver]);
    const hook = await createWebhook(core.rt, scope, { url: `${gate.receiver.url}/hook`, events: ['verification.completed'] });
    await queueEvents(core, org.organizationId, Array<string>(30).fill('verification.completed'));
    // slowAttemptMs out of reach: the endpoint stays responsive however slow the machine.
    startDispatcher(core, { concurrency: 16, perEndpoint: 4, slowAttemptMs: 600_000, pollMs: 600_000 });
    await until(() => gate.open === 12, '12 requests open at once');
    gate.release();
    await until(async () => (await succeeded(core, hook.id)) === 30, 'every delivery to succeed', 15_000);
    expect(gate.maxOpen).toBe(12);
    expect(gate.maxOpenAfterRelease).toBeLessThanOrEqual(12);
    expect(new Set(gate.receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(30);
  });

  it('an endpoint with room but no free slot is served through the one slot left, about one transaction per delivery', async () => {
    const { hanging, healthy, core, stuck, fine } = await hangingBesideHealthy(3, 20);
    // Every transaction the dispatcher (or anyone) asks for from now on.
    const sql = core.rt.deps.sql;
    const transaction = sql.transaction.bind(sql);
    let transactions = 0;
    sql.transaction = ((fn, options) => {
      transactions++;
      return transaction(fn, options);
    }) as typeof sql.transaction;
    cleanup.push(async () => {
      sql.transaction = transaction;
    });
    // 4 requests open at once, 3 per responsive endpoint: the hanging endpoint has 3 open (and 3 more leased, waiting),
    // and the healthy one, with room for 3, has one request at a time; its 20 deliveries go one after another (each
    // attempt's log leases the next, or one leased ahead opens as the last request ends).
    startDispatcher(core, { concurrency: 4, perEndpoint: 1, slowAttemptMs: 600_000, pollMs: 600_000 });
    await until(async () => (await succeeded(core, fine.id)) === 20, 'every delivery of the healthy endpoint to succeed', 15_000);
    expect(hanging.open).toBe(3);
    // About one transaction per delivery (its log, with the next lease): no claim that finds no free slot and asks
    // again at once.
    expect(transactions, 'transactions while 20 deliveries went through one slot').toBeLessThanOrEqual(3 * 20);
    hanging.release();
    await until(async () => (await succeeded(core, stuck.id)) === 3, 'the hanging endpoint\'s deliveries to succeed');
    expect(healthy.requests).toHaveLength(20);
  });

  it("an async check's deliveries are handed to the dispatcher only within their endpoint's leases; the rest are claimed as its slot frees", async () => {
    const hanging = await startHangingReceiver();
    const { core, org, scope } = await setup([hanging.receiver]);
    const hook = await createWebhook(core.rt, scope, { url: `${hanging.receiver.url}/hook`, events: ['verification.completed'] });
    // Slots to spare: 4 requests open at once, a responsive endpoint 3 of them (slowAttemptMs out of reach), a slow one
    // 1; twice as many leased (LEASED_PER_OPEN): 6 of a responsive endpoint.
    const dispatcher = startDispatcher(core, { concurrency: 4, perEndpoint: 1, slowAttemptMs: 600_000, pollMs: 600_000 });
    // Its first pass done (a claim holds the free slots while it runs, so a hand-off beside it would find none).
    await until(() => dispatcher.passes >= 1, 'the first pass');
    const leasedInside = await submitChecks(core, org.keys.sandbox.key, 7, (i) => (i < 3 ? until(() => hanging.open === i + 1, `delivery ${i + 1} to be sent`) : undefined));
    // The first six were leased as they were written (the endpoint held fewer than 6); the seventh was not. Only three
    // are open: the other three wait for one of them to end.
    expect(leasedInside).toEqual([1, 1, 1, 1, 1, 1, 0]);
    expect(hanging.open).toBe(3);
    expect(hanging.maxOpen).toBe(3);
    expect(await attemptsLogged(core, hook.id)).toBe(0);

    hanging.release();
    await until(async () => (await succeeded(core, hook.id)) === 7, 'all seven deliveries to succeed');
    expect(hanging.maxOpen).toBe(3);
    expect(hanging.receiver.requests).toHaveLength(7);
  });

  it("a slow endpoint's limit holds for the hand-off too", async () => {
    const hanging = await startHangingReceiver();
    const { core, org, scope } = await setup([hanging.receiver]);
    const hook = await createWebhook(core.rt, scope, { url: `${hanging.receiver.url}/hook`, events: ['verification.completed'] });
    const slowAttemptMs = 100;
    const dispatcher = startDispatcher(core, { concurrency: 4, perEndpoint: 1, slowAttemptMs, pollMs: 600_000 });
    await until(() => dispatcher.passes >= 1, 'the first pass');
    // The second check comes once the first delivery has been open for longer than slowAttemptMs: the endpoint is slow,
    // one request open and two leased (LEASED_PER_OPEN). The second is leased and waits; the third is not leased.
    const leasedInside = await submitChecks(core, org.keys.sandbox.key, 3, async (i) => {
      if (i > 0) return;
      await until(() => hanging.open === 1, 'the first delivery to be sent');
      await new Promise((r) => setTimeout(r, slowAttemptMs + 50));
    });
    expect(leasedInside).toEqual([1, 1, 0]);
    expect(hanging.open).toBe(1);
    expect(hanging.maxOpen).toBe(1);

    hanging.release();
    await until(async () => (await succeeded(core, hook.id)) === 3, 'the three deliveries to succeed');
    expect(hanging.maxOpen).toBe(1);
    expect(hanging.receiver.requests).toHaveLength(3);
  });

  it("a request that ends opens its webhook's next leased attempt at once, while its own log still waits for the store", async () => {
    // What holds the first attempt's log back: on SQLite the WAL's sync (its commit is written, not yet durable); on
    // PostgreSQL, whose commits are durable when they return, a transaction holding the delivery's row.
    let holdSyncs = false;
    let letSyncsGo!: () => void;
    const syncsHeld = new Promise<void>((r) => (letSyncsGo = r));
    const { hanging, core, hook } = await hangingWithDue(2, { syncForTests: async () => (holdSyncs ? syncsHeld : undefined) });
    cleanup.push(async () => letSyncsGo());
    // One request open at once and two attempts leased (LEASED_PER_OPEN): the first pass leases both, and the second
    // waits for the first request to end.
    startDispatcher(core, { concurrency: 1, perEndpoint: 1, slowAttemptMs: 600_000, pollMs: 600_000 });
    await until(() => hanging.open === 1, 'the first request');
    let letGo = (): void => undefined;
    let blocker: Promise<void> = Promise.resolve();
    if (core.deps.sql.engine === 'postgres') {
      const first = String(hanging.receiver.requests[0]!.headers['webhook-id']);
      let holding!: () => void;
      const held = new Promise<void>((r) => (holding = r));
      const gate = new Promise<void>((r) => (letGo = r));
      blocker = core.deps.sql.transaction(async (tx) => {
        await tx.get('SELECT id FROM webhook_deliveries WHERE id = ? FOR UPDATE', [first]);
        holding();
        await gate;
      });
      cleanup.push(async () => {
        letGo();
        await blocker.catch(() => undefined);
      });
      await held;
    } else {
      holdSyncs = true;
    }
    hanging.release();
    // The second request goes while the first attempt's log waits. (Before, the second lease was written with that log
    // and its request waited for the log's commit and sync.)
    await until(() => hanging.receiver.requests.length === 2, "the second request while the first attempt's log waits", 5_000);
    expect(new Set(hanging.receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(2);
    letGo();
    letSyncsGo();
    await blocker;
    await until(async () => (await succeeded(core, hook.id)) === 2, 'both deliveries to succeed');
    expect(hanging.maxOpen).toBe(1);
    expect(await core.deps.sql.all('SELECT status, attempts, count(*) AS n FROM webhook_deliveries GROUP BY status, attempts')).toEqual([{ status: 'success', attempts: 1, n: 2 }]);
  });

  it('an attempt whose lease ran low while it waited to open is not sent: its lease is given back, and each delivery is sent once', async () => {
    // The service's clock is moved by hand: both deliveries are leased by the first pass (one request open at once, two
    // leased); while the first request hangs, the clock passes the second one's lease. Sent then, it would go out
    // beside the claim that takes a delivery whose lease ended (here the one chained to the first attempt's log).
    const clock = new ManualClock();
    const { hanging, core, hook } = await hangingWithDue(2, { clock });
    startDispatcher(core, { concurrency: 1, perEndpoint: 1, slowAttemptMs: 600_000, pollMs: 50 });
    await until(() => hanging.open === 1, 'the first request');
    const leased = await core.deps.sql.all<{ id: string; lease_until_ms: number }>('SELECT id, lease_until_ms FROM webhook_deliveries WHERE lease_until_ms IS NOT NULL');
    expect(leased).toHaveLength(2);
    clock.advance(ATTEMPT_LEASE_MS + 1_000);
    hanging.release();
    await until(async () => (await succeeded(core, hook.id)) === 2, 'both deliveries to succeed');
    const ids = hanging.receiver.requests.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(await core.deps.sql.all('SELECT status, attempts, count(*) AS n FROM webhook_deliveries GROUP BY status, attempts')).toEqual([{ status: 'success', attempts: 1, n: 2 }]);
    expect(await count(core, 'SELECT count(*) AS n FROM webhook_attempts WHERE attempt IS NULL', [])).toBe(0);
  });

  it('an attempt that waited to open reads its webhook again: one paused meanwhile gets nothing', async () => {
    const clock = new ManualClock();
    const { hanging, core, scope, hook } = await hangingWithDue(2, { clock });
    const dispatcher = startDispatcher(core, { concurrency: 1, perEndpoint: 1, slowAttemptMs: 600_000, pollMs: 50 });
    await until(() => hanging.open === 1, 'the first request');
    // Paused while the second attempt waits (its claim read the webhook active), a few seconds later.
    await updateWebhook(core.rt, scope, hook.id, { status: 'inactive' });
    clock.advance(5_000);
    hanging.release();
    // The second attempt opened as the first request ended, before the first attempt's log; stop() waits for it.
    await until(async () => (await attemptsLogged(core, hook.id)) === 1, "the first attempt's log");
    await dispatcher.stop();
    expect(hanging.receiver.requests).toHaveLength(1);
    // Both dropped by the pause; the first one's request, already open, is logged without counting.
    expect(await core.deps.sql.all('SELECT status, dropped_reason, attempts FROM webhook_deliveries')).toEqual([
      { status: 'failed', dropped_reason: 'webhook_paused', attempts: 0 },
      { status: 'failed', dropped_reason: 'webhook_paused', attempts: 0 },
    ]);
    expect(await core.deps.sql.all('SELECT attempt FROM webhook_attempts')).toEqual([{ attempt: null }]);
  });

  it('an attempt that waited and cannot read its delivery again is not sent: its lease is given back and it is claimed again', async () => {
    const { hanging, core, hook } = await hangingWithDue(2);
    const { errors, warnings } = captureLog(core);
    // The second attempt's read of its delivery fails once (a transient error of the store).
    const sql = core.rt.deps.sql;
    const get = sql.get.bind(sql);
    let failures = 0;
    sql.get = ((text: string, params?: SqlValue[]) => {
      if (failures === 0 && /FROM webhook_deliveries d LEFT JOIN webhooks w ON w\.id = d\.webhook_id WHERE d\.id = \?/.test(text)) {
        failures++;
        return Promise.reject(new Error('the store is briefly unavailable'));
      }
      return get(text, params);
    }) as typeof sql.get;
    cleanup.push(async () => {
      sql.get = get;
    });
    startDispatcher(core, { concurrency: 1, perEndpoint: 1, slowAttemptMs: 600_000, pollMs: 50 });
    await until(() => hanging.open === 1, 'the first request');
    hanging.release();
    // Claimed again at once, not when its lease (a minute) runs out.
    await until(async () => (await succeeded(core, hook.id)) === 2, 'both deliveries to succeed', 10_000);
    expect(failures).toBe(1);
    expect(warnings).toContain('webhook attempt could not read its delivery again: claimed again');
    expect(errors).toEqual([]);
    const ids = hanging.receiver.requests.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it('stop(): the attempts still waiting to open are not sent, and give their leases back', async () => {
    const { hanging, core } = await hangingWithDue(3);
    const dispatcher = new WebhookDispatcher(core.rt, { concurrency: 1, perEndpoint: 1, slowAttemptMs: 600_000, pollMs: 600_000 });
    dispatcher.start();
    await until(() => hanging.open === 1, 'the first request');
    // One open, one leased and waiting, one not leased (two leased at most).
    expect(await count(core, 'SELECT count(*) AS n FROM webhook_deliveries WHERE lease_until_ms IS NOT NULL', [])).toBe(2);
    const stopped = dispatcher.stop();
    hanging.release();
    await stopped;
    expect(hanging.receiver.requests).toHaveLength(1);
    // The one sent is logged; the one that waited is due again at once, not when its lease would have run out.
    expect(await core.deps.sql.all('SELECT status, attempts, count(lease_until_ms) AS leased, count(*) AS n FROM webhook_deliveries GROUP BY status, attempts ORDER BY status')).toEqual([
      { status: 'pending', attempts: 0, leased: 0, n: 2 },
      { status: 'success', attempts: 1, leased: 0, n: 1 },
    ]);
  });

  it('a hand-off whose transaction is durable only after stop() has finished sends nothing and gives its leases back', async () => {
    // The race of a shutdown: an async check's completion leases its delivery for the running dispatcher, the
    // dispatcher stops (the service stops its loops before its queue's worker), then the completion's transaction is
    // durable and hands the delivery over. Not sent; its lease ends at once, so another instance (or the next start)
    // need not wait it out.
    const receiver = await startTestReceiver();
    const { core, org, scope } = await setup([receiver]);
    const hook = await createWebhook(core.rt, scope, { url: `${receiver.url}/hook`, events: ['verification.completed'] });
    const dispatcher = startDispatcher(core, { concurrency: 4, pollMs: 600_000 });
    await until(() => dispatcher.passes >= 1, 'the first pass');
    const handOff = new DeliveryHandOff(core.deps);
    const nowMs = core.deps.clock.now();
    const event = { id: 'evt_late', organization_id: org.organizationId, environment: 'sandbox', event_type: 'verification.completed', verification_id: 'ver_late', payload: '{}', created_at: new Date(nowMs).toISOString() };
    const made = await core.deps.sql.transaction((tx) => insertFannedOutEvent(tx, event, nowMs, handOff));
    expect(made).toMatchObject({ made: 1, leased: 1 });
    await dispatcher.stop();
    handOff.start();
    await until(async () => (await count(core, 'SELECT count(*) AS n FROM webhook_deliveries WHERE lease_until_ms IS NOT NULL', [])) === 0, 'the lease to be given back');
    expect(await core.deps.sql.all('SELECT webhook_id, status, attempts FROM webhook_deliveries')).toEqual([{ webhook_id: hook.id, status: 'pending', attempts: 0 }]);
    expect(receiver.requests).toHaveLength(0);
  });

  it('a slot a hand-off gives back from inside its transaction refills its webhook outside that transaction', async () => {
    // The hand-off of an async check's deliveries gives a slot back from inside the transaction writing them (a delivery
    // that already existed: its lease unused; or the body run again). A webhook with deliveries waiting for one of its
    // slots then claims them at once (refill); the attempts that claim starts commit their logs in transactions of their
    // own, which the store refuses inside another's async context: once, under load, the attempt crashed and its
    // delivery stayed leased (test/integration/pg/instances.test.ts timed out). The waiting is set directly: the
    // states that lead to it take a race between an attempt's end and a hand-off to reach.
    const receiver = await startTestReceiver();
    const { core, org, scope } = await setup([receiver]);
    const hook = await createWebhook(core.rt, scope, { url: `${receiver.url}/hook`, events: ['verification.completed'] });
    await queueEvents(core, org.organizationId, ['verification.completed']);
    // Not due when the loop first looks, so it sleeps (its poll is ten minutes) and leaves it to the refill.
    const later = core.deps.clock.now() + 3_600_000;
    await core.deps.sql.transaction((tx) => tx.run('UPDATE webhook_deliveries SET next_attempt_at_ms = ? WHERE webhook_id = ?', [later, hook.id]));
    const { errors } = captureLog(core);
    const dispatcher = startDispatcher(core, { concurrency: 4, pollMs: 600_000 });
    await until(() => dispatcher.passes >= 1, 'the first pass');
    await core.deps.sql.transaction((tx) => tx.run('UPDATE webhook_deliveries SET next_attempt_at_ms = ? WHERE webhook_id = ?', [core.deps.clock.now() - 1, hook.id]));
    (dispatcher as unknown as { capWaiting: Set<string> }).capWaiting.add(hook.id);

    await core.deps.sql.transaction(async () => {
      const handOff = new DeliveryHandOff(core.deps);
      expect(handOff.lease(core.deps.clock.now(), hook.id)).toEqual(expect.any(Number));
      handOff.unlease(hook.id);
    });
    await until(async () => (await succeeded(core, hook.id)) === 1, 'the waiting delivery to be claimed by the refill and delivered', 10_000);
    expect(receiver.requests).toHaveLength(1);
    expect(errors).toEqual([]);
  });
});

/**
 * Submits `n` async checks and completes each (as the queue's job would), recording whether its delivery was leased
 * in the transaction that wrote it (1) or left for a claim (0); `after(i)` runs after the i-th.
 */
async function submitChecks(core: Core, apiKey: string, n: number, after: (i: number) => Promise<unknown> | undefined): Promise<number[]> {
  const principal = await authenticateApiKey(core.deps, apiKey);
  const leasedInside: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await submitOnce(core.rt.verification, principal, 'account', ASYNC_NG);
    const id = (JSON.parse(res.body) as { id: string }).id;
    await processVerification(core.rt.verification, id, (write) => async (tx) => {
      await write(tx);
      const row = await tx.get<{ leased: number }>(
        'SELECT CASE WHEN lease_until_ms IS NULL THEN 0 ELSE 1 END AS leased FROM webhook_deliveries WHERE verification_id = ?',
        [id],
      );
      leasedInside.push(row!.leased);
    });
    await after(i);
  }
  return leasedInside;
}
