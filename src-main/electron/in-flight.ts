// The console's IPC calls that have been answered by no one yet: the graceful stop waits for them (bounded) before it
// closes the store, so a call the window made just before a quit gets its answer instead of a closed-store error.
// New calls are refused by main.ts once the stop has begun, so the set only shrinks from then on.

export interface InFlight {
  /** Counts `p` until it settles; returns it unchanged. */
  track<T>(p: Promise<T>): Promise<T>;
  readonly size: number;
  /** Resolves true once every tracked call has settled, or false after `timeoutMs` with some still running. */
  settled(timeoutMs: number): Promise<boolean>;
}

export function createInFlight(): InFlight {
  const running = new Set<Promise<unknown>>();
  return {
    track<T>(p: Promise<T>): Promise<T> {
      const entry: Promise<unknown> = p.then(
        () => running.delete(entry),
        () => running.delete(entry),
      );
      running.add(entry);
      return p;
    },
    get size() {
      return running.size;
    },
    async settled(timeoutMs: number): Promise<boolean> {
      if (running.size === 0) return true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      const drain = async (): Promise<true> => {
        while (running.size > 0) await Promise.allSettled([...running]);
        return true;
      };
      try {
        return await Promise.race([drain(), timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
