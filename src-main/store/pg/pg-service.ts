// PostgreSQL as the service's store (issue 17, docs/team-server.md): the SQL port the core runs on when `serve` is
// given `--database postgres://…`, shared by any number of instances.
//
// - Every top-level transaction is SERIALIZABLE and is run again when PostgreSQL reports a serialization failure or
//   a deadlock (40001, 40P01), with a jittered pause, for as long as its time budget (RETRY_BUDGET_MS) lasts; then
//   it fails with 503 STORAGE_UNAVAILABLE and Retry-After, never a bare database error. SQLite's transactions are
//   serializable (one writer at a time), so the core's read-then-write transactions (a wallet's balance before a
//   charge, a refresh token before its rotation, an idempotency key before its execution) keep the meaning they
//   have on SQLite without a lock written into each of them. A transaction body may therefore run more than once:
//   it does nothing but the store's statements (the port's rule, docs/team-server.md "The SQL port").
// - Transactions that all write the same rows (an organization's live charges: its wallet and its audit chain's
//   head) name a queue (TransactionOptions.queue) and wait for each other on its lock before they begin, instead of
//   failing one another at their writes and running again: retries alone let the last of 60 concurrent charges lose
//   every round until its tries ran out (a 500).
// - Work signals (store/work-signals.ts) become `pg_notify('vc_work', topic)` sent once the raising transaction has
//   committed (never for a rollback), to every instance — and one LISTEN connection per instance calls the local
//   listeners. Not inside the transaction: PostgreSQL serialises the commits of every transaction that sent a NOTIFY
//   (a cluster-wide lock held through the commit), which would put every job and outbox write of every instance in
//   one line. The topics of the transactions committed in one turn go in one statement. The connection comes back by
//   itself after a failure; the loops' polls cover a lost signal.
// - The same connection listens to the channels of the database's own triggers (store/notifications.ts: live change
//   events and settings changes, PostgreSQL migration 18) for whoever asked (`listenTo`); one connection per instance.
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { AppError } from '../../../src-shared/app-error';
import { LIVE_DEMAND_LOCK, SERVING_LOCK, type ChannelListener, type NotificationSource } from '../notifications';
import type { SqlQueries, TransactionOptions } from '../sql-port';
import { announceWorkThrough, deliverWork, type WorkTopic } from '../work-signals';
import { outsideTransaction } from '../tx-context';
import { isRetryableTransactionError, PgPort, QueueWaitTimeout, type PgPortOptions } from './pg-port';

export const WORK_CHANNEL = 'vc_work';
const TOPICS: readonly WorkTopic[] = ['outbox', 'jobs'];

/**
 * How long one transaction may go on meeting serialization failures (and waiting for its queue) before it gives up
 * with 503 STORAGE_UNAVAILABLE: the time a request may spend on one write, not a count of tries (a count ran out in
 * a few hundred ms behind 60 concurrent charges of one wallet).
 */
export const RETRY_BUDGET_MS = 10_000;
/** What a transaction that gave up tells its client to wait (Retry-After), in seconds. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

export interface PgServiceOptions extends PgPortOptions {
  /** How long one transaction is run again after serialization failures, queue wait included (default RETRY_BUDGET_MS). */
  retryBudgetMs?: number;
  /** Where the LISTEN connection reports that it was lost (it reconnects by itself). */
  warn?: (message: string) => void;
  /** Listen for other instances' work signals (default true; a CLI command that serves nothing turns it off). */
  listen?: boolean;
}

/**
 * The work topics raised by the transaction running in this async context, sent once it has committed; `open` while it
 * runs.
 */
interface RaisedTopics {
  open: boolean;
  topics: Set<WorkTopic>;
}
const raisedInTransaction = new AsyncLocalStorage<RaisedTopics>();

/** How long holdServingLock waits for the LISTEN connection before the start fails. */
const SERVING_LOCK_WAIT_MS = 30_000;
/**
 * How long one attempt to open the LISTEN connection may take: a server that drops packets (rather than refusing) would
 * otherwise hold it for the system's TCP connect timeout (about two minutes on Linux), and the serving lock's wait with it.
 */
const LISTEN_CONNECT_TIMEOUT_MS = 10_000;

