// The webhook dispatcher loop: fans new outbox events out into deliveries and makes every due attempt. All of
// its state is in the store (deliveries with their next attempt time and a lease), so a kill at any moment
// loses nothing and the schedule resumes after a restart. On PostgreSQL any number of instances run this loop on
// one database: fan-out and claims lock what they take (`FOR UPDATE SKIP LOCKED`), so they take disjoint events
// and deliveries; an attempt whose instance died is claimed again by any instance once its lease expires
// (docs/team-server.md, "Claims, leases and takeover"). An async check's deliveries, written with its result, are
// leased for this loop in that same transaction while it has free slots, and handed to it once durable, so they need
// no claim (DeliveryHandOff in core/webhooks/deliveries.ts).
//
// No endpoint may take every slot: a responsive endpoint has at most three quarters of them (requests open at once),
// and one that is slow — an attempt of it open for a second or more now, or ended so within the last minute — at
// most `perEndpoint`, so a receiver that hangs until the 10 s timeout holds only its own slots while the other
// endpoints' deliveries go on, and a quick one is not held to a handful of requests at once (docs/webhooks.md, "How
// many attempts at once"). Twice as many attempts as may be open are leased (LEASED_PER_OPEN), in all and per
// webhook, on every path that leases — the loop's claim, the claim chained to an attempt's log, the hand-off — so the
// next attempt is durable and ready when a request ends; the attempts beyond the open limits wait for them
// (OpenRequests). A "slot" below is a lease, and the per-endpoint limits the claims keep are on leases (twice the
// requests); the open requests are OpenRequests'. The counts are this process's: each instance caps itself.
import type { CoreDeps } from '../core/context';
import type { CoreRuntime } from '../core/runtime';
import {
  ATTEMPT_LEASE_MS,
  cappedWebhooks,
  endLease,
  rereadLeasedAttempt,
  claimDueAttempts,
  CLAIM_ISOLATION,
  fanOut,
  nextDueAt,
  runScheduledAttempt,
  takeLeasedDeliveries,
  type AttemptCommit,
  type ClaimedAttempt,
  type EndpointCap,
} from '../core/webhooks/deliveries';
import { ATTEMPT_TIMEOUT_MS, closeAgents } from '../core/webhooks/sender';
import { onWork } from '../store/group-commit';
import { outsideTransaction } from '../store/tx-context';
import type { SqlQueries, TransactionOptions } from '../store/sql-port';
import { OpenRequests } from './open-requests';
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
   * Requests open at once, all webhooks together (default 64). Up to LEASED_PER_OPEN times as many attempts are
   * leased (held: waiting to open, open, or logging their answer until it is durable), and an async check's deliveries
   * are handed to the loop as they are written only while such a lease is free (DeliveryHandOff).
   */
  concurrency?: number;
  /**
   * Requests of one slow webhook open at once (default 8; LEASED_PER_OPEN times as many of its attempts held): one
   * with an attempt open for SLOW_ATTEMPT_MS or more, or whose attempt ended after as long within the last
   * SLOW_MEMORY_MS. A receiver that hangs until the attempt times out keeps this many requests once its first attempts
   * are seen hanging, and the others serve every other endpoint. Deliveries of a webhook at its limit wait, due, and
   * are claimed as its attempts end. At least 1.
   */
  perEndpoint?: number;
  /**
   * Requests of one responsive webhook open at once (default: `concurrency` less a quarter, at least `perEndpoint`;
   * LEASED_PER_OPEN times as many of its attempts held): what a hanging endpoint holds before it is seen as slow, so at
   * least a quarter of the slots always serves the others.
   */
  responsivePerEndpoint?: number;
  /** How long an attempt may stay open before its webhook counts as slow (default SLOW_ATTEMPT_MS). */
  slowAttemptMs?: number;
  /** How long a webhook stays slow after such an attempt ended (default SLOW_MEMORY_MS). */
  slowMemoryMs?: number;
}

