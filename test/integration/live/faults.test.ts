// Live mode against the upstream simulator over real sockets (interface §1.6, §7.3; decisions §9): each upstream
// fault ends as status error with its fixed code and message, charged then reversed exactly once; retries reuse
// the upstream idempotency key so the check never runs twice; Retry-After is honoured; a late answer after the
// deadline changes nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import { VERIFICATION_ERRORS } from '../../../src-shared/errors';
import { BALANCE, balance, expectBilling, NG, PRICE, setProvider, startLive, verify, type LiveEnv } from './live-helpers';

let env: LiveEnv;
beforeEach(async () => {
  env = await startLive();
  await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*', 'phone:*', 'identity:*'] });
});
afterEach(async () => env.stop());

const CASES = [
  { fault: 'status=503', code: 'VERIFICATION_UNAVAILABLE' },
  { fault: 'status=500', code: 'VERIFICATION_UNAVAILABLE' },
  { fault: 'reset', code: 'VERIFICATION_UNAVAILABLE' },
  { fault: 'timeout', code: 'VERIFICATION_TIMEOUT' },
  { fault: 'late=5000', code: 'VERIFICATION_TIMEOUT' },
  { fault: 'rate-limit=30', code: 'VERIFICATION_RATE_LIMITED' },
  { fault: 'malformed', code: 'VERIFICATION_ERROR' },
  { fault: 'malformed=shape', code: 'VERIFICATION_ERROR' },
  { fault: 'malformed=large', code: 'VERIFICATION_ERROR' },
] as const;

