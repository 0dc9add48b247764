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

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
