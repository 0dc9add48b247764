// The webhook dispatcher loop: fans new outbox events out into deliveries and makes every due attempt. All of
// its state is in the store (deliveries with their next attempt time and a lease), so a kill at any moment
// loses nothing and the schedule resumes after a restart.
import type { CoreRuntime } from '../core/runtime';
import { claimDue, fanOut, nextDueAt, runScheduledAttempt } from '../core/webhooks/deliveries';
import { closeAgents } from '../core/webhooks/sender';
import { InFlight, WakeableSleep } from './wakeable-sleep';

export interface DispatcherOptions {
  /** Longest sleep between looks at the outbox (events arrive from the verification worker without a wake-up). */
  pollMs?: number;
  /** The shorter poll used for a second after a pass found work, so a stream of events is not delayed by pollMs. */
  busyPollMs?: number;
  concurrency?: number;
}

export class WebhookDispatcher {
  private running = false;
  private readonly inFlight = new InFlight();
  private readonly sleeper = new WakeableSleep();
  private loopDone: Promise<void> | undefined;
  /** Wall-clock time of the last pass that found work (not the injected clock: this paces real polling). */
  private lastBusyMs = 0;

  constructor(
    private readonly rt: CoreRuntime,
    private readonly o: DispatcherOptions = {},
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  wake(): void {
    this.sleeper.wake();
  }

  /** Stops claiming, lets attempts in flight finish (each is bounded by the 10 s timeout) and closes sockets. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loopDone;
    await this.inFlight.settled();
    await closeAgents(this.rt);
  }

  /** One pass: fan out everything waiting and start every due attempt. Returns how many attempts started. */
  tick(): number {
    const { deps } = this.rt;
    while (fanOut(deps) > 0) {
      this.lastBusyMs = Date.now();
    }
    const free = (this.o.concurrency ?? 8) - this.inFlight.size;
    if (free <= 0) return 0;
    const ids = claimDue(deps, free);
    if (ids.length > 0) this.lastBusyMs = Date.now();
    for (const id of ids) {
      this.inFlight.add(
        runScheduledAttempt(this.rt, id).catch((err: unknown) => deps.log.error({ deliveryId: id, err: String(err) }, 'webhook attempt crashed')),
        () => this.wake(),
      );
    }
    return ids.length;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      try {
        this.tick();
      } catch (err) {
        this.rt.deps.log.error({ err: String(err) }, 'webhook dispatcher pass failed');
      }
      await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    const idlePoll = this.o.pollMs ?? 200;
    const poll = Date.now() - this.lastBusyMs < 1000 ? Math.min(idlePoll, this.o.busyPollMs ?? 10) : idlePoll;
    const full = this.inFlight.size >= (this.o.concurrency ?? 8);
    const next = full ? null : nextDueAt(this.rt.deps);
    const wait = next === null ? poll : Math.max(0, Math.min(poll, next - this.rt.deps.clock.now()));
    return this.sleeper.sleep(wait);
  }
}
