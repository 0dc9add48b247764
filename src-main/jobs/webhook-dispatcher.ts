// The webhook dispatcher loop: fans new outbox events out into deliveries and makes every due attempt. All of
// its state is in the store (deliveries with their next attempt time and a lease), so a kill at any moment
// loses nothing and the schedule resumes after a restart.
import type { CoreRuntime } from '../core/runtime';
import { claimDue, fanOut, nextDueAt, runScheduledAttempt } from '../core/webhooks/deliveries';
import { closeAgents } from '../core/webhooks/sender';
import { commitThrough, onWork } from '../store/group-commit';
import { InFlight, WakeableSleep } from './wakeable-sleep';

export interface DispatcherOptions {
  /**
   * Longest sleep between looks at the store. New outbox events wake the loop through the commit that wrote them
   * (signalWork 'outbox'), so this is only the safety net, and the pace of a manual clock in tests.
   */
  pollMs?: number;
  /** Attempts in flight at once (default 32): each mostly waits on the endpoint or on a shared commit. */
  concurrency?: number;
}

export class WebhookDispatcher {
  private running = false;
  private readonly inFlight = new InFlight();
  private readonly sleeper = new WakeableSleep();
  private loopDone: Promise<void> | undefined;
  /** A wake-up that arrived while a pass was running (not sleeping): the next sleep is skipped. */
  private woken = false;
  private unsubscribe: (() => void) | undefined;

  /** Attempts leased by a commit that has not been started yet (they hold slots too). */
  private leasedNotStarted = 0;

  /**
   * Commits an attempt's log through the write port: attempts in flight together share one sync, and the loop
   * never waits for the disk (a lone attempt used to commit at once under synchronous=FULL, on the loop). The
   * attempt is about to free its slot, so the same transaction leases the next due delivery for it: a stream of
   * deliveries costs one commit each, not two. That lease reads outbox events other commits wrote; its promise
   * resolves only after a sync covering them, so no webhook carries an event that is not yet on disk.
   */
  private readonly logCommit = (fn: () => void): Promise<void> => {
    let next: string[] = [];
    const logAndClaim = () => {
      fn();
      if (!this.running) return;
      try {
        next = this.claimWork(this.freeSlots() + 1);
      } catch (err) {
        // The log above stays: fanOut and claimDue each roll back alone (savepoints).
        this.rt.deps.log.error({ err: String(err) }, 'webhook claim after an attempt failed');
      }
    };
    return this.rt.deps.commit(logAndClaim).then(
      () => this.startAttempts(next),
      (err: unknown) => {
        // Rolled back with the transaction: those leases never happened.
        this.leasedNotStarted -= next.length;
        throw err;
      },
    );
  };

  constructor(
    private readonly rt: CoreRuntime,
    private readonly o: DispatcherOptions = {},
  ) {}

  private get concurrency(): number {
    return this.o.concurrency ?? 32;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = onWork(this.rt.deps.db, 'outbox', () => this.wake());
    this.loopDone = this.loop();
  }

  wake(): void {
    this.woken = true;
    this.sleeper.wake();
  }

  /** Stops claiming, lets attempts in flight finish (each is bounded by the 10 s timeout) and closes sockets. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.wake();
    await this.loopDone;
    await this.inFlight.settled();
    await closeAgents(this.rt);
  }

  /**
   * One pass: fan out everything waiting and lease every due attempt that fits, in one shared commit; then start
   * the attempts. Returns how many attempts started.
   */
  async tick(): Promise<number> {
    let ids: string[] = [];
    try {
      await commitThrough(this.rt.deps.db, () => {
        ids = this.claimWork(this.freeSlots());
      });
    } catch (err) {
      this.leasedNotStarted -= ids.length;
      throw err;
    }
    this.startAttempts(ids);
    return ids.length;
  }

  private freeSlots(): number {
    return this.concurrency - this.inFlight.size - this.leasedNotStarted;
  }

  /** Inside a transaction: turns new outbox events into deliveries and leases up to `free` due attempts. */
  private claimWork(free: number): string[] {
    const { deps } = this.rt;
    while (fanOut(deps) > 0) {
      /* up to 100 events per round */
    }
    const ids = free > 0 ? claimDue(deps, free) : [];
    this.leasedNotStarted += ids.length;
    return ids;
  }

  private startAttempts(ids: string[]): void {
    const { deps } = this.rt;
    this.leasedNotStarted -= ids.length;
    for (const id of ids) {
      this.inFlight.add(
        runScheduledAttempt(this.rt, id, 'scheduled', this.logCommit).catch((err: unknown) =>
          deps.log.error({ deliveryId: id, err: String(err) }, 'webhook attempt crashed'),
        ),
        () => this.wake(),
      );
    }
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.woken = false;
      try {
        await this.tick();
      } catch (err) {
        this.rt.deps.log.error({ err: String(err) }, 'webhook dispatcher pass failed');
      }
      if (!this.running) break;
      if (this.woken) continue;
      await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    const poll = this.o.pollMs ?? 200;
    const full = this.freeSlots() <= 0;
    const next = full ? null : nextDueAt(this.rt.deps);
    const wait = next === null ? poll : Math.max(0, Math.min(poll, next - this.rt.deps.clock.now()));
    return this.sleeper.sleep(wait);
  }
}
