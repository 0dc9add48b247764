// Pacing of a view's reloads on live changes (docs/console-live.md, "Paced reloads"). A list or a summary that
// reloads on every change batch (at most every 150 ms) asks the service for its counts up to seven times a second
// while checks flow; on a large store one dashboard load over 30 days reads hundreds of thousands of rows, so an open
// console could keep the service busy refreshing it. Here a change is passed on at once when the view has been quiet,
// and otherwise no sooner than `minGapMs` after the last one — or `factor` times as long as the view's last load
// took, when the view reports its loads (`track`): a view whose load costs the service 400 ms reloads at most every
// 2 s, so refreshing itself never takes more than a fifth of the service's time (and never waits more than 10 s). Changes arriving meanwhile are
// merged into one; none is lost (the last always gets its reload). No React here: tested with a fake clock.

export interface LivePacerOptions {
  /** The least time between two changes passed on (default 1 s). */
  minGapMs?: number;
  /** A tracked load's duration times this is also waited after it (default 4). */
  factor?: number;
  /** The most a change waits after the last load (default 10 s), however long that load took. */
  maxGapMs?: number;
  /** A tracked load still running after this long no longer holds changes back (default 30 s): a call that hangs. */
  maxLoadMs?: number;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (t: unknown) => void;
}

export class LivePacer {
  private readonly minGapMs: number;
  private readonly factor: number;
  private readonly maxLoadMs: number;
  private readonly maxGapMs: number;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (t: unknown) => void;
  /** The change to pass on (the latest one), or null when none waits. */
  private waiting: (() => void) | null = null;
  private timer: unknown = null;
  /** Tracked loads running. */
  private busy = 0;
  /** When the last change was passed on, or the last tracked load ended (whichever is later). */
  private lastEnd = -Infinity;
  private lastDuration = 0;
  private disposed = false;

  constructor(o: LivePacerOptions = {}) {
    this.minGapMs = o.minGapMs ?? 1_000;
    this.factor = o.factor ?? 4;
    this.maxLoadMs = o.maxLoadMs ?? 30_000;
    this.maxGapMs = o.maxGapMs ?? 10_000;
    this.now = o.now ?? (() => Date.now());
    this.setTimer = o.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = o.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>));
  }

  /** A change happened: `apply` passes it on (now, or later merged with those that follow). */
  change(apply: () => void): void {
    if (this.disposed) return;
    this.waiting = apply;
    this.schedule();
  }

  /** Reports one of the view's loads: while it runs nothing is passed on, and its duration paces the next. */
  readonly track = <T>(load: Promise<T>): Promise<T> => {
    this.busy++;
    const started = this.now();
    let ended = false;
    // Ends once: when the load settles, or after maxLoadMs if it hangs (its duration then counts as maxLoadMs).
    const done = () => {
      if (ended) return;
      ended = true;
      this.clearTimer(cap);
      this.busy--;
      const end = this.now();
      this.lastDuration = end - started;
      this.lastEnd = Math.max(this.lastEnd, end);
      this.schedule();
    };
    const cap = this.setTimer(done, this.maxLoadMs);
    load.then(done, done);
    return load;
  };

  dispose(): void {
    this.disposed = true;
    this.waiting = null;
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
  }

  /** How long after the last load or change the next change may be passed on. */
  private gap(): number {
    return Math.min(this.maxGapMs, Math.max(this.minGapMs, this.factor * this.lastDuration));
  }

  private schedule(): void {
    if (this.disposed || this.waiting === null || this.timer !== null || this.busy > 0) return;
    const wait = this.lastEnd + this.gap() - this.now();
    if (wait <= 0) {
      this.fire();
      return;
    }
    this.timer = this.setTimer(() => {
      this.timer = null;
      this.schedule();
    }, wait);
  }

  private fire(): void {
    const apply = this.waiting;
    this.waiting = null;
    this.lastEnd = this.now();
    apply?.();
  }
}
