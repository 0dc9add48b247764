// The opt-in event-loop delay report that benchmark 7 reads from the serving process (src-main/jobs/event-loop-report).
import { describe, expect, it } from 'vitest';
import { REPORT_PREFIX, startEventLoopReport, type EventLoopDelayReport } from '../../../src-main/jobs/event-loop-report';

describe('startEventLoopReport', () => {
  it('does nothing and takes no signal unless VC_ELD_REPORT=1', () => {
    const before = process.listenerCount('SIGUSR2');
    const lines: string[] = [];
    expect(startEventLoopReport({}, (l) => lines.push(l))).toBeNull();
    expect(startEventLoopReport({ VC_ELD_REPORT: 'true' }, (l) => lines.push(l))).toBeNull();
    expect(lines).toEqual([]);
    expect(process.listenerCount('SIGUSR2')).toBe(before);
  });

  it('prints a histogram in milliseconds on SIGUSR2, starts a new one, and stops cleanly', async () => {
    const before = process.listenerCount('SIGUSR2');
    const lines: string[] = [];
    const stop = startEventLoopReport({ VC_ELD_REPORT: '1' }, (l) => lines.push(l));
    expect(stop).not.toBeNull();
    expect(lines).toEqual([`${REPORT_PREFIX} ready\n`]);
    expect(process.listenerCount('SIGUSR2')).toBe(before + 1);
    // A second start in the same process shares the first.
    expect(startEventLoopReport({ VC_ELD_REPORT: '1' }, (l) => lines.push(l))).toBe(stop);

    // Block the loop once, well beyond the 10 ms sampling interval, then let the timer sample it.
    await new Promise((r) => setTimeout(r, 30));
    const until = performance.now() + 80;
    while (performance.now() < until) {
      // busy: this is the delay the histogram must see
    }
    await new Promise((r) => setTimeout(r, 40));
    process.emit('SIGUSR2', 'SIGUSR2');
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(lines).toHaveLength(3);
    const [first, second] = lines.slice(1).map((l) => {
      expect(l.startsWith(`${REPORT_PREFIX} {`)).toBe(true);
      return JSON.parse(l.slice(REPORT_PREFIX.length + 1)) as EventLoopDelayReport;
    });
    expect(first?.max).toBeGreaterThanOrEqual(50);
    expect(first?.max).toBeGreaterThanOrEqual(first?.p99 ?? Infinity);
    expect(first?.p99).toBeGreaterThanOrEqual(first?.p50 ?? Infinity);
    expect(first?.samples).toBeGreaterThan(0);
    // Reset after each report: the second window saw no block.
    expect(second?.max ?? Infinity).toBeLessThan(first?.max ?? 0);

    stop?.();
    expect(process.listenerCount('SIGUSR2')).toBe(before);
  });
});
