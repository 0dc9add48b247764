// The pieces both background loops (queue worker, webhook dispatcher) share: a sleep that a wake-up cuts
// short, and the set of tasks in flight that stop() waits for.
export class WakeableSleep {
  private timer: NodeJS.Timeout | undefined;
  private resolveNow: (() => void) | undefined;

  /** Sleeps `ms`, or less if wake() is called meanwhile. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.resolveNow = () => {
        if (this.timer) clearTimeout(this.timer);
        this.resolveNow = undefined;
        resolve();
      };
      this.timer = setTimeout(() => this.resolveNow?.(), ms);
    });
  }

  wake(): void {
    this.resolveNow?.();
  }
}

export class InFlight {
  private readonly tasks = new Set<Promise<void>>();

  get size(): number {
    return this.tasks.size;
  }

  /** Tracks a task; `done` runs after it settles and has left the set. */
  add(task: Promise<void>, done: () => void): void {
    const p = task.finally(() => {
      this.tasks.delete(p);
      done();
    });
    this.tasks.add(p);
  }

  settled(): Promise<unknown> {
    return Promise.allSettled([...this.tasks]);
  }
}
