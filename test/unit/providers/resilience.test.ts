// Circuit breaker state machine, bulkhead queueing and backoff bounds (src-main/providers/resilience.ts).
import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from '../../../src-main/providers/live/live-provider';
import { backoffMs, Bulkhead, BulkheadFull, CircuitBreaker } from '../../../src-main/providers/resilience';

describe('CircuitBreaker', () => {
  it('closed → open after N consecutive failures; a success in between resets the count', () => {
    let t = 0;
    const b = new CircuitBreaker(3, 1000, () => t);
    b.failure();
    b.failure();
    b.success();
    b.failure();
    b.failure();
    expect(b.state).toBe('closed');
    b.failure();
    expect(b.state).toBe('open');
    expect(b.tryAcquire()).toBe(false);
    t = 999;
    expect(b.tryAcquire()).toBe(false);
  });

  it('half-open lets exactly one probe through; its success closes, its failure re-opens for a new cool-down', () => {
    let t = 0;
    const b = new CircuitBreaker(1, 1000, () => t);
    b.failure();
    t = 1000;
    expect(b.state).toBe('half-open');
    expect(b.tryAcquire()).toBe(true);
    expect(b.tryAcquire()).toBe(false);
    b.failure();
    expect(b.state).toBe('open');
    t = 1999;
    expect(b.tryAcquire()).toBe(false);
    t = 2000;
    expect(b.tryAcquire()).toBe(true);
    b.success();
    expect(b.state).toBe('closed');
    expect(b.tryAcquire()).toBe(true);
  });

  it('a neutral end of the probe (cancelled) frees the probe slot without closing', () => {
    let t = 0;
    const b = new CircuitBreaker(1, 100, () => t);
    b.failure();
    t = 100;
    expect(b.tryAcquire()).toBe(true);
    b.neutral();
    expect(b.state).toBe('half-open');
    expect(b.tryAcquire()).toBe(true);
  });
});

describe('Bulkhead', () => {
  it('admits max holders, queues up to maxQueue in order, refuses the rest at once', async () => {
    const b = new Bulkhead(1, 1);
    const signal = new AbortController().signal;
    const r1 = await b.acquire(signal);
    const order: number[] = [];
    const p2 = b.acquire(signal).then((r) => {
      order.push(2);
      return r;
    });
    await expect(b.acquire(signal)).rejects.toBeInstanceOf(BulkheadFull);
    expect([b.inFlight, b.queued]).toEqual([1, 1]);
    r1();
    r1(); // a second release is ignored
    const r2 = await p2;
    expect(order).toEqual([2]);
    expect([b.inFlight, b.queued]).toEqual([1, 0]);
    r2();
    expect(b.inFlight).toBe(0);
  });

  it('an abort removes a waiter from the queue with the abort reason', async () => {
    const b = new Bulkhead(1, 5);
    const hold = await b.acquire(new AbortController().signal);
    const ctl = new AbortController();
    const waiting = b.acquire(ctl.signal);
    ctl.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    expect(b.queued).toBe(0);
    hold();
    expect(b.inFlight).toBe(0);
  });
});

describe('backoffMs', () => {
  it('grows exponentially with full jitter inside [ceiling/2, ceiling], capped', () => {
    expect(backoffMs(1, 100, 2000, () => 0)).toBe(50);
    expect(backoffMs(1, 100, 2000, () => 0.999)).toBeLessThanOrEqual(100);
    expect(backoffMs(3, 100, 2000, () => 0)).toBe(200);
    expect(backoffMs(10, 100, 2000, () => 0.999)).toBeLessThanOrEqual(2000);
    expect(backoffMs(10, 100, 2000, () => 0)).toBe(1000);
  });
});

describe('retryAfterSeconds (RFC 9110 §10.2.3)', () => {
  const now = Date.UTC(2026, 10, 27, 12, 0, 0);
  it('reads delay-seconds and the three HTTP-date forms against the given clock, bounded to an hour', () => {
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Fri, 27 Nov 2026 12:00:45 GMT', now)).toBe(45); // IMF-fixdate
    expect(retryAfterSeconds('Friday, 27-Nov-26 12:01:00 GMT', now)).toBe(60); // obsolete RFC 850
    expect(retryAfterSeconds('Fri Nov 27 12:00:30 2026', now)).toBe(30); // obsolete asctime (UTC)
    expect(retryAfterSeconds('Fri, 27 Nov 2026 11:00:00 GMT', now)).toBe(0); // already passed
    expect(retryAfterSeconds('Sat, 28 Nov 2026 12:00:00 GMT', now)).toBe(3600);
    expect(retryAfterSeconds('99999', now)).toBe(3600);
  });
  it('is undefined when absent or unreadable (the caller waits its default)', () => {
    for (const v of [undefined, '', '1.5', '-3', 'soon', 'Fri, 99 Foo 2026']) expect(retryAfterSeconds(v, now)).toBeUndefined();
  });
});
