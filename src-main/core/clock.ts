// Time comes from an injected clock so expiry, retention and retry schedules are testable without waiting.
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private t = Date.parse('2026-11-21T10:00:00.000Z')) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}

// The last time formatted: the writes of one moment (a completion, its event, its deliveries and their attempts)
// format the same millisecond several times (0.46 µs each; docs/performance.md, item 30).
let lastMs = NaN;
let lastIso = '';

export function iso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
