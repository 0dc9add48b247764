// Per-provider protection of the upstream and of us: a circuit breaker (stop calling a failing upstream, probe it
// after a cool-down) and a bulkhead (at most N calls in flight, a bounded queue, the rest refused at once).

export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * closed → open after `threshold` consecutive failed checks; open answers without calling until `cooldownMs` has
 * passed on the service clock; then one probe is let through (half-open): success closes, failure re-opens.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private stateNow: CircuitState = 'closed';

  constructor(
    private readonly threshold: number,
    private readonly cooldownMs: number,
    private readonly now: () => number,
  ) {}

  get state(): CircuitState {
    if (this.stateNow === 'open' && this.now() - this.openedAt >= this.cooldownMs) return 'half-open';
    return this.stateNow;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Whether a call may go out now; a true answer in half-open makes this call the one probe. */
  tryAcquire(): boolean {
    const s = this.state;
    if (s === 'closed') return true;
    if (s === 'open' || this.probing) return false;
    this.probing = true;
    this.stateNow = 'half-open';
    return true;
  }

  success(): void {
    this.failures = 0;
    this.probing = false;
    this.stateNow = 'closed';
  }

  failure(): void {
    this.failures += 1;
    const wasProbe = this.probing;
    this.probing = false;
    if (wasProbe || this.failures >= this.threshold) {
      this.stateNow = 'open';
      this.openedAt = this.now();
    }
  }

  /** A call that ended without telling anything about the upstream (cancelled, refused by the bulkhead). */
  neutral(): void {
    if (this.probing) {
      this.probing = false;
      if (this.stateNow === 'half-open') {
        this.stateNow = 'open';
        // Still cooled down: the next call may probe at once.
        this.openedAt = this.now() - this.cooldownMs;
      }
    }
  }
}

export class BulkheadFull extends Error {
  override name = 'BulkheadFull';
}

/** At most `max` holders; up to `maxQueue` waiters in arrival order; an abort removes a waiter. */
export class Bulkhead {
  private active = 0;
  private readonly waiters: { grant: () => void; fail: (e: unknown) => void }[] = [];

  constructor(
    private readonly max: number,
    private readonly maxQueue: number,
  ) {}

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiters.length;
  }

  async acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw signal.reason;
    if (this.active < this.max) {
      this.active += 1;
      return this.releaser();
    }
    if (this.waiters.length >= this.maxQueue) throw new BulkheadFull('provider concurrency limit reached');
    await new Promise<void>((resolve, reject) => {
      const w = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        fail: reject,
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiters.shift();
      // The slot passes straight to the next waiter, so `active` never dips and lets a newcomer jump the queue.
      if (next) next.grant();
      else this.active -= 1;
    };
  }
}

/** Exponential backoff with full jitter, capped. `attempt` counts from 1 for the first retry. */
export function backoffMs(attempt: number, baseMs = 100, capMs = 2_000, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** (attempt - 1));
  return Math.floor(ceiling / 2 + random() * (ceiling / 2));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