export class PgServicePort extends PgPort implements NotificationSource {
  /** Topics whose NOTIFY is due (committed, not yet sent), sent together on the next turn. */
  private dueTopics = new Set<WorkTopic>();
  private sending = false;
  private readonly retryBudgetMs: number;
  /** Transactions run again after a serialization failure, since start (for the bench and the logs). */
  retries = 0;
  /** Transactions that gave up (their budget spent), since start; and how many since the last warning about them. */
  gaveUp = 0;
  private gaveUpUnlogged = 0;
  private gaveUpLoggedAt = -Infinity;
  private listener: pg.Client | null = null;
  private listening = false;
  private reconnect: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The connection being made (listenTo waits for it: its LISTEN is issued by the connection). */
  private connecting: Promise<void> | null = null;
  /** Channels listened to beside the work signals, and who listens to each (listenTo). */
  private readonly channels = new Map<string, Set<ChannelListener>>();
  /** Live events wanted (demandLiveEvents), and the connection that holds the demand lock for it, if any. */
  private liveDemand = false;
  private demandHeldBy: pg.Client | null = null;
  private demandChain: Promise<void> = Promise.resolve();
  /** This instance serves (holdServingLock): every LISTEN connection holds SERVING_LOCK in shared mode. */
  private serving = false;
  /** Run when a new LISTEN connection took SERVING_LOCK again (the key may have been replaced while none held it). */
  private servingRetaken: (() => Promise<void>) | null = null;

  constructor(
    private readonly url: string,
    private readonly o: PgServiceOptions = {},
  ) {
    super(url, o);
    this.retryBudgetMs = o.retryBudgetMs ?? RETRY_BUDGET_MS;
    announceWorkThrough(this, (_handle, topic) => {
      // Only while its transaction runs: work started from a body outlives it (a refill, a listener), and a topic added
      // to a set already sent would never be.
      const raised = raisedInTransaction.getStore();
      if (raised?.open) raised.topics.add(topic);
      else this.notifySoon([topic]);
    });
  }

  override async transaction<T>(fn: (tx: SqlQueries) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const started = Date.now();
    const deadline = started + this.retryBudgetMs;
    if (options.queue === undefined) return this.attempts(fn, options, started, deadline);
    // A queue's transactions of this instance wait for their turn here first, so one connection of the pool at a time
    // waits for the queue's lock: a burst of one organization's charges would otherwise hold every connection of the
    // instance waiting for it, and every other request of the instance would wait for a connection.
    let release: () => void;
    try {
      release = await this.localTurn(options.queue, deadline);
    } catch (e) {
      throw this.busy(e, started, 0);
    }
    try {
      return await this.attempts(fn, options, started, deadline);
    } finally {
      release();
    }
  }

  /** This instance's transactions of each queue, in line: the promise the last one in line resolves when it is done. */
  private readonly queueTails = new Map<string, Promise<void>>();

