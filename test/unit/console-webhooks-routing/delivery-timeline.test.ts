// Helpers of the webhooks page: attempt outcome, the time-axis layout of a delivery's attempts, and the guards
// that keep a replay from silently going to the production endpoint. The schedule used below is the one of
// decisions §7 (attempts at 0, 1, 4, 13 and 40 minutes after the event).
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { attemptOutcome, attemptsBeforeDrop, buildTrack, deliveryFate, extraError, formatDuration, localReceiverProblem, replayTarget } from '../../../src-renderer/features/webhooks/timeline';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

describe('attemptOutcome', () => {
  it('counts every 2xx as delivered and nothing else', () => {
    expect(attemptOutcome({ statusCode: 200 })).toBe('success');
    expect(attemptOutcome({ statusCode: 204 })).toBe('success');
    expect(attemptOutcome({ statusCode: 299 })).toBe('success');
    expect(attemptOutcome({ statusCode: 199 })).toBe('http-error');
    expect(attemptOutcome({ statusCode: 301 })).toBe('http-error');
    expect(attemptOutcome({ statusCode: 500 })).toBe('http-error');
    expect(attemptOutcome({ statusCode: null })).toBe('no-response');
  });
});

describe('buildTrack', () => {
  it('places the five scheduled attempts proportionally to their times', () => {
    const attempts = [0, 1, 4, 13, 40].map((m) => ({ startedAt: at(m), durationMs: 0 }));
    const t = buildTrack(at(0), attempts, null);
    expect(t.points.map((p) => p.percent)).toEqual([0, 2.5, 10, 32.5, 100]);
    expect(t.next).toBeNull();
    expect(t.end - t.start).toBe(40 * 60_000);
  });

  it('extends the axis to the next scheduled attempt and marks it', () => {
    const t = buildTrack(at(0), [{ startedAt: at(0), durationMs: 0 }, { startedAt: at(1), durationMs: 0 }], at(4));
    expect(t.points.map((p) => p.percent)).toEqual([0, 25]);
    expect(t.next?.percent).toBe(100);
  });

  it('puts a lone instant attempt in the middle instead of dividing by zero', () => {
    const t = buildTrack(at(0), [{ startedAt: at(0), durationMs: 0 }], null);
    expect(t.points[0]?.percent).toBe(50);
  });

  it('keeps every point within 0..100 whatever the times', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ m: fc.integer({ min: -100, max: 10_000 }), d: fc.integer({ min: 0, max: 10_000 }) }), { maxLength: 12 }),
        fc.option(fc.integer({ min: -100, max: 10_000 }), { nil: null }),
        (list, next) => {
          const t = buildTrack(at(0), list.map((x) => ({ startedAt: at(x.m), durationMs: x.d })), next === null ? null : at(next));
          for (const p of [...t.points, ...(t.next ? [t.next] : [])]) {
            expect(p.percent).toBeGreaterThanOrEqual(0);
            expect(p.percent).toBeLessThanOrEqual(100);
          }
          expect(t.points).toHaveLength(list.length);
        },
      ),
    );
  });
});

describe('replayTarget', () => {
  it('omits `to` for the webhook itself', () => {
    expect(replayTarget('webhook', 'http://localhost:3000/x')).toEqual({});
  });
  it('sends the typed local URL, trimmed', () => {
    expect(replayTarget('local', '  http://localhost:3000/hooks ')).toEqual({ to: 'http://localhost:3000/hooks' });
  });
  it('refuses an empty local URL rather than falling back to the webhook', () => {
    expect(replayTarget('local', '   ')).toBeNull();
  });
});

describe('localReceiverProblem', () => {
  it('accepts the loopback names the service accepts', () => {
    expect(localReceiverProblem('http://localhost:3000/hooks')).toBeNull();
    expect(localReceiverProblem('http://127.0.0.1:8080/')).toBeNull();
    expect(localReceiverProblem('https://[::1]:8443/h')).toBeNull();
  });
  it('refuses other hosts, schemes, credentials and garbage', () => {
    expect(localReceiverProblem('http://example.com/hooks')).toMatch(/localhost/);
    expect(localReceiverProblem('http://10.0.0.2:3000/')).toMatch(/localhost/);
    expect(localReceiverProblem('ftp://localhost/x')).toMatch(/http/);
    expect(localReceiverProblem('http://u:p@localhost:3000/')).toMatch(/password/);
    expect(localReceiverProblem('localhost:3000')).not.toBeNull();
    expect(localReceiverProblem('')).not.toBeNull();
  });
});

describe('extraError and formatDuration', () => {
  it('hides an error that only repeats the status code', () => {
    expect(extraError(500, 'HTTP 500')).toBeNull();
    expect(extraError(500, 'HTTP 503')).toBe('HTTP 503');
    expect(extraError(null, 'connect ECONNREFUSED')).toBe('connect ECONNREFUSED');
    expect(extraError(200, null)).toBeNull();
  });
  it('uses the largest sensible unit', () => {
    expect(formatDuration(42)).toBe('42 ms');
    expect(formatDuration(1500)).toBe('1.5 s');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(13 * 60_000 + 5_000)).toBe('13 min 5 s');
    expect(formatDuration(2 * 3_600_000 + 60_000)).toBe('2 h 1 min');
  });
});

describe('deliveryFate (report #1: the status wins over a drop)', () => {
  it('shows the drop only on a delivery that is still not delivered', () => {
    expect(deliveryFate({ status: 'failed', dropReason: 'webhook_failed' }).dropped).toBe('webhook_failed');
    expect(deliveryFate({ status: 'failed', dropReason: null }).dropped).toBeNull();
    // Dropped, then delivered by Retry now: it reads "Delivered", also under the success filter.
    expect(deliveryFate({ status: 'success', dropReason: 'webhook_failed' }).dropped).toBeNull();
    expect(deliveryFate({ status: 'success', dropReason: 'webhook_paused' }).dropped).toBeNull();
  });
});

describe('attemptsBeforeDrop', () => {
  it('counts the attempts made before the drop, not a manual retry after it nor replays', () => {
    const log = [
      { kind: 'scheduled' as const, startedAt: at(0) },
      { kind: 'scheduled' as const, startedAt: at(1) },
      { kind: 'replay' as const, startedAt: at(2) },
      { kind: 'scheduled' as const, startedAt: at(4) },
      { kind: 'scheduled' as const, startedAt: at(13) },
      { kind: 'manual' as const, startedAt: at(30) },
    ];
    expect(attemptsBeforeDrop(at(14), log)).toBe(4);
    expect(attemptsBeforeDrop(at(0), [])).toBe(0);
  });
});
