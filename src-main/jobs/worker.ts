// Runs queued jobs: claims due jobs, runs the handler for their kind, completes or retries them. It sleeps until
// the next due job (or a wake-up from enqueue), so an idle service does no work. Handlers must be idempotent.
// Claims, completions and retries are transactions of the SQL port, so in a service they ride the store's group
// commit: they share fsyncs with each other and with the requests being served. A handler runs outside any
// transaction (it may call a provider); it writes its result in a transaction of its own (Job.completeWith).
import type { Clock } from '../core/clock';
import type { Logger } from '../core/context';
import type { SqlQueries } from '../store/sql-port';
import { faultPoint } from '../core/fault-points';
import { claim, complete, nextRunAt, retry, takeLeasedJobs, type Job } from './queue';
import { InFlight, WakeableSleep } from './wakeable-sleep';

export type JobHandler = (job: Job) => Promise<void>;

export interface WorkerOptions {
  /** The store (the SQL port itself: the worker opens its own transactions). */
  sql: SqlQueries;
  clock: Clock;
  log: Logger;
  handlers: Record<string, JobHandler>;
  leaseMs?: number;
  /** Jobs in flight at once (default 32): each mostly waits on a provider or a shared commit, not on CPU. */
  concurrency?: number;
  /** Backoff before a failed job runs again. */
  retryDelayMs?: (attempt: number) => number;
  /** Longest sleep between polls; bounds how late a job runs if a wake-up is missed (e.g. a manual clock). */
  maxIdleMs?: number;
}

export class JobWorker {
  private running = false;
  private readonly inFlight = new InFlight();
  private readonly sleeper = new WakeableSleep();
  private loopDone: Promise<void> | undefined;
  /** A claim is being committed: its jobs are leased but not yet in flight (drain must not stop there). */
  private claiming = false;
  /**
   * A wake-up came while the loop read the next due time (asynchronous): it would find no sleep to cut short and be
   * lost, so the loop claims again instead of sleeping.
   */
  private woken = false;
  /** Slots held for jobs being written leased for this worker, not yet durable (JobHandOff). */
  private reserved = 0;
  /**
   * Jobs may be waiting in the queue: set by a wake-up (a job written queued), by a claim that filled every slot it
   * asked for, by a job's failure (its retry), and after every sleep (the poll). A freed slot claims only while it is
   * set: with every job handed over as it is written, a claim on each job's end found nothing, and held the free slots
   * while its commit ran, so the jobs written meanwhile could not be handed over and went through the queue.
   */
  private dueHint = true;
  /** The loop is in its sleep (drain waits for it: a claim of its own may still be on its way otherwise). */
  private sleeping = false;
  private loopEnded = true;
  private untake: (() => void) | undefined;

  constructor(private readonly o: WorkerOptions) {}

  private get concurrency(): number {
    return this.o.concurrency ?? 32;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.dueHint = true;
    // Jobs enqueued by this process's transactions (an async check's submission) are leased for this worker in its
    // free slots as they are written, and run once durable: no claim (JobHandOff in queue.ts).
    const kinds = new Set(Object.keys(this.o.handlers));
    this.untake = takeLeasedJobs(this.o.sql, {
      leaseMs: this.o.leaseMs ?? 60_000,
      reserve: (kind) => {
        if (!this.running || !kinds.has(kind) || this.inFlight.size + this.reserved >= this.concurrency) return false;
        this.reserved += 1;
        return true;
      },
      release: () => {
        this.reserved -= 1;
        // A slot given back (its transaction failed): a job written queued meanwhile may be waiting for it.
        this.wake();
      },
      start: (jobs) => {
        this.reserved -= jobs.length;
        // Stopped meanwhile: the leases end by themselves (released at the next start on SQLite).
        if (!this.running) return;
        faultPoint('after-claim');
        for (const job of jobs) this.inFlight.add(this.run(job), () => this.slotFreed());
      },
    });
    this.loopEnded = false;
    this.loopDone = this.loop().finally(() => {
      this.loopEnded = true;
    });
  }

  /** Called after an enqueue so a due job starts without waiting for the next poll. */
  wake(): void {
    this.dueHint = true;
    this.woken = true;
    this.sleeper.wake();
  }

  /** A job ended: its slot is free. The loop claims for it only while jobs may be waiting (dueHint). */
  private slotFreed(): void {
    if (!this.dueHint) return;
    this.woken = true;
    this.sleeper.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.untake?.();
    this.wake();
    await this.loopDone;
    await this.inFlight.settled();
  }

