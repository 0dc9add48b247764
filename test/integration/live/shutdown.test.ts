// Our own cancellation (interface §7.3 VERIFICATION_CANCELLED) on a real service stop, against the simulator's
// hung (`timeout`) and slow (`latency`) upstreams: calls in flight get a bounded drain, then are aborted. A sync
// request answers status error VERIFICATION_CANCELLED, reversed exactly once; an async job is NOT finalised — it
// stays queued and, after a restart on the same data folder, asks again with the same upstream idempotency key.
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VERIFICATION_ERRORS } from '../../../src-shared/errors';
import { liveProviders } from '../../../src-main/providers/registry';
import { api, newKey, openStoppedStore, rawRequest, startTestService, type TestService } from '../../helpers/harness';
import { NG, PRICE, setProvider, startLive, verify, type LiveEnv } from './live-helpers';

let env: LiveEnv;
let restarted: TestService | null = null;
beforeEach(async () => {
  env = await startLive();
  // Long upstream limits: only the shutdown may end these calls.
  await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'], timeoutMs: 30_000, deadlineMs: 60_000, retries: 1 });
  liveProviders(env.ts.service.rt).shutdownDrainMs = 300;
});
afterEach(async () => {
  if (restarted) await restarted.stop();
  restarted = null;
  await env.sim.stop();
  rmSync(env.ts.dataDir, { recursive: true, force: true });
});

async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The same service again on the same files (the live key of the first start stays valid). */
async function restart(): Promise<TestService> {
  restarted = await startTestService({ dataDir: env.ts.dataDir, bootstrap: false });
  return restarted;
}

/** A sync check over its own connection, closed after the answer. */
async function verifySyncClosing(): Promise<Record<string, any>> {
  const r = await rawRequest(env.ts.port, 'POST', '/api/v1/verify/account', {
    'x-api-key': env.ts.liveKey,
    'idempotency-key': newKey(),
    'content-type': 'application/json',
    connection: 'close',
  }, JSON.stringify(NG()));
  expect(r.status, r.text).toBe(200);
  return r.body as Record<string, any>;
}

async function usage(ts: TestService, id: string) {
  const r = await api(ts.url, 'GET', '/client/usage?limit=100', { key: env.ts.liveKey });
  expect(r.status).toBe(200);
  const rows = (r.body.data as { verificationId: string; kind: string; amount: number }[]).filter((u) => u.verificationId === id);
  return { charges: rows.filter((u) => u.kind === 'charge').map((u) => u.amount), reversals: rows.filter((u) => u.kind === 'reversal').map((u) => u.amount) };
}

describe('service stop with live upstream calls in flight', () => {
  it('sync: after the drain the call is aborted → status error VERIFICATION_CANCELLED, reversed exactly once', async () => {
    env.sim.setFault('timeout');
    const pending = verifySyncClosing();
    await until(() => env.sim.requests().length === 1, 'the upstream request');
    await env.ts.stop({ keepDir: true });
    const rec = await pending;
    expect(rec['status']).toBe('error');
    expect(rec['error']).toEqual({ code: 'VERIFICATION_CANCELLED', message: VERIFICATION_ERRORS.VERIFICATION_CANCELLED.message });
    expect(rec['charge']).toEqual({ amount: PRICE, currency: 'USD', status: 'reversed' });
    // Cancelled, not retried: one upstream request.
    expect(env.sim.requests()).toHaveLength(1);

    const ts = await restart();
    expect(await usage(ts, rec['id'])).toEqual({ charges: [-PRICE], reversals: [PRICE] });
    const stored = await api(ts.url, 'GET', `/verify/${rec['id']}`, { key: env.ts.liveKey });
    expect(stored.body).toMatchObject({ status: 'error', error: { code: 'VERIFICATION_CANCELLED' }, charge: { status: 'reversed' } });
  });

  it('sync with a keep-alive client: the answer says Connection: close, so the stop does not wait on the idle connection', async () => {
    env.sim.setFault('timeout');
    // fetch keeps its connection alive; the stop must still end with the drain, not the keep-alive timeout.
    const pending = api(env.ts.url, 'POST', '/verify/account', { key: env.ts.liveKey, idem: newKey(), body: NG() });
    await until(() => env.sim.requests().length === 1, 'the upstream request');
    await env.ts.stop({ keepDir: true });
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.headers.get('connection')).toBe('close');
    expect(r.body).toMatchObject({ status: 'error', error: { code: 'VERIFICATION_CANCELLED' }, charge: { status: 'reversed' } });
  });

  it('sync: a call that answers within the drain is not cancelled', async () => {
    liveProviders(env.ts.service.rt).shutdownDrainMs = 20_000;
    env.sim.setFault('latency=500');
    const pending = verifySyncClosing();
    await until(() => env.sim.requests().length === 1, 'the upstream request');
    await env.ts.stop({ keepDir: true });
    const rec = await pending;
    expect(rec).toMatchObject({ status: 'success', charge: { status: 'charged' } });
  });

  it('async: the attempt is aborted but not finalised; the job stays queued and completes after restart, the check ran once', async () => {
    env.sim.setFault('timeout');
    const pending = await verify(env, 'account', { ...NG(), mode: 'async' });
    const id = pending['id'] as string;
    await until(() => env.sim.requests().some((r) => r.idempotencyKey === id), 'the upstream request');
    await env.ts.stop({ keepDir: true });

    // Between the two runs: still pending, the job queued again (not done, not dead), nothing reversed.
    const db = await openStoppedStore(env.ts);
    try {
      expect(await db.get('SELECT status, charge_status FROM verifications WHERE id = ?', [id])).toEqual({ status: 'pending', charge_status: 'charged' });
      const job = (await db.get<{ state: string; last_error: string }>('SELECT state, last_error FROM jobs WHERE id = ?', [`job_${id}`]))!;
      expect(job.state).toBe('queued');
      expect(job.last_error).toMatch(/cancelled/);
      expect(await db.get('SELECT count(*) AS n FROM outbox_events WHERE verification_id = ?', [id])).toEqual({ n: 0 });
    } finally {
      await db.close();
    }

    env.sim.setFault(null);
    const ts = await restart();
    let rec: Record<string, any> = pending;
    await until(async () => {
      rec = (await api(ts.url, 'GET', `/verify/${id}`, { key: env.ts.liveKey })).body as Record<string, any>;
      return rec['status'] !== 'pending';
    }, 'the job to complete after restart');
    // The `timeout` fault ran the check upstream; the retry carries the same key and is answered from the replay.
    expect(rec).toMatchObject({ status: 'success', accountName: 'Adaeze Nwosu', charge: { status: 'charged' } });
    const reqs = env.sim.requests().filter((r) => r.idempotencyKey === id);
    expect(reqs.length).toBe(2);
    expect(reqs[1]!.replayed).toBe(true);
    expect(env.sim.executions(id)).toBe(1);
    expect(await usage(ts, id)).toEqual({ charges: [-PRICE], reversals: [] });
  });

  it('once stopping, no new upstream call starts', async () => {
    const reg = liveProviders(env.ts.service.rt);
    await reg.shutdown();
    const rec = await verify(env, 'account', NG());
    expect(rec['error'].code).toBe('VERIFICATION_CANCELLED');
    expect(env.sim.requests()).toHaveLength(0);
    await env.ts.stop({ keepDir: true });
  });
});
