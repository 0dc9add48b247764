// Circuit breaker, concurrency limit, the refusal of an unrouted live check, and the late-answer gap of the sync
// guard — against the simulator over real sockets, with a ManualClock where the breaker's cool-down or the 5-minute
// guard must pass (no timed assertions).
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import { SYNC_GUARD_MS } from '../../../src-main/core/verification/engine';
import { genericAdapter } from '../../../src-main/providers/live/generic-adapter';
import { LiveProvider } from '../../../src-main/providers/live/live-provider';
import { liveProviders } from '../../../src-main/providers/registry';
import { VERIFICATION_ERRORS } from '../../../src-shared/errors';
import { api, newKey } from '../../helpers/harness';
import { BALANCE, balance, expectBilling, NG, setProvider, startLive, usageOf, verify, type LiveEnv } from './live-helpers';

let env: LiveEnv;
afterEach(async () => env.stop());

const circuit = async (id = 'sim') => {
  const reg = liveProviders(env.ts.service.rt);
  return reg.view((await reg.config.get(id))!).state;
};

describe('circuit breaker', () => {
  it('opens after N consecutive failures, answers UNAVAILABLE without calling, probes after the cool-down, recovers', async () => {
    const clock = new ManualClock(Date.now());
    env = await startLive({ clock });
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'], retries: 0, breakerThreshold: 2, breakerCooldownMs: 10_000 });
    env.sim.setFault('status=503');
    for (let i = 0; i < 2; i++) expect((await verify(env, 'account', NG()))['error'].code).toBe('VERIFICATION_UNAVAILABLE');
    expect(await circuit()).toMatchObject({ circuit: 'open', consecutiveFailures: 2, lastError: 'upstream answered HTTP 503' });

    env.sim.setFault(null);
    const calls = env.sim.requests().length;
    const refused = await verify(env, 'account', NG());
    expect(refused['error']).toEqual({ code: 'VERIFICATION_UNAVAILABLE', message: VERIFICATION_ERRORS.VERIFICATION_UNAVAILABLE.message });
    expect(env.sim.requests().length).toBe(calls);
    await expectBilling(env, refused['id'], true);

    // A failed probe re-opens at once.
    clock.advance(10_000);
    expect((await circuit()).circuit).toBe('half-open');
    env.sim.setFault('status=503', 1);
    expect((await verify(env, 'account', NG()))['error'].code).toBe('VERIFICATION_UNAVAILABLE');
    expect((await circuit()).circuit).toBe('open');
    expect(env.sim.requests().length).toBe(calls + 1);

    clock.advance(10_000);
    const probe = await verify(env, 'account', NG());
    expect(probe['status']).toBe('success');
    expect(await circuit()).toMatchObject({ circuit: 'closed', consecutiveFailures: 0 });
    expect((await verify(env, 'account', NG('1234567890')))['status']).toBe('success');
  });
});

describe('concurrency limit', () => {
  it('beyond max concurrency + queue, checks answer RATE_LIMITED at once and are reversed; the others complete', async () => {
    env = await startLive();
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'], maxConcurrency: 1, maxQueue: 1, timeoutMs: 5000, deadlineMs: 10_000 });
    env.sim.setFault('latency=600');
    const results = await Promise.all([0, 1, 2, 3].map((i) => verify(env, 'account', NG(`012345678${i}`))));
    const codes = results.map((r) => (r['status'] === 'success' ? 'ok' : r['error'].code)).sort();
    expect(codes).toEqual(['VERIFICATION_RATE_LIMITED', 'VERIFICATION_RATE_LIMITED', 'ok', 'ok']);
    for (const r of results) await expectBilling(env, r['id'], r['status'] !== 'success');
    expect(env.sim.requests()).toHaveLength(2);
  });
});

/** Polls (not a timed assertion): resolves once `cond` holds, fails the test if it never does. */
async function until(cond: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the condition never held');
}

