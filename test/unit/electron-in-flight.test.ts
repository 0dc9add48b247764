// The console calls in flight that the Electron stop waits for (src-main/electron/in-flight.ts): it waits for every
// one, including one that fails, and gives up after its bound with the count of those still running.
import { describe, expect, it } from 'vitest';
import { createInFlight } from '../../src-main/electron/in-flight';

const later = <T>(ms: number, value: T, fail = false) => new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(new Error('x')) : resolve(value)), ms));

describe('in-flight console calls', () => {
  it('settles once every tracked call has, failed ones included; the call itself is passed through unchanged', async () => {
    const f = createInFlight();
    expect(await f.settled(10)).toBe(true);
    const a = f.track(later(20, 'a'));
    const b = f.track(later(40, 'b', true));
    expect(f.size).toBe(2);
    expect(await f.settled(1_000)).toBe(true);
    expect(f.size).toBe(0);
    expect(await a).toBe('a');
    await expect(b).rejects.toThrow('x');
  });

  it('gives up after the bound, leaving the slow call counted', async () => {
    const f = createInFlight();
    const slow = f.track(later(300, 'slow'));
    const t0 = Date.now();
    expect(await f.settled(30)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(250);
    expect(f.size).toBe(1);
    await slow;
    expect(f.size).toBe(0);
  });
});
