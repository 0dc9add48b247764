// The pacing of a view's reloads on live changes (src-renderer/app/live-pacer.ts, docs/console-live.md "Paced
// reloads"), on a fake clock: a change after a quiet spell passes at once; a stream of changes passes at most once per
// gap, merged, the last one never lost; a view's tracked load holds changes back while it runs and paces the next by
// its duration; nothing passes after dispose.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LivePacer } from '../../../src-renderer/app/live-pacer';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(1_000_000);
});
afterEach(() => {
  vi.useRealTimers();
});

/** A pacer and the changes it passed on (each change is its number). */
function paced(o: { minGapMs?: number; factor?: number; maxLoadMs?: number; maxGapMs?: number } = {}) {
  const passed: number[] = [];
  const pacer = new LivePacer(o);
  let n = 0;
  const change = () => {
    const mine = ++n;
    pacer.change(() => passed.push(mine));
  };
  return { pacer, passed, change };
}

describe('LivePacer', () => {
  it('passes a change on at once after a quiet spell, and the next one after the gap, merged with those between', () => {
    const { passed, change } = paced({ minGapMs: 1_000 });
    change();
    expect(passed).toEqual([1]);
    // Seven batches a second (the live store's 150 ms) for two seconds.
    for (let i = 0; i < 14; i++) {
      vi.advanceTimersByTime(150);
      change();
    }
    // At most one a second, the latest by then: at 1,000 ms (change 7, made at 900 ms) and 2,000 ms (14, at 1,950).
    expect(passed).toEqual([1, 7, 14]);
    vi.advanceTimersByTime(1_000);
    // The last change (15, at 2,100 ms) always passes: at 3,000 ms.
    expect(passed).toEqual([1, 7, 14, 15]);
    const count = passed.length;
    vi.advanceTimersByTime(10_000);
    expect(passed.length).toBe(count);
    // Quiet since: the next one passes at once.
    change();
    expect(passed.at(-1)).toBe(16);
  });

  it('holds changes while a tracked load runs, then waits factor × its duration after it ends', async () => {
    const { pacer, passed, change } = paced({ minGapMs: 100, factor: 4 });
    let finish!: () => void;
    const load = pacer.track(new Promise<void>((r) => (finish = r)));
    change();
    vi.advanceTimersByTime(500);
    expect(passed).toEqual([]); // the load runs
    finish();
    await load;
    await Promise.resolve();
    // The load took 500 ms: the change waits 2,000 ms after its end, not the 100 ms gap.
    vi.advanceTimersByTime(1_999);
    expect(passed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(passed).toEqual([1]);
  });

  it('a failed tracked load paces like one that succeeded; a quick load leaves the least gap', async () => {
    const { pacer, passed, change } = paced({ minGapMs: 300, factor: 4 });
    let fail!: (e: Error) => void;
    const load = pacer.track(new Promise<void>((_, reject) => (fail = reject)));
    change();
    vi.advanceTimersByTime(10);
    fail(new Error('offline'));
    await expect(load).rejects.toThrow('offline');
    await Promise.resolve();
    vi.advanceTimersByTime(299);
    expect(passed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(passed).toEqual([1]);
  });

  it('a tracked load that never settles holds changes back for maxLoadMs, then the longest gap, at most', () => {
    const { pacer, passed, change } = paced({ minGapMs: 100, factor: 4, maxLoadMs: 30_000, maxGapMs: 10_000 });
    void pacer.track(new Promise<void>(() => undefined)); // a call that hangs
    change();
    vi.advanceTimersByTime(29_999);
    expect(passed).toEqual([]);
    // Its 30 s count as its duration: four times that is over the longest gap, which is waited instead.
    vi.advanceTimersByTime(1 + 9_999);
    expect(passed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(passed).toEqual([1]);
  });

  it('passes nothing after dispose', () => {
    const { pacer, passed, change } = paced({ minGapMs: 1_000 });
    change();
    change();
    pacer.dispose();
    vi.advanceTimersByTime(5_000);
    change();
    expect(passed).toEqual([1]);
  });
});
