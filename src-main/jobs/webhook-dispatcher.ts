// The webhook dispatcher loop: fans new outbox events out into deliveries and makes every due attempt. All of
// its state is in the store (deliveries with their next attempt time and a lease), so a kill at any moment
// loses nothing and the schedule resumes after a restart. On PostgreSQL any number of instances run this loop on
// one database: fan-out and claims lock what they take (`FOR UPDATE SKIP LOCKED`), so they take disjoint events
// and deliveries; an attempt whose instance died is claimed again by any instance once its lease expires
// (docs/team-server.md, "Claims, leases and takeover"). An async check's deliveries, written with its result, are
// leased for this loop in that same transaction while it has free slots, and handed to it once durable, so they need
// no claim (DeliveryHandOff in core/webhooks/deliveries.ts).
import type { CoreDeps } from '../core/context';
import type { CoreRuntime } from '../core/runtime';
import { claimDueAttempts, CLAIM_ISOLATION, fanOut, nextDueAt, runScheduledAttempt, takeLeasedDeliveries, type AttemptCommit, type ClaimedAttempt } from '../core/webhooks/deliveries';
import { closeAgents } from '../core/webhooks/sender';
import { onWork } from '../store/group-commit';
import type { TransactionOptions } from '../store/sql-port';
import { InFlight, WakeableSleep } from './wakeable-sleep';

/** Outbox events fanned out per statement round of a pass. */
const FAN_OUT_ROUND = 100;

