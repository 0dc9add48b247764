// The requests of webhook attempts open at once (docs/webhooks.md, "How many attempts at once"): at most `total()` in
// all and `limit(webhook)` per webhook. The dispatcher leases more attempts than may be open (LEASED_PER_OPEN in
// webhook-dispatcher.ts), so that the next attempt is leased, durable and ready when a request ends; an attempt beyond
// the limits waits here, in one line for all webhooks in the order they came to it (as their leases became durable),
// and opens as soon as a request ends that leaves room for it. The limits are read at each admission: a webhook that turned slow
// opens no more until it is below its new limit.

interface Waiter {
  webhookId: string;
  resolve: (opened: boolean) => void;
}

export class OpenRequests {
  private open = 0;
  private readonly openBy = new Map<string, number>();
  /** Attempts waiting to open, oldest first, all webhooks in one line (the order they came to wait). */
  private waiting: Waiter[] = [];
  private readonly waitingBy = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly total: () => number,
    private readonly limit: (webhookId: string) => number,
  ) {}

  /** Requests open now, in all or of one webhook. */
  openCount(webhookId?: string): number {
    return webhookId === undefined ? this.open : (this.openBy.get(webhookId) ?? 0);
  }

  /** Attempts waiting to open, in all. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /**
   * true: the request opens now (leave() when it ends). Otherwise a promise of whether it opened: true once requests
   * that ended made room for it, false when the dispatcher stopped first (close()). No promise when it opens at once.
   */
  enter(webhookId: string): true | Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (!this.waitingBy.has(webhookId) && this.hasRoom(webhookId)) {
      this.take(webhookId);
      return true;
    }
    return new Promise<boolean>((resolve) => {
      this.waiting.push({ webhookId, resolve });
      this.waitingBy.set(webhookId, (this.waitingBy.get(webhookId) ?? 0) + 1);
    });
  }

  /**
   * A request of `webhookId` ended: the oldest waiting attempts that have room open, whatever their webhook — so a
   * webhook whose requests keep ending cannot keep the total's room from another one leased before them (each
   * webhook's own limit keeps the share of the others), and each webhook's attempts open in their order.
   */
  leave(webhookId: string): void {
    this.open -= 1;
    const n = (this.openBy.get(webhookId) ?? 1) - 1;
    if (n > 0) this.openBy.set(webhookId, n);
    else this.openBy.delete(webhookId);
    if (this.waiting.length === 0) return;
    let kept = 0;
    let i = 0;
    for (; i < this.waiting.length && this.open < this.total(); i++) {
      const w = this.waiting[i]!;
      if (this.hasRoom(w.webhookId)) {
        this.take(w.webhookId);
        this.unwait(w.webhookId);
        w.resolve(true);
      } else {
        this.waiting[kept++] = w;
      }
    }
    // The rest, untouched, after those kept.
    for (; i < this.waiting.length; i++) this.waiting[kept++] = this.waiting[i]!;
    this.waiting.length = kept;
  }

  /** Stopped: every waiting attempt is told it will not open, and so is every later one. */
  close(): void {
    this.closed = true;
    const waiters = this.waiting;
    this.waiting = [];
    this.waitingBy.clear();
    for (const w of waiters) w.resolve(false);
  }

  private hasRoom(webhookId: string): boolean {
    return this.open < this.total() && (this.openBy.get(webhookId) ?? 0) < this.limit(webhookId);
  }

  private take(webhookId: string): void {
    this.open += 1;
    this.openBy.set(webhookId, (this.openBy.get(webhookId) ?? 0) + 1);
  }

  private unwait(webhookId: string): void {
    const n = (this.waitingBy.get(webhookId) ?? 1) - 1;
    if (n > 0) this.waitingBy.set(webhookId, n);
    else this.waitingBy.delete(webhookId);
  }
}
