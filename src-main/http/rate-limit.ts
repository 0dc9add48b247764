// A per-credential fixed-window request budget for the HTTP door. In memory: the service is one process.
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  /** perMinute may be a getter: the Settings page changes the budget while the door is up. */
  constructor(
    private readonly perMinute: number | (() => number),
    private readonly now: () => number,
  ) {}

  /** Returns 0 when the request may go ahead, else the seconds to wait. */
  take(key: string): number {
    const perMinute = typeof this.perMinute === 'function' ? this.perMinute() : this.perMinute;
    if (perMinute <= 0) return 0;
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= 60_000) {
      if (this.windows.size > 50_000) this.windows.clear();
      w = { start: t, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    if (w.count <= perMinute) return 0;
    return Math.max(1, Math.ceil((w.start + 60_000 - t) / 1000));
  }
}
