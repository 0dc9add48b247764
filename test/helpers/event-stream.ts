// An open server-sent event stream in a test (the web console's GET /console/events): frames as they arrive, and
// `next()` to wait for one matching a predicate (a deadline only keeps a broken test from hanging).
export interface Frame {
  event: string;
  id: string | undefined;
  data: string;
}

/** An open event stream: frames as they arrive, and `next()` to wait for one matching a predicate. */
export class Stream {
  readonly frames: Frame[] = [];
  private waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  private buf = '';
  constructor(
    readonly res: Response,
    private readonly abort: AbortController,
  ) {
    void this.pump();
  }
  private async pump() {
    const reader = this.res.body!.getReader();
    const dec = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        this.buf += dec.decode(value, { stream: true });
        let cut: number;
        while ((cut = this.buf.indexOf('\n\n')) >= 0) {
          const block = this.buf.slice(0, cut);
          this.buf = this.buf.slice(cut + 2);
          const f: Frame = { event: 'message', id: undefined, data: '' };
          const data: string[] = [];
          let any = false;
          for (const line of block.split('\n')) {
            const m = /^([a-zA-Z]+): ?(.*)$/.exec(line);
            if (!m) continue;
            any = true;
            if (m[1] === 'event') f.event = m[2]!;
            else if (m[1] === 'id') f.id = m[2]!;
            else if (m[1] === 'data') data.push(m[2]!);
          }
          if (!any || data.length === 0) continue;
          f.data = data.join('\n');
          this.frames.push(f);
          this.waiters = this.waiters.filter((w) => (w.pred(f) ? (w.resolve(f), false) : true));
        }
      }
    } catch {
      // aborted
    }
  }
  next(pred: (f: Frame) => boolean, what: string): Promise<Frame> {
    const hit = this.frames.find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} in ${JSON.stringify(this.frames)}`)), 10_000);
      this.waiters.push({ pred, resolve: (f) => (clearTimeout(timer), resolve(f)) });
    });
  }
  close() {
    this.abort.abort();
  }
}