  /** Waits until no job is due now, none is in flight and the loop sleeps (for tests and graceful drain). */
  async drain(timeoutMs = 10_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const next = await nextRunAt(this.o.sql, Object.keys(this.o.handlers));
      if (this.inFlight.size === 0 && this.reserved === 0 && !this.claiming && (this.sleeping || this.loopEnded) && (next === null || next > this.o.clock.now())) return;
      if (Date.now() > end) throw new Error('drain timed out');
      this.wake();
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  private async loop(): Promise<void> {
    const kinds = Object.keys(this.o.handlers);
    const concurrency = this.concurrency;
    const leaseMs = this.o.leaseMs ?? 60_000;
    while (this.running) {
      let claimed: Job[] = [];
      const free = concurrency - this.inFlight.size - this.reserved;
      if (free <= 0) {
        // Every slot is taken: nothing can be claimed before one frees, and a freed slot wakes the loop (the hint set:
        // jobs may be waiting). Without this the loop read the next due time again and again, a due job making each
        // sleep 0 ms, for as long as the slots stayed full.
        // (No await between the count above and the nap: no slot can free unseen.)
        this.dueHint = true;
        this.woken = false;
        await this.nap(this.o.maxIdleMs ?? 1000);
        continue;
      }
      if (this.dueHint) {
        // Cleared before the claim reads: a job written queued from now on sets it again.
        this.dueHint = false;
        this.claiming = true;
        // The free slots are held while the claim runs (its commit and sync take a while), so that no job handed to
        // this worker meanwhile takes one of them too (JobHandOff); the claimed jobs then hold them as they run.
        this.reserved += free;
        try {
          // One transaction claims every free slot's job; the lease is durable before the handler runs.
          claimed = await claim(this.o.sql, this.o.clock.now(), kinds, leaseMs, free);
        } catch (err) {
          this.o.log.error({ err }, 'job claim failed');
          this.dueHint = true;
        } finally {
          this.reserved -= free;
          this.claiming = false;
        }
        // As many as it asked for: more may be due.
        if (claimed.length === free) this.dueHint = true;
      }
      if (claimed.length > 0) faultPoint('after-claim');
      for (const job of claimed) this.inFlight.add(this.run(job), () => this.slotFreed());
      if (claimed.length > 0 && this.dueHint && this.inFlight.size + this.reserved < concurrency) continue;
      await this.sleep(kinds);
      // Whatever ended the sleep (the next due job's time, the poll, a wake-up): look.
      this.dueHint = true;
    }
  }

  private async run(job: Job): Promise<void> {
    const handler = this.o.handlers[job.kind];
    // Whether the handler's own (now committed) write completed the job (Job.completeWith).
    let completedWith: boolean | null = null;
    const withCompletion: Job = {
      ...job,
      completeWith: (write) => async (tx) => {
        await write(tx);
        completedWith = await complete(tx, this.o.clock.now(), job);
      },
    };
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(withCompletion);
    } catch (err) {
      // A write that completed the job and then failed rolled the completion back with it: the lease is still ours.
      await this.fail(job, err);
      return;
    }
    if (completedWith !== null) {
      if (!completedWith) this.o.log.warn({ jobId: job.id, kind: job.kind }, 'job completion refused: lease lost');
      return;
    }
    // The slot stays taken until the completion is committed. A crash before that only repeats the (idempotent)
    // job: nothing a client is told waits on this write.
    try {
      const done = await complete(this.o.sql, this.o.clock.now(), job);
      if (!done) this.o.log.warn({ jobId: job.id, kind: job.kind }, 'job completion refused: lease lost');
    } catch (err) {
      this.o.log.error({ jobId: job.id, kind: job.kind, err: String(err) }, 'job completion failed');
    }
  }

  private async fail(job: Job, err: unknown): Promise<void> {
    try {
      const now = this.o.clock.now();
      const delay = this.o.retryDelayMs?.(job.attempts) ?? Math.min(60_000, 500 * 2 ** job.attempts);
      const outcome = await retry(this.o.sql, now, job, now + delay, err instanceof Error ? err.message : String(err));
      // Its retry is a job due later, now written: the loop's next sleep must end by then (the freed slot's wake-up
      // makes the loop read the next due time).
      this.dueHint = true;
      this.o.log.warn({ jobId: job.id, kind: job.kind, attempt: job.attempts, outcome, err: String(err) }, 'job failed');
    } catch (e) {
      this.o.log.error({ jobId: job.id, kind: job.kind, err: String(e) }, 'job retry could not be recorded');
    }
  }

  private async sleep(kinds: string[]): Promise<void> {
    this.woken = false;
    const next = await nextRunAt(this.o.sql, kinds);
    if (this.woken || !this.running) return;
    const maxIdle = this.o.maxIdleMs ?? 1000;
    const wait = next === null ? maxIdle : Math.max(0, Math.min(maxIdle, next - this.o.clock.now()));
    await this.nap(wait);
  }

  /** Sleeps `ms`, or until woken (drain sees the loop asleep meanwhile). */
  private async nap(ms: number): Promise<void> {
    this.sleeping = true;
    try {
      await this.sleeper.sleep(ms);
    } finally {
      this.sleeping = false;
    }
  }
}