/**
 * Attempts leased (held) per request that may be open, in all and per webhook. An attempt's slot was held from its
 * lease to its durable log, and the next attempt's lease, committed with that log, waited for the same sync before its
 * request could open: in a burst to one endpoint half of each slot's time went to the commit and its sync, not to the
 * request (docs/performance.md, "Attempts leased ahead of their requests"). With twice as many leased, the next
 * attempt of a webhook is durable and opens the moment a request of its ends.
 */
export const LEASED_PER_OPEN = 2;

/** What an attempt's lease must still have beyond its request's limit when it opens after a wait: room for its log. */
const LOG_MARGIN_MS = 5_000;

/** Default of DispatcherOptions.perEndpoint. */
export const PER_ENDPOINT_DEFAULT = 8;
/** An attempt open this long makes its webhook slow (DispatcherOptions.perEndpoint). */
export const SLOW_ATTEMPT_MS = 1000;
/** A webhook stays slow this long after an attempt of it that lasted SLOW_ATTEMPT_MS or more ended. */
export const SLOW_MEMORY_MS = 60_000;

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
   * Attempts held per webhook id: leased (not started yet), waiting to open, open, or logging. The leases per webhook
   * (LEASED_PER_OPEN times its limit of open requests) count these.
   */
  private readonly held = new Map<string, number>();
  /** The requests open at once, and the attempts waiting to open (a new one each start()). */
  private requests = this.newOpenRequests();
  /** When each attempt in flight started, by webhook id (oldest first): limitFor. */
  private readonly startedAt = new Map<string, Map<string, number>>();
  /** When an attempt that lasted SLOW_ATTEMPT_MS or more last ended, by webhook id: limitFor. */
  private readonly slowEndedAt = new Map<string, number>();

  /**
   * Webhooks at their per-endpoint limit when a claim ran or a hand-off passed them over: deliveries of theirs may
   * be due and waiting for one of their slots. The end of one of their attempts then claims for it (chained to its
   * log, or a claim of its deliveries alone: refill), whatever dueHint says; a claim that finds fewer of its due
   * deliveries than its room drops it.
   */
  private readonly capWaiting = new Set<string>();

  /**
   * The webhooks whose deliveries the loop's current sleep left out of its next due time (at their limit then): when
   * one of their attempts ends, a delivery of theirs coming due before the sleep ends must not wait for it.
   */
  private sleepPassedOver: ReadonlySet<string> = new Set();

  /**
   * The claims of this dispatcher run one at a time: each reads `held` and takes at most the room it shows, which a
   * claim beside it (PostgreSQL runs transactions side by side) would not see taken. A claim never waits on another
   * transaction's rows (SKIP LOCKED), so the order cannot deadlock.
   */
  private claims: Promise<unknown> = Promise.resolve();

  /** Claims for a freed slot of one webhook (refill) in flight, and their webhooks; stop() waits for them. */
  private readonly refills = new Set<Promise<void>>();
  private readonly refilling = new Set<string>();

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
  private async logCommit(webhookId: string, fn: (tx: SqlQueries) => Promise<void>, options: TransactionOptions | undefined): Promise<void> {
    let next: ClaimedAttempt[] = [];
    try {
      await this.rt.deps.sql.transaction(async (tx) => {
        // A body run again (PostgreSQL, after a serialization failure): the previous run's leases were rolled back.
        this.unhold(next);
        next = [];
        await fn(tx);
        if (!this.running || !this.chainsClaim(options)) return;
        try {
          next = await this.claimWork({ ...this.rt.deps, sql: tx }, 1, false, webhookId);
        } catch (err) {
          // The log above stays: the claim rolls back alone (a savepoint).
          this.rt.deps.log.error({ err: String(err) }, 'webhook claim after an attempt failed');
        }
      }, options);
    } catch (err) {
      // Rolled back with the transaction: those leases never happened, and the deliveries they took are due again.
      if (next.length > 0) this.dueHint = true;
      this.unhold(next);
      throw err;
    }
    this.startAttempts(next);
  }

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

  private get perEndpoint(): number {
    return Math.max(1, this.o.perEndpoint ?? PER_ENDPOINT_DEFAULT);
  }

  private get slowAttemptMs(): number {
    return this.o.slowAttemptMs ?? SLOW_ATTEMPT_MS;
  }

  private get leaseMs(): number {
    return this.rt.deps.config.leaseMs ?? ATTEMPT_LEASE_MS;
  }

  /**
   * LEASED_PER_OPEN where a lease leaves room for a wait as well as a request and its log (leases of at least twice
   * ATTEMPT_TIMEOUT_MS + LOG_MARGIN_MS: 30 s; the default is 60 s); 1 otherwise, as many leased as may be open.
   */
  private get leasedPerOpen(): number {
    return this.leaseMs >= 2 * (ATTEMPT_TIMEOUT_MS + LOG_MARGIN_MS) ? LEASED_PER_OPEN : 1;
  }

  /**
   * An attempt let in by `requests` that will not be sent after all: its room goes to the next one waiting, its lease
   * ends now and its delivery is claimed again (the loop looks at once). Resolves false (nothing was sent).
   */
  private async giveBack(requests: OpenRequests, a: ClaimedAttempt): Promise<false> {
    requests.leave(a.d.webhook_id);
    await this.endUnusedLease(a);
    this.dueHint = true;
    this.wake();
    return false;
  }

  /** An attempt that will not be sent gives its lease back (endLease); a failure only leaves it to run out. */
  private async endUnusedLease(a: ClaimedAttempt): Promise<void> {
    if (a.leaseUntil === undefined) return;
    try {
      await endLease(this.rt.deps, a.d.id, a.leaseUntil);
    } catch (err) {
      this.rt.deps.log.warn({ deliveryId: a.d.id, err: String(err) }, 'webhook lease not given back (it runs out instead)');
    }
  }

  /** The most requests any webhook may have open: a responsive one's limit. */
  private get responsivePerEndpoint(): number {
    const c = this.concurrency;
    return Math.max(this.perEndpoint, this.o.responsivePerEndpoint ?? c - Math.floor(c / 4));
  }

  /** The most attempts any webhook may hold (lease): LEASED_PER_OPEN times a responsive one's open requests. */
  private get responsiveHeld(): number {
    return this.leasedPerOpen * this.responsivePerEndpoint;
  }

  /** The attempts webhook `webhookId` may hold now: LEASED_PER_OPEN times the requests it may have open. */
  private heldLimitFor(webhookId: string): number {
    return this.leasedPerOpen * this.limitFor(webhookId);
  }

  private newOpenRequests(): OpenRequests {
    return new OpenRequests(
      () => this.concurrency,
      (webhookId) => this.limitFor(webhookId),
    );
  }

  /**
   * The requests webhook `webhookId` may have open now: responsivePerEndpoint, or perEndpoint while it is slow (an
   * attempt of it open for slowAttemptMs or more, or one that took as long ended within SLOW_MEMORY_MS). Wall time,
   * not the service's clock: it is about how long real requests take.
   */
  private limitFor(webhookId: string): number {
    const now = performance.now();
    const slowEnd = this.slowEndedAt.get(webhookId);
    if (slowEnd !== undefined) {
      if (now - slowEnd < (this.o.slowMemoryMs ?? SLOW_MEMORY_MS)) return this.perEndpoint;
      this.slowEndedAt.delete(webhookId);
    }
    const oldest = this.startedAt.get(webhookId)?.values().next().value;
    return oldest !== undefined && now - oldest >= this.slowAttemptMs ? this.perEndpoint : this.responsivePerEndpoint;
  }

  /** A webhook's attempts held beyond what its limit leaves: counted against responsiveHeld, it is at its limit alike. */
  private effectiveHeld(webhookId: string): number {
    return this.heldBy(webhookId) + this.responsiveHeld - this.heldLimitFor(webhookId);
  }

  private atLimit(webhookId: string, freeing = false): boolean {
    return this.heldBy(webhookId) - (freeing ? 1 : 0) >= this.heldLimitFor(webhookId);
  }

  private heldBy(webhookId: string): number {
    return this.held.get(webhookId) ?? 0;
  }

  private hold(webhookId: string): void {
    this.held.set(webhookId, this.heldBy(webhookId) + 1);
  }

  private release(webhookId: string): void {
    const n = this.heldBy(webhookId) - 1;
    if (n > 0) this.held.set(webhookId, n);
    else this.held.delete(webhookId);
  }

  /** Leases that never happened (their transaction rolled back) or whose attempts will not start: slots given back. */
  private unhold(claimed: readonly ClaimedAttempt[]): void {
    this.leasedNotStarted -= claimed.length;
    for (const a of claimed) this.release(a.d.webhook_id);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.requests = this.newOpenRequests();
    const unsubscribe = onWork(this.rt.deps.sql, 'outbox', () => {
      this.dueHint = true;
      this.wake();
    });
    // Deliveries written by this process's transactions (an async check's completion) are leased for this loop in
    // its free slots as they are written, and handed to it once durable: they need no claim (DeliveryHandOff).
    const untake = takeLeasedDeliveries(this.rt.deps.sql, {
      reserve: (webhookId) => {
        const atLimit = this.atLimit(webhookId);
        if (this.running && this.freeSlots() > 0 && !atLimit) {
          this.leasedNotStarted += 1;
          this.hold(webhookId);
          return true;
        }
        // A delivery left unleased is for a claim: a freed slot must look (the work signal may come later, or, on an
        // instance that does not listen, not at all) — only one of its webhook's own slots when that was what was
        // missing: any freed slot would claim across all webhooks, reading past this webhook's whole backlog (every
        // due delivery of it) to find none of another's.
        if (this.running && atLimit) {
          this.capWaiting.add(webhookId);
          return 'own-slot';
        }
        this.dueHint = true;
        return false;
      },
      release: (webhookId) => {
        this.leasedNotStarted -= 1;
        this.release(webhookId);
        // A slot given back (its transaction rolled back): deliveries may be waiting for it.
        if (this.capWaiting.has(webhookId)) this.refill(webhookId);
      },
      start: (claimed) => {
        if (this.running) {
          this.startAttempts(claimed);
          return;
        }
        // Stopped meanwhile (the service stops its loops before its queue's worker, whose completions hand deliveries
        // over): not sent, and their leases end now, so another instance — or this one's next start — need not wait
        // them out.
        this.unhold(claimed);
        for (const a of claimed) void this.endUnusedLease(a);
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

  /**
   * Stops claiming, lets the requests open finish (each is bounded by the 10 s timeout) and their logs, gives back the
   * leases of attempts still waiting to open (not sent), and closes sockets.
   */
  async stop(): Promise<void> {
    this.running = false;
    // Attempts waiting to open, and those a claim still running leases, are not sent: they give their leases back.
    this.requests.close();
    this.unsubscribe?.();
    this.wake();
    await this.loopDone;
    await Promise.allSettled([...this.refills]);
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
        this.unhold(ids);
        ids = [];
        ids = await this.claimWork({ ...this.rt.deps, sql: tx }, 0, true);
      }, CLAIM_ISOLATION);
    } catch (err) {
      // Rolled back: the deliveries it leased are due again.
      if (ids.length > 0) this.dueHint = true;
      this.unhold(ids);
      throw err;
    }
    this.startAttempts(ids);
    return ids.length;
  }

  /** Attempts that may still be leased: LEASED_PER_OPEN times `concurrency`, less those held. */
  private freeSlots(): number {
    return this.leasedPerOpen * this.concurrency - this.inFlight.size - this.leasedNotStarted;
  }

  /**
   * Inside a transaction (`deps.sql` is its handle): turns new outbox events into deliveries (`fanOutFirst`) and
   * leases a due attempt for every free slot (`extra`: slots about to be freed by the caller, counted as free), no
   * webhook beyond its per-endpoint limit. `freeing`: the webhook of the attempt whose slot is about to be freed
   * (a chained claim), counted as holding one attempt fewer.
   */
  private async claimWork(deps: CoreDeps, extra: number, fanOutFirst: boolean, freeing?: string): Promise<ClaimedAttempt[]> {
    if (fanOutFirst) {
      while ((await fanOut(deps, FAN_OUT_ROUND)) === FAN_OUT_ROUND) {
        /* a full round: there may be more */
      }
    } else if (!this.dueHint && !(freeing !== undefined && this.capWaiting.has(freeing))) {
      // A chained claim only while deliveries may be waiting (dueHint, or for the slot being freed: capWaiting); the
      // loop's passes always claim.
      return [];
    }
    // Only the freed slot's webhook is known to have deliveries waiting (capWaiting, not dueHint): the claim takes
    // only its (a claim of every webhook would read past its backlog looking for others').
    const only = fanOutFirst || this.dueHint ? undefined : freeing;
    return this.claimSlots(deps, this.freeSlots() + extra, only, freeing);
  }

  /**
   * Leases up to `free` due attempts (only webhook `only`'s when given), no webhook beyond its per-endpoint limit;
   * `freeing` as in claimWork.
   */
  private async claimSlots(deps: CoreDeps, free: number, only: string | undefined, freeing: string | undefined): Promise<ClaimedAttempt[]> {
    if (free <= 0) return [];
    // The slots are held while the claim runs, so a claim running beside it (transactions of an engine that runs
    // them side by side) cannot take them too; those left unused are given back.
    this.leasedNotStarted += free;
    // Cleared before the claim reads (a claim of every webhook): work announced from now on sets it again.
    if (only === undefined) this.dueHint = false;
    let ids: ClaimedAttempt[] = [];
    try {
      ids = await this.oneClaimAtATime(async () => {
        const cap = this.endpointCap(freeing, only);
        const claimed = await claimDueAttempts(deps, free, cap);
        for (const a of claimed) this.hold(a.d.webhook_id);
        this.noteCapped(cap, free, claimed, freeing);
        return claimed;
      });
    } catch (err) {
      if (only === undefined) this.dueHint = true;
      throw err;
    } finally {
      this.leasedNotStarted -= free - ids.length;
    }
    // As many as there were slots: more may be due.
    if (ids.length === free && only === undefined) this.dueHint = true;
    return ids;
  }

  private oneClaimAtATime<T>(claim: () => Promise<T>): Promise<T> {
    const run = this.claims.then(claim);
    this.claims = run.catch(() => undefined);
    return run;
  }

  /**
   * The limit a claim keeps, as things stand when it starts (a copy: attempts that end while it runs change the live
   * counts); `freeing` (a chained claim's attempt, about to end) counts one attempt fewer.
   */
  private endpointCap(freeing: string | undefined, only: string | undefined): EndpointCap {
    // Each webhook's limit as the room left below responsivePerEndpoint: a slow one counts as holding that much more.
    const held = new Map<string, number>();
    for (const id of this.held.keys()) held.set(id, this.effectiveHeld(id) - (id === freeing ? 1 : 0));
    for (const id of this.slowEndedAt.keys()) if (!held.has(id)) held.set(id, this.effectiveHeld(id));
    return { perEndpoint: this.responsiveHeld, held, ...(only === undefined ? {} : { only }) };
  }

  /**
   * After a claim of up to `limit`, by the room each webhook had in it: one that got all its room (or had none, or got
   * `limit`) may have deliveries still waiting for one of its slots (capWaiting); one that got less had no more due
   * (unless the claim filled every slot it asked for: dueHint). A claim of one webhook's deliveries (`only`) tells nothing of the others'. One
   * still waiting whose slot freed while the claim ran (an attempt that ended meanwhile saw it before this) gets a
   * pass.
   */
  private noteCapped(cap: EndpointCap, limit: number, claimed: readonly ClaimedAttempt[], freeing: string | undefined): void {
    const got = new Map<string, number>();
    for (const a of claimed) got.set(a.d.webhook_id, (got.get(a.d.webhook_id) ?? 0) + 1);
    const judge = (id: string): void => {
      if ((got.get(id) ?? 0) >= Math.min(limit, cap.perEndpoint - (cap.held.get(id) ?? 0))) this.capWaiting.add(id);
      else this.capWaiting.delete(id);
    };
    if (cap.only !== undefined) judge(cap.only);
    else for (const id of new Set([...this.capWaiting, ...cap.held.keys(), ...got.keys()])) judge(id);
    // One still waiting whose slot freed while the claim ran (an attempt that ended meanwhile saw it before this)
    // gets a pass.
    for (const id of this.capWaiting) {
      if (!this.atLimit(id, id === freeing)) {
        this.wake();
        break;
      }
    }
  }

  private attemptStarted(webhookId: string, deliveryId: string): void {
    let started = this.startedAt.get(webhookId);
    if (!started) this.startedAt.set(webhookId, (started = new Map()));
    started.set(deliveryId, performance.now());
  }

  /** The attempt's request ended (answered, failed or timed out): one that took SLOW_ATTEMPT_MS or more makes its webhook slow. */
  private attemptAnswered(webhookId: string, deliveryId: string): void {
    const started = this.startedAt.get(webhookId);
    const t = started?.get(deliveryId);
    if (t === undefined) return;
    started!.delete(deliveryId);
    if (started!.size === 0) this.startedAt.delete(webhookId);
    const now = performance.now();
    if (now - t >= this.slowAttemptMs) this.slowEndedAt.set(webhookId, now);
  }

  private startAttempts(claimed: ClaimedAttempt[]): void {
    const { deps } = this.rt;
    const requests = this.requests;
    this.leasedNotStarted -= claimed.length;
    for (const a of claimed) {
      const webhookId = a.d.webhook_id;
      let open = false;
      // The request has ended (or none was made): its room goes to the next attempt waiting, which opens at once,
      // while this one logs.
      const ended = (): void => {
        if (!open) return;
        open = false;
        this.attemptAnswered(webhookId, a.d.id);
        requests.leave(webhookId);
      };
      // The attempt logs once its request has ended: how long that took is known then.
      const commit: AttemptCommit = (fn, options) => {
        ended();
        return this.logCommit(webhookId, fn, options);
      };
      const attempt = async (): Promise<boolean> => {
        const entered = requests.enter(webhookId);
        const waited = entered !== true;
        // Stopped while it waited: not sent; its lease ends now, so another instance need not wait it out.
        if (waited && !(await entered)) {
          await this.endUnusedLease(a);
          return false;
        }
        // What its claim read of the delivery and its webhook is used only by an attempt that opens at once; one that
        // waited reads them again, so a webhook paused, deleted, moved or given a new secret meanwhile — by this process
        // or another — is seen, as by an attempt claimed after the change; and only while the lease is still its own.
        let claimed: ClaimedAttempt | undefined = a;
        if (waited) {
          try {
            claimed = await rereadLeasedAttempt(deps, a);
          } catch (err) {
            // Not sent, and not a crashed attempt.
            deps.log.warn({ deliveryId: a.d.id, err: String(err) }, 'webhook attempt could not read its delivery again: claimed again');
            return this.giveBack(requests, a);
          }
          // Gone, or its lease is no longer this attempt's: nothing to send.
          if (!claimed) {
            requests.leave(webhookId);
            return false;
          }
        }
        // Too little of its lease left for its request (up to ATTEMPT_TIMEOUT_MS) and its log: not sent. Its webhook
        // turned slow with many of its attempts leased, or the store was slow to make the lease durable (or to read it
        // again).
        if (waited && a.leaseUntil !== undefined && a.leaseUntil - deps.clock.now() < ATTEMPT_TIMEOUT_MS + LOG_MARGIN_MS) return this.giveBack(requests, a);
        open = true;
        this.attemptStarted(webhookId, a.d.id);
        try {
          return await runScheduledAttempt(this.rt, a.d.id, 'scheduled', commit, claimed);
        } finally {
          ended();
        }
      };
      this.inFlight.add(
        attempt().then(
          // A failed attempt may have scheduled the next one sooner than the loop's sleep ends: it looks again.
          (failed) => {
            if (failed) this.wake();
          },
          (err: unknown) => deps.log.error({ deliveryId: a.d.id, err: String(err) }, 'webhook attempt crashed'),
        ),
        // A freed slot is worth a pass only while deliveries may be waiting for one (dueHint, or for a slot of this
        // webhook: capWaiting, or the sleep did not look at this webhook's); otherwise the next work signal, due time
        // (a failed attempt wakes the loop to look at it) or poll starts it.
        () => {
          this.release(webhookId);
          // (A slot the claim chained to the attempt's log filled again is no freed slot of its webhook.)
          const freed = !this.atLimit(webhookId);
          if (this.dueHint) this.wake();
          else if (freed && this.capWaiting.has(webhookId)) this.refill(webhookId);
          else if (freed && this.sleepPassedOver.has(webhookId)) this.wake();
        },
      );
    }
  }

  /**
   * A slot of webhook `webhookId` is free and deliveries of its may be waiting for one (capWaiting; nothing else is
   * known to be due): a claim of its deliveries alone, in a transaction of its own. A pass of the loop would claim
   * across every webhook, reading past this one's whole backlog (every due delivery of it) to find none of another's;
   * this claim reads from its oldest due delivery. One at a time per webhook: the next freed slot finds it running.
   */
  private refill(webhookId: string): void {
    if (!this.running || this.refilling.has(webhookId) || this.freeSlots() <= 0 || this.atLimit(webhookId)) return;
    // Outside the caller's transaction, all of it: a hand-off gives a slot back from inside the transaction that wrote
    // the delivery (its lease unused, or its body run again), and what follows the claim — the attempts it starts,
    // each committing its log in a transaction of its own — would otherwise run in that transaction's async context,
    // where the store refuses the service's port (the attempt crashed, its delivery held until its lease expired).
    outsideTransaction(() => this.refillNow(webhookId));
  }

  private refillNow(webhookId: string): void {
    this.refilling.add(webhookId);
    let next: ClaimedAttempt[] = [];
    // Its own transaction, whatever called it (an attempt's end, a claim, a hand-off giving a slot back).
    const run = this.rt.deps.sql
      .transaction(async (tx) => {
        // A body run again after a transient failure: the previous run's leases were rolled back.
        this.unhold(next);
        next = [];
        next = await this.claimSlots({ ...this.rt.deps, sql: tx }, this.freeSlots(), webhookId, undefined);
      }, CLAIM_ISOLATION)
      .then(
        () => {
          // Stopped meanwhile: started all the same, they find the gate closed and give their leases back (stop()
          // waits for this claim, then for them).
          this.startAttempts(next);
        },
        (err: unknown) => {
          this.unhold(next);
          this.rt.deps.log.error({ err: String(err) }, 'webhook claim for a freed slot failed');
          this.wake(); // the loop's pass claims instead
        },
      )
      .finally(() => {
        this.refilling.delete(webhookId);
        this.refills.delete(run);
        // Slots freed while it ran found it running: they are looked at now (refill does nothing without a free slot,
        // so this cannot spin). Once none of its due deliveries waits, one that comes due before the loop's sleep
        // ends (a retry the sleep passed over) must not wait for it.
        if (this.capWaiting.has(webhookId)) this.refill(webhookId);
        else if (this.running && this.sleepPassedOver.has(webhookId)) this.wake();
      });
    this.refills.add(run);
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
    // Deliveries of webhooks at their limit are not due for this loop: one of their attempts' end wakes it.
    const capped = cappedWebhooks(this.endpointCap(undefined, undefined));
    this.sleepPassedOver = new Set(capped);
    try {
      next = full ? null : await nextDueAt(this.rt.deps, capped);
    } catch (err) {
      this.rt.deps.log.error({ err: String(err) }, 'webhook dispatcher could not read the next due attempt');
    }
    // A wake-up that arrived while the store was read is not lost: no sleep then.
    if (this.woken || !this.running) return;
    const wait = next === null ? poll : Math.max(0, Math.min(poll, next - this.rt.deps.clock.now()));
    return this.sleeper.sleep(wait);
  }
}