export interface DispatcherOptions {
  /**
   * Longest sleep between looks at the store. New outbox events wake the loop through the commit that wrote them
   * (signalWork 'outbox'), so this is only the safety net, and the pace of a manual clock in tests.
   */
  pollMs?: number;
  /**
   * Attempts in flight at once (default 64): each mostly waits on the endpoint or on a shared commit (its slot is
   * held until its log is durable), and an async check's deliveries are handed to the loop as they are written only
   * while a slot is free (DeliveryHandOff).
   */
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
   * Whether deliveries may be due that no claim has taken: set by a work signal (deliveries written unleased, by this
   * instance or another) and by a claim that filled every slot it asked for; cleared when a claim starts. Only the
   * claim chained to an attempt's log looks at it — an empty claim there would scan the leased deliveries on every
   * attempt; the loop's passes (after every attempt's end, at the next due time, at each poll) claim regardless.
   */
  private dueHint = true;

  /**
   * Commits an attempt's log through the SQL port (on SQLite its transactions ride the group commit: attempts in
   * flight together share one sync, and the loop never waits for the disk). The attempt is about to free its slot,
   * so the same transaction leases the next due delivery for it: a stream of deliveries costs one commit each, not
   * two. That lease reads deliveries other commits wrote (with their events: insertFannedOutEvent); the
   * transaction's promise resolves only once it is durable (after a sync covering them), and the leased attempts
   * start only then, so no webhook carries an event that is not yet on disk. It does not fan out: events written
   * without their deliveries (none of the service's own) wait for the loop's next pass, which every attempt's end
   * wakes.
   *
   * On PostgreSQL the log commits at READ COMMITTED (runScheduledAttempt says when), and so does the chained
   * claim. A log that must be serializable (the attempt may fail the webhook) chains no claim: a serializable
   * transaction that locks rows another instance changed after its snapshot fails and runs again. The attempt's
   * end wakes the loop, whose pass claims for the free slot instead.
   */
  private readonly logCommit: AttemptCommit = async (fn, options) => {
    let next: ClaimedAttempt[] = [];
    try {
      await this.rt.deps.sql.transaction(async (tx) => {
        // A body run again (PostgreSQL, after a serialization failure): the previous run's leases were rolled back.
        this.leasedNotStarted -= next.length;
        next = [];
        await fn(tx);
        if (!this.running || !this.chainsClaim(options)) return;
        try {
          next = await this.claimWork({ ...this.rt.deps, sql: tx }, 1, false);
        } catch (err) {
          // The log above stays: the claim rolls back alone (a savepoint).
          this.rt.deps.log.error({ err: String(err) }, 'webhook claim after an attempt failed');
        }
      }, options);
    } catch (err) {
      // Rolled back with the transaction: those leases never happened.
      this.leasedNotStarted -= next.length;
      throw err;
    }
    this.startAttempts(next);
  };

  constructor(
    private readonly rt: CoreRuntime,
    private readonly o: DispatcherOptions = {},
  ) {}

  /** Whether an attempt's log commit also claims the next due attempt (SQLite: always; PostgreSQL: see logCommit). */
  private chainsClaim(options: TransactionOptions | undefined): boolean {
    return this.rt.deps.sql.engine !== 'postgres' || options?.isolation === 'read committed';
  }

  private get concurrency(): number {
    return this.o.concurrency ?? 64;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const unsubscribe = onWork(this.rt.deps.sql, 'outbox', () => {
      this.dueHint = true;
      this.wake();
    });
    // Deliveries written by this process's transactions (an async check's completion) are leased for this loop in
    // its free slots as they are written, and handed to it once durable: they need no claim (DeliveryHandOff).
    const untake = takeLeasedDeliveries(this.rt.deps.sql, {
      reserve: (n) => {
        const k = this.running ? Math.max(0, Math.min(n, this.freeSlots())) : 0;
        this.leasedNotStarted += k;
        // A delivery left unleased is for a claim: a freed slot must look (the work signal may come later, or, on an
        // instance that does not listen, not at all).
        if (k < n) this.dueHint = true;
        return k;
      },
      release: (n) => {
        this.leasedNotStarted -= n;
      },
      start: (claimed) => {
        // Stopped meanwhile: the leases end by themselves (released at the next start on SQLite).
        if (this.running) this.startAttempts(claimed);
        else this.leasedNotStarted -= claimed.length;
      },
    });
    this.unsubscribe = () => {
      unsubscribe();
      untake();
    };
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
    let ids: ClaimedAttempt[] = [];
    try {
      // READ COMMITTED on PostgreSQL (CLAIM_ISOLATION): the fan-out and the claim lock what they take.
      await this.rt.deps.sql.transaction(async (tx) => {
        // A body run again after a transient failure: the previous run's leases were rolled back.
        this.leasedNotStarted -= ids.length;
        ids = [];
        ids = await this.claimWork({ ...this.rt.deps, sql: tx }, 0, true);
      }, CLAIM_ISOLATION);
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

  /**
   * Inside a transaction (`deps.sql` is its handle): turns new outbox events into deliveries (`fanOutFirst`) and
   * leases a due attempt for every free slot (`extra`: slots about to be freed by the caller, counted as free).
   */
  private async claimWork(deps: CoreDeps, extra: number, fanOutFirst: boolean): Promise<ClaimedAttempt[]> {
    if (fanOutFirst) {
      while ((await fanOut(deps, FAN_OUT_ROUND)) === FAN_OUT_ROUND) {
        /* a full round: there may be more */
      }
    } else if (!this.dueHint) {
      // A chained claim only while deliveries may be waiting (dueHint); the loop's passes always claim.
      return [];
    }
    const free = this.freeSlots() + extra;
    if (free <= 0) return [];
    // The slots are held while the claim runs, so a claim running beside it (transactions of an engine that runs
    // them side by side) cannot take them too; those left unused are given back.
    this.leasedNotStarted += free;
    // Cleared before the claim reads: work announced from now on sets it again.
    this.dueHint = false;
    let ids: ClaimedAttempt[] = [];
    try {
      ids = await claimDueAttempts(deps, free);
    } catch (err) {
      this.dueHint = true;
      throw err;
    } finally {
      this.leasedNotStarted -= free - ids.length;
    }
    // As many as there were slots: more may be due.
    if (ids.length === free) this.dueHint = true;
    return ids;
  }

  private startAttempts(claimed: ClaimedAttempt[]): void {
    const { deps } = this.rt;
    this.leasedNotStarted -= claimed.length;
    for (const a of claimed) {
      this.inFlight.add(
        runScheduledAttempt(this.rt, a.d.id, 'scheduled', this.logCommit, a).then(
          // A failed attempt may have scheduled the next one sooner than the loop's sleep ends: it looks again.
          (failed) => {
            if (failed) this.wake();
          },
          (err: unknown) => deps.log.error({ deliveryId: a.d.id, err: String(err) }, 'webhook attempt crashed'),
        ),
        // A freed slot is worth a pass only while deliveries may be waiting for one (dueHint); otherwise the next
        // work signal, due time (a failed attempt wakes the loop to look at it) or poll starts it.
        () => {
          if (this.dueHint) this.wake();
        },
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

  private async sleep(): Promise<void> {
    const poll = this.o.pollMs ?? 200;
    const full = this.freeSlots() <= 0;
    let next: number | null = null;
    try {
      next = full ? null : await nextDueAt(this.rt.deps);
    } catch (err) {
      this.rt.deps.log.error({ err: String(err) }, 'webhook dispatcher could not read the next due attempt');
    }
    // A wake-up that arrived while the store was read is not lost: no sleep then.
    if (this.woken || !this.running) return;
    const wait = next === null ? poll : Math.max(0, Math.min(poll, next - this.rt.deps.clock.now()));
    return this.sleeper.sleep(wait);
  }
}