  /** Resolves when the transactions of `queue` before this one are done, with the function that ends this one's turn. */
  private async localTurn(queue: string, deadline: number): Promise<() => void> {
    const before = this.queueTails.get(queue) ?? Promise.resolve();
    let done: () => void = () => undefined;
    const mine = new Promise<void>((r) => (done = r));
    // Whoever comes next waits for those before this one too, even when this one gives up waiting: the line's entry
    // goes only once everyone in it is done (when this one gave up, those before it may still be running).
    const tail = before.then(() => mine);
    this.queueTails.set(queue, tail);
    void tail.then(() => {
      if (this.queueTails.get(queue) === tail) this.queueTails.delete(queue);
    });
    const release = done;
    const waitStarted = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      before.then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), Math.max(0, deadline - waitStarted)))),
    ]);
    clearTimeout(timer);
    if (late) {
      release();
      throw new QueueWaitTimeout(queue, Date.now() - waitStarted);
    }
    return release;
  }

  private async attempts<T>(fn: (tx: SqlQueries) => Promise<T>, options: TransactionOptions, started: number, deadline: number): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const raised: RaisedTopics = { open: true, topics: new Set() };
      try {
        const out = await raisedInTransaction.run(raised, () =>
          super.transaction(fn, {
            isolation: options.isolation ?? 'serializable',
            ...(options.queue !== undefined ? { queue: options.queue, queueWaitMs: Math.max(1, deadline - Date.now()) } : {}),
          }),
        );
        raised.open = false;
        if (raised.topics.size > 0) this.notifySoon(raised.topics);
        return out;
      } catch (e) {
        raised.open = false;
        if (e instanceof QueueWaitTimeout) throw this.busy(e, started, attempt - 1);
        if (!isRetryableTransactionError(e)) throw e;
        const left = deadline - Date.now();
        if (left <= 0) throw this.busy(e, started, attempt);
        this.retries++;
        // 1, 2, 4 … 128 ms, with jitter so that the transactions that collided do not collide again; never past the budget.
        const pause = Math.min(left, Math.min(128, 2 ** (attempt - 1)) * (0.5 + Math.random()));
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  /**
   * The answer of a transaction whose budget ran out: 503 with Retry-After (what a client does with a busy server),
   * not the database's error, which a door answers 500. Logged at most once a minute, with the count.
   */
  private busy(cause: unknown, started: number, attempts: number): AppError {
    this.gaveUp++;
    this.gaveUpUnlogged++;
    const now = Date.now();
    if (now - this.gaveUpLoggedAt >= 60_000) {
      this.o.warn?.(
        `${this.gaveUpUnlogged} transaction(s) gave up after meeting concurrent writes for ${this.retryBudgetMs} ms (the last: ${attempts} attempt(s) in ${now - started} ms; ${(cause as Error).message}); answered 503 STORAGE_UNAVAILABLE.`,
      );
      this.gaveUpLoggedAt = now;
      this.gaveUpUnlogged = 0;
    }
    const err = new AppError('STORAGE_UNAVAILABLE', {
      message: `The database is busy with concurrent writes to the same data and could not take this one within ${this.retryBudgetMs >= 1000 ? `${Math.round(this.retryBudgetMs / 1000)} s` : `${this.retryBudgetMs} ms`}. It was not recorded; retry after the time given by Retry-After.`,
      retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
    });
    (err as Error & { cause?: unknown }).cause = cause;
    return err;
  }

  /** Sends the topics' NOTIFY on the next turn, with whatever else became due meanwhile (one statement). */
  private notifySoon(topics: Iterable<WorkTopic>): void {
    for (const t of topics) this.dueTopics.add(t);
    if (this.sending || this.stopped) return;
    this.sending = true;
    setImmediate(() => {
      const due = [...this.dueTopics];
      this.dueTopics.clear();
      const sql = due.map(() => 'pg_notify(?, ?)').join(', ');
      void outsideTransaction(() => this.query(`SELECT ${sql}`, due.flatMap((t) => [WORK_CHANNEL, t])))
        .catch(() => undefined)
        .finally(() => {
          this.sending = false;
          if (this.dueTopics.size > 0) this.notifySoon([]);
        });
    });
  }

  /** Starts the LISTEN connection (idempotent); resolves once it listens. */
  async startListening(): Promise<void> {
    if (this.o.listen === false || this.listening || this.stopped) return;
    this.listening = true;
    await this.connectListener();
  }

  /**
   * Listens to `channel` too, on the same connection (store/notifications.ts). Resolves once its LISTEN is in effect;
   * at once when this port does not listen (`listen: false`, or startListening() not called): nothing is delivered.
   */
  async listenTo(channel: string, listener: ChannelListener): Promise<() => void> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel) || channel === WORK_CHANNEL) throw new Error(`not a channel to listen to: ${channel}`);
    let set = this.channels.get(channel);
    const fresh = !set;
    if (!set) this.channels.set(channel, (set = new Set()));
    set.add(listener);
    const stop = () => {
      if (!set.delete(listener) || set.size > 0 || this.channels.get(channel) !== set) return;
      this.channels.delete(channel);
      void this.listener?.query(`UNLISTEN ${channel}`).catch(() => undefined);
    };
    if (fresh && this.listener) {
      // A failure here is the connection's (its 'error' handler reconnects, and the new connection listens again).
      await this.listener.query(`LISTEN ${channel}`).catch(() => undefined);
    } else if (this.connecting) {
      // The connection being made issues the LISTEN of every channel known once it is connected.
      await this.connecting;
    }
    return stop;
  }

  /** Holds or releases the live-event demand lock on the LISTEN connection (store/notifications.ts). */
  demandLiveEvents(on: boolean): Promise<void> {
    this.liveDemand = on;
    const c = this.listener;
    return c ? this.applyDemand(c) : Promise.resolve();
  }

  /** Holds SERVING_LOCK in shared mode on the LISTEN connection, and on every new one (notifications.ts). */
  async holdServingLock(retaken?: () => Promise<void>): Promise<void> {
    if (this.o.listen === false) throw new Error('a store that does not listen cannot hold the serving lock');
    this.serving = true;
    if (retaken) this.servingRetaken = retaken;
    // Held before it resolves: while the LISTEN connection is down (a reconnect pending), wait for it, bounded.
    const until = Date.now() + SERVING_LOCK_WAIT_MS;
    while (!this.listener && !this.stopped) {
      if (Date.now() > until) throw new Error(`could not hold the serving lock: no connection to ${this.where} for ${SERVING_LOCK_WAIT_MS / 1000} s`);
      await (this.connecting ?? new Promise((r) => setTimeout(r, 200)));
    }
    // Taken twice when the connection made meanwhile took it already: a shared lock counts, and goes with the connection.
    await this.listener?.query('SELECT pg_advisory_lock_shared($1, $2)', [...SERVING_LOCK]);
  }

  /** Makes the connection's hold of the demand lock match `liveDemand`, one change at a time. */
  private applyDemand(c: pg.Client): Promise<void> {
    this.demandChain = this.demandChain.then(async () => {
      if (this.listener !== c) return;
      if (this.demandHeldBy !== c) this.demandHeldBy = null;
      try {
        if (this.liveDemand && this.demandHeldBy === null) {
          await c.query('SELECT pg_advisory_lock_shared($1, $2)', [...LIVE_DEMAND_LOCK]);
          this.demandHeldBy = c;
        } else if (!this.liveDemand && this.demandHeldBy === c) {
          this.demandHeldBy = null;
          await c.query('SELECT pg_advisory_unlock_shared($1, $2)', [...LIVE_DEMAND_LOCK]);
        }
      } catch {
        // The connection failed: its locks went with it, and the next connection takes the lock if still wanted.
      }
    });
    return this.demandChain;
  }

  private connectListener(): Promise<void> {
    const p = this.connectOnce().finally(() => {
      if (this.connecting === p) this.connecting = null;
    });
    this.connecting = p;
    return p;
  }

  private async connectOnce(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url, application_name: `${this.o.applicationName ?? 'vconsole'} listen`, connectionTimeoutMillis: LISTEN_CONNECT_TIMEOUT_MS });
    client.on('notification', (n) => {
      if (n.channel === WORK_CHANNEL) {
        const topic = TOPICS.find((t) => t === n.payload);
        if (topic) deliverWork(this, topic);
        return;
      }
      for (const l of this.channels.get(n.channel) ?? []) {
        try {
          l.notify(n.payload ?? '');
        } catch (err) {
          this.o.warn?.(`A listener of ${n.channel} failed: ${(err as Error).message}`);
        }
      }
    });
    client.on('error', (e) => this.lost(client, e));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${WORK_CHANNEL}`);
      if (this.serving) {
        await client.query('SELECT pg_advisory_lock_shared($1, $2)', [...SERVING_LOCK]);
        // The lock went with the lost connection: a key replaced meanwhile is found here (service.ts says what to do).
        if (this.servingRetaken) void this.servingRetaken().catch((e: unknown) => this.o.warn?.(`The data key could not be checked again: ${(e as Error).message}`));
      }
      const channels = [...this.channels.keys()];
      if (channels.length > 0) await client.query(channels.map((c) => `LISTEN ${c}`).join('; '));
      // From here on listenTo() issues its own LISTEN on this connection.
      this.listener = client;
      for (const c of [...this.channels.keys()]) if (!channels.includes(c)) await client.query(`LISTEN ${c}`);
      if (this.liveDemand) await this.applyDemand(client);
      // Whatever was signalled while no connection listened is picked up now.
      for (const t of TOPICS) deliverWork(this, t);
      for (const c of channels) for (const l of this.channels.get(c) ?? []) l.resumed?.();
    } catch (e) {
      this.lost(client, e as Error);
    }
  }

  private lost(client: pg.Client, e: Error): void {
    if (this.stopped || this.reconnect) return;
    if (this.listener === client) this.listener = null;
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    this.o.warn?.(`The PostgreSQL LISTEN connection was lost (${e.message}); reconnecting. Background work is polled meanwhile.`);
    this.reconnect = setTimeout(() => {
      this.reconnect = null;
      void this.connectListener();
    }, 1000);
    this.reconnect.unref();
  }

  override async close(): Promise<void> {
    this.stopped = true;
    if (this.reconnect) clearTimeout(this.reconnect);
    const l = this.listener;
    this.listener = null;
    if (l) {
      l.removeAllListeners('end');
      await l.end().catch(() => undefined);
    }
    await super.close();
  }
}

export function createPgServicePort(url: string, o: PgServiceOptions = {}): PgServicePort {
  return new PgServicePort(url, o);
}