describe('upstream faults', () => {
  for (const c of CASES) {
    it(`${c.fault} → status error ${c.code}, its fixed message, charged and reversed once`, async () => {
      env.sim.setFault(c.fault);
      const rec = await verify(env, 'account', NG());
      expect(rec['status']).toBe('error');
      expect(rec['verified']).toBe(false);
      expect(rec['error']).toEqual({ code: c.code, message: VERIFICATION_ERRORS[c.code].message });
      expect(rec['charge']).toEqual({ amount: PRICE, currency: 'USD', status: 'reversed' });
      await expectBilling(env, rec['id'], true);
      expect(await balance(env)).toBe(BALANCE);
    });
  }

  it('the same answer without a fault is success, charged once and not reversed', async () => {
    const rec = await verify(env, 'account', NG());
    expect(rec).toMatchObject({ status: 'success', verified: true, source: 'live', accountName: 'Adaeze Nwosu', bankName: 'Guaranty Trust Bank' });
    await expectBilling(env, rec['id'], false);
    expect(await balance(env)).toBe(BALANCE - PRICE);
  });

  it('retries a reset and a 503 with the same Idempotency-Key; the upstream check runs once', async () => {
    env.sim.setFault('reset', 1);
    const a = await verify(env, 'account', NG());
    expect(a['status']).toBe('success');
    env.sim.setFault('status=503', 2);
    const b = await verify(env, 'account', NG('1234567890'));
    expect(b['status']).toBe('success');
    for (const id of [a['id'], b['id']]) {
      const reqs = env.sim.requests().filter((r) => r.idempotencyKey === id);
      expect(reqs.length).toBeGreaterThan(1);
      expect(env.sim.executions(id)).toBe(1);
    }
    await expectBilling(env, b['id'], false);
  });

  it('a retry after a per-request timeout gets the first answer back (replayed), never a second check', async () => {
    // The timeout fault runs the check but never answers: the retry carries the same key and is answered from the
    // upstream's idempotency store.
    env.sim.setFault('timeout', 1);
    const rec = await verify(env, 'account', NG());
    expect(rec['status']).toBe('success');
    const reqs = env.sim.requests().filter((r) => r.idempotencyKey === rec['id']);
    expect(reqs.length).toBe(2);
    expect(env.sim.executions(rec['id'])).toBe(1);
    expect(reqs[1]!.replayed).toBe(true);
  });

  it('retries are bounded: a persistent 503 is tried 1 + retries times', async () => {
    env.sim.setFault('status=503');
    const rec = await verify(env, 'account', NG());
    expect(rec['error'].code).toBe('VERIFICATION_UNAVAILABLE');
    expect(env.sim.requests().filter((r) => r.idempotencyKey === rec['id'])).toHaveLength(3);
  });

  it('a 2xx body over 1 MB is an answer we cannot read: VERIFICATION_ERROR, not retried', async () => {
    env.sim.setFault('malformed=large');
    const rec = await verify(env, 'account', NG());
    expect(rec['error'].code).toBe('VERIFICATION_ERROR');
    expect(env.sim.requests().filter((r) => r.idempotencyKey === rec['id'])).toHaveLength(1);
  });

  it('honours a Retry-After given as an HTTP-date, on the service clock', async () => {
    await env.stop();
    const clock = new ManualClock(Date.now());
    env = await startLive({ clock });
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'] });
    env.sim.setFault('rate-limit-date=120', 1);
    expect((await verify(env, 'account', NG()))['error'].code).toBe('VERIFICATION_RATE_LIMITED');
    const seen = env.sim.requests().length;
    clock.advance(30_000); // past the 1 s default, well within the date
    expect((await verify(env, 'account', NG('1234567890')))['error'].code).toBe('VERIFICATION_RATE_LIMITED');
    expect(env.sim.requests().length).toBe(seen);
    clock.advance(100_000); // past the date
    expect((await verify(env, 'account', NG('1234567890')))['status']).toBe('success');
    expect(env.sim.requests().length).toBe(seen + 1);
  });

  it('honours Retry-After: while it runs, live checks answer RATE_LIMITED without calling the upstream', async () => {
    env.sim.setFault('rate-limit=120', 1);
    const first = await verify(env, 'account', NG());
    expect(first['error'].code).toBe('VERIFICATION_RATE_LIMITED');
    const seen = env.sim.requests().length;
    const second = await verify(env, 'account', NG('1234567890'));
    expect(second['error'].code).toBe('VERIFICATION_RATE_LIMITED');
    expect(env.sim.requests().length).toBe(seen);
    await expectBilling(env, second['id'], true);
  });

  it('an upstream that refuses our credentials is a VERIFICATION_ERROR, not retried, reversed', async () => {
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'], secret: 'wrong-key-000000000' });
    const rec = await verify(env, 'account', NG());
    expect(rec['error'].code).toBe('VERIFICATION_ERROR');
    expect(env.sim.requests()).toHaveLength(1);
    await expectBilling(env, rec['id'], true);
  });

  it('INCONCLUSIVE from the upstream is status error, never charged (reversed), never cached', async () => {
    const a = await verify(env, 'account', NG('0123459999'));
    expect(a['status']).toBe('error');
    expect(a['error']).toEqual({ code: 'INCONCLUSIVE', message: VERIFICATION_ERRORS.INCONCLUSIVE.message });
    await expectBilling(env, a['id'], true);
    const b = await verify(env, 'account', NG('0123459999'));
    expect(b['source']).toBe('live');
    expect(env.sim.executions(b['id'])).toBe(1);
  });

  it('NOT_FOUND is a definitive failure: charged, not reversed', async () => {
    const rec = await verify(env, 'account', NG('0123450000'));
    expect(rec).toMatchObject({ status: 'failed', error: { code: 'ACCOUNT_NOT_FOUND' }, charge: { status: 'charged' } });
    await expectBilling(env, rec['id'], false);
  });

  it('async: a fault ends the record as error with one reversal, and the event fires', async () => {
    env.sim.setFault('status=502');
    const pending = await verify(env, 'account', { ...NG(), mode: 'async' });
    const id = pending['id'] as string;
    let rec: Record<string, any> = pending;
    for (let i = 0; i < 200 && rec['status'] === 'pending'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      rec = (await (await fetch(`${env.ts.url}/api/v1/verify/${id}`, { headers: { 'x-api-key': env.ts.liveKey } })).json()) as Record<string, any>;
    }
    expect(rec['error']).toEqual({ code: 'VERIFICATION_UNAVAILABLE', message: VERIFICATION_ERRORS.VERIFICATION_UNAVAILABLE.message });
    await expectBilling(env, id, true);
  });
});