describe('a provider saved while busy', () => {
  it('checks in flight and queued on the old runtime finish there (success), not UNAVAILABLE; the new one serves the next', async () => {
    env = await startLive();
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'], maxConcurrency: 1, maxQueue: 5, timeoutMs: 5000, deadlineMs: 10_000 });
    env.sim.setFault('latency=800', 1);
    const pending = Promise.all([0, 1, 2].map((i) => verify(env, 'account', NG(`012345678${i}`))));
    await until(async () => {
      const s = await circuit();
      return s.inFlight === 1 && s.queued === 2;
    });
    // Saved while one check is in flight and two wait for its slot; the probe builds the new runtime at once.
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'], maxConcurrency: 2, maxQueue: 5, timeoutMs: 4000, deadlineMs: 10_000 });
    expect((await liveProviders(env.ts.service.rt).probe('sim')).ok).toBe(true);
    const results = await pending;
    expect(results.map((r) => r['status'])).toEqual(['success', 'success', 'success']);
    for (const r of results) await expectBilling(env, r['id'], false);
    expect((await verify(env, 'account', NG('0123456783')))['status']).toBe('success');
  });

  it('a check that got the runtime just before it was replaced (an await away from asking) still finishes on it', async () => {
    env = await startLive();
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'] });
    const resolved = (await liveProviders(env.ts.service.rt).config.resolveById('sim'))!;
    const old = new LiveProvider(resolved, genericAdapter, () => Date.now(), env.ts.service.deps.log);
    const retired = old.retire();
    await Promise.resolve(); // the registry's `await runtimeFor(p)` between getting the runtime and asking it
    expect(await old.ask('account', NG(), 'ver_race_1')).toMatchObject({ outcome: 'success' });
    await retired;
  });
});

describe('routing', () => {
  it('a live check with no configured provider is refused before it is charged (403 SERVICE_NOT_ENABLED, CONTACT_ADMIN)', async () => {
    env = await startLive();
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:NG'] });
    const r = await api(env.ts.url, 'POST', '/verify/account', { key: env.ts.liveKey, idem: newKey(), body: { country: 'GB', accountNumber: '55779911', bankCode: '200000', accountName: 'Jane Smith' } });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'SERVICE_NOT_ENABLED', action: { type: 'CONTACT_ADMIN' } });
    expect(r.body.message).toContain('account:GB');
    expect(await balance(env)).toBe(BALANCE);
    const list = await api(env.ts.url, 'GET', '/verify', { key: env.ts.liveKey });
    expect(list.body.pagination.total).toBe(0);
    // The exact corridor wins over the kind's wildcard.
    await setProvider(env, { id: 'other', adapter: 'generic', routes: ['account:*'], secret: 'wrong-key-000000000' });
    expect((await verify(env, 'account', NG()))['status']).toBe('success');
  });
});

describe('the late answer after the sync guard', () => {
  it('the caller gets the stored guard result (error, reversed once), not the late upstream answer', async () => {
    const clock = new ManualClock(Date.now());
    env = await startLive({ clock });
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'], timeoutMs: 20_000, deadlineMs: 30_000 });
    env.sim.setFault('latency=1500');
    const pending = api(env.ts.url, 'POST', '/verify/account', { key: env.ts.liveKey, idem: newKey(), body: NG() });
    for (let i = 0; i < 400 && env.sim.requests().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(env.sim.requests()).toHaveLength(1);
    // The process "stalled" past the guard: the guard settles the record while the upstream is still answering.
    clock.advance(SYNC_GUARD_MS + 1);
    env.ts.service.worker.wake();
    await env.ts.service.worker.drain();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'error', error: { code: 'VERIFICATION_ERROR' }, charge: { status: 'reversed' } });
    const stored = await api(env.ts.url, 'GET', `/verify/${res.body.id}`, { key: env.ts.liveKey });
    expect(res.body).toEqual(stored.body);
    const u = await usageOf(env, res.body.id);
    expect(u.map((x) => x.kind).sort()).toEqual(['charge', 'reversal']);
    expect(await balance(env)).toBe(BALANCE);
  });
});
