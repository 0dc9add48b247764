// Live change events for the console (docs/console-live.md). Connection-local TEMP triggers note every change of
// the tables the console shows in a TEMP table, inside the very transaction that changes them: a write rolled back
// (a failed savepoint of the group commit, a refused charge) takes its note with it. After such a write the notes
// are taken in a write of their own through the group commit, and published only when that commit has resolved,
// so no event is ever seen before the change it announces is durable.
//
// SQLite engine only: TEMP triggers, a SQL function and a TEMP table of the service's own connection (`deps.db`).
// The writes they note are the core's, made through the SQL port (its transactions run on that connection).
//
// On PostgreSQL (a team server, several instances) the database's own triggers (PostgreSQL migration 18) send the
// changes with NOTIFY in the changing transaction; each instance hears them at commit on its LISTEN connection and
// publishes them to its hub (attachNotifiedLiveEvents), so a console connected to any instance sees every change.
import type { Environment } from '../../../src-shared/schemas/common';
import { LIVE_EVENT_KINDS, type LiveEvent, type LiveEventKind, type LiveMessage } from '../../../src-shared/live-events';
import type { Db } from '../../store/database';
import { commitThrough, committerOf } from '../../store/group-commit';
import { LIVE_EVENTS_CHANNEL, type NotificationSource } from '../../store/notifications';
import { outsideTransaction } from '../../store/tx-context';
import type { CoreDeps, Logger } from '../context';

/** Events kept for resuming subscribers (Last-Event-ID); an older resume gets a reset. */
export const REPLAY_CAPACITY = 2000;
/** How long changes are still recorded after the last subscriber left, so that a dropped stream resumes by replay. */
export const LIVE_LINGER_MS = 5 * 60_000;

type Listener = (m: LiveMessage) => void;

interface NoteRow {
  seq: number;
  organization_id: string;
  environment: string | null;
  kind: LiveEventKind;
  verification_id: string | null;
  delivery_id: string | null;
  webhook_id: string | null;
}

// The notes: one row per changed row; `live_note()` tells the hub a drain is due. TEMP objects belong to this
// connection only, so no other process opening the store (the CLI, a test's raw handle) depends on them.
const NOTE = (kind: LiveEventKind, org: string, env: string, ver: string, del: string, wh: string) =>
  `INSERT INTO temp.vc_live_notes (organization_id, environment, kind, verification_id, delivery_id, webhook_id)
     VALUES (${org}, ${env}, '${kind}', ${ver}, ${del}, ${wh}); SELECT vc_live_note();`;

const NOTES_TABLE_SQL = `CREATE TEMP TABLE IF NOT EXISTS vc_live_notes (
  seq INTEGER PRIMARY KEY, organization_id TEXT NOT NULL, environment TEXT, kind TEXT NOT NULL,
  verification_id TEXT, delivery_id TEXT, webhook_id TEXT);`;

const TRIGGER_NAMES = [
  'vc_live_ver_ins', 'vc_live_ver_upd', 'vc_live_del_ins', 'vc_live_del_upd', 'vc_live_att_ins',
  'vc_live_wh_ins', 'vc_live_wh_upd', 'vc_live_wallet_ins', 'vc_live_wallet_upd',
];

const TRIGGERS_SQL = `
CREATE TEMP TRIGGER IF NOT EXISTS vc_live_ver_ins AFTER INSERT ON main.verifications BEGIN
  ${NOTE('verification.created', 'NEW.organization_id', 'NEW.environment', 'NEW.id', 'NULL', 'NULL')} END;
CREATE TEMP TRIGGER IF NOT EXISTS vc_live_ver_upd AFTER UPDATE OF status, result ON main.verifications BEGIN
  ${NOTE('verification.updated', 'NEW.organization_id', 'NEW.environment', 'NEW.id', 'NULL', 'NULL')} END;
CREATE TEMP TRIGGER IF NOT EXISTS vc_live_del_ins AFTER INSERT ON main.webhook_deliveries BEGIN
  ${NOTE('delivery.created', 'NEW.organization_id', 'NEW.environment', 'NEW.verification_id', 'NEW.id', 'NEW.webhook_id')} END;
CREATE TEMP TRIGGER IF NOT EXISTS vc_live_del_upd AFTER UPDATE OF status, attempts, last_attempt_at ON main.webhook_deliveries
  WHEN OLD.status IS NOT NEW.status OR OLD.attempts IS NOT NEW.attempts OR OLD.last_attempt_at IS NOT NEW.last_attempt_at BEGIN
  ${NOTE('delivery.updated', 'NEW.organization_id', 'NEW.environment', 'NEW.verification_id', 'NEW.id', 'NEW.webhook_id')} END;
CREATE TEMP TRIGGER IF NOT EXISTS vc_live_att_ins AFTER INSERT ON main.webhook_attempts BEGIN
  INSERT INTO temp.vc_live_notes (organization_id, environment, kind, verification_id, delivery_id, webhook_id)
    SELECT organization_id, environment, 'delivery.updated', verification_id, id, webhook_id FROM main.webhook_deliveries WHERE id = NEW.delivery_id;
  SELECT vc_live_note(); END;
CREATE TEMP TRIGGER IF NOT EXISTS vc_live_wh_ins AFTER INSERT ON main.webhooks BEGIN
  ${NOTE('webhook.updated', 'NEW.organization_id', 'NEW.environment', 'NULL', 'NULL', 'NEW.id')} END;
CREATE TEMP TRIGGER IF NOT EXISTS vc_live_wh_upd AFTER UPDATE OF status, url, events, description, deleted_at ON main.webhooks BEGIN
  ${NOTE('webhook.updated', 'NEW.organization_id', 'NEW.environment', 'NULL', 'NULL', 'NEW.id')} END;
CREATE TEMP TRIGGER IF NOT EXISTS vc_live_wallet_ins AFTER INSERT ON main.wallets BEGIN
  ${NOTE('wallet.updated', 'NEW.organization_id', 'NULL', 'NULL', 'NULL', 'NULL')} END;
CREATE TEMP TRIGGER IF NOT EXISTS vc_live_wallet_upd AFTER UPDATE OF balance, status ON main.wallets BEGIN
  ${NOTE('wallet.updated', 'NEW.organization_id', 'NULL', 'NULL', 'NULL', 'NULL')} END;
`;

let periods = 0;
const newPeriod = () => `${Date.now().toString(36)}${(periods++).toString(36)}`;

export class LiveEventHub {
  /**
   * Names the current recording period: a new process, or recording switched back on after a time without
   * subscribers. A resume from another period is a reset, since changes between periods were not recorded.
   */
  boot: string;
  /**
   * Called when the first subscriber arrives (start recording; a promise when recording begins a little later) and
   * when the last one leaves (stop).
   */
  onDemand: { start(): void | Promise<void>; stop(): void } | null = null;
  private starting: Promise<void> = Promise.resolve();
  private seq = 0;
  private readonly buffer: LiveEvent[] = [];
  private readonly listeners = new Map<Listener, () => string | null>();

  constructor(
    readonly capacity = REPLAY_CAPACITY,
    boot?: string,
  ) {
    this.boot = boot ?? newPeriod();
  }

  /** Starts a new recording period: ids keep increasing, but no resume can cross into it. */
  newPeriod(): void {
    this.boot = newPeriod();
    this.buffer.length = 0;
  }

  /** Changes may have gone unannounced (the source lost them): a new period, and every subscriber gets a reset. */
  reset(): void {
    this.newPeriod();
    for (const fn of [...this.listeners.keys()]) fn({ type: 'reset' });
  }

  /** The id of the newest event published, or of none yet (`<boot>-0`). */
  get lastId(): string {
    return `${this.boot}-${this.seq}`;
  }

  /** Gives each event the next id, keeps it for resumes and hands it to the listeners of its organization. */
  publish(events: Omit<LiveEvent, 'id'>[]): LiveEvent[] {
    const out: LiveEvent[] = [];
    for (const e of events) {
      const ev: LiveEvent = { ...e, id: `${this.boot}-${++this.seq}` };
      this.buffer.push(ev);
      if (this.buffer.length > this.capacity) this.buffer.shift();
      out.push(ev);
      for (const [fn, org] of this.listeners) {
        if (org() === ev.organizationId) fn({ type: 'event', event: ev });
      }
    }
    return out;
  }

  /**
   * Subscribes to one organization's events (given, or looked up per event: a console set up after start). With
   * `lastEventId` (a resume), first replays what followed it, or sends a reset when that id is of another boot,
   * malformed, or older than the buffer.
   */
  subscribe(organizationId: string | (() => string | null), fn: Listener, lastEventId?: string | null): () => void {
    const org = typeof organizationId === 'string' ? () => organizationId : organizationId;
    if (this.listeners.size === 0) this.starting = this.onDemand?.start() ?? Promise.resolve();
    if (lastEventId !== undefined && lastEventId !== null && lastEventId !== '') {
      const missed = this.since(lastEventId);
      if (missed === 'reset') fn({ type: 'reset' });
      else for (const ev of missed) if (ev.organizationId === org()) fn({ type: 'event', event: ev });
    }
    this.listeners.set(fn, org);
    return () => {
      if (this.listeners.delete(fn) && this.listeners.size === 0) this.onDemand?.stop();
    };
  }

  /** The events after `lastEventId`, or 'reset' when they cannot all be given. */
  since(lastEventId: string): LiveEvent[] | 'reset' {
    const m = /^([0-9a-z]+)-(\d+)$/.exec(lastEventId);
    if (!m || m[1] !== this.boot) return 'reset';
    const after = Number(m[2]);
    if (after > this.seq) return 'reset';
    if (after === this.seq) return [];
    const oldest = this.buffer.length > 0 ? this.seq - this.buffer.length + 1 : this.seq + 1;
    // Event `after + 1` is the first one the subscriber lacks; it must still be in the buffer.
    if (after + 1 < oldest) return 'reset';
    return this.buffer.slice(after + 1 - oldest);
  }

  /** Resolves once the recording started by the first subscriber is in effect (every change from then on is announced). */
  recording(): Promise<void> {
    return this.starting;
  }

  get subscribers(): number {
    return this.listeners.size;
  }
}

/** store (SQLite: the service's connection; PostgreSQL: the service's port) → its hub. */
const hubs = new WeakMap<object, LiveEventHub>();

/** The hub of a service's store, whatever the engine, if live events were attached to it; CLI processes have none. */
export function liveEventsOf(deps: Pick<CoreDeps, 'sql' | 'db'>): LiveEventHub | null {
  return (deps.db && hubs.get(deps.db)) ?? hubs.get(deps.sql) ?? null;
}

/**
 * Installs the change notes on this connection and returns its hub (once per store). Notes are drained after the
 * writing code returns (a microtask later) in a group-commit write, and published when that write's commit resolves.
 */
export function attachLiveEvents(db: Db, log?: Logger, hub = new LiveEventHub(), lingerMs = LIVE_LINGER_MS): LiveEventHub {
  const existing = hubs.get(db);
  if (existing) return existing;
  hubs.set(db, hub);
  let due = false;
  const drain = () => {
    if (!db.open) return;
    // Without a group commit (a CLI process, a test) a transaction of the SQL port is its own BEGIN … COMMIT and
    // may still be open across its awaits: the notes are taken once it has ended, never inside it (where the
    // drain would be a savepoint of it, and publish what might yet roll back).
    if (!committerOf(db) && db.inTransaction) {
      setImmediate(drain);
      return;
    }
    due = false;
    let rows: NoteRow[] = [];
    commitThrough(db, () => {
      rows = db.prepare('SELECT * FROM temp.vc_live_notes ORDER BY seq').all() as NoteRow[];
      if (rows.length > 0) db.prepare('DELETE FROM temp.vc_live_notes WHERE seq <= ?').run(rows[rows.length - 1]!.seq);
    }).then(
      () => {
        if (db.open) hub.publish(toEvents(rows));
      },
      (err: unknown) => {
        // The notes were rolled back with the failed commit and are still there: try again with the next change.
        log?.warn({ err }, 'live events: drain failed');
      },
    );
  };
  db.function('vc_live_note', { deterministic: false, varargs: false }, () => {
    if (!due) {
      due = true;
      // After the statement and its transaction have returned to JS: the drain must not run inside them — nor in
      // their async context, which a microtask queued here would keep: the hub's listeners would then run "inside a
      // transaction" and the port would refuse them (the desktop forwarder's look-up of the organization did).
      queueMicrotask(() => outsideTransaction(drain));
    }
    return null;
  });
  db.exec(NOTES_TABLE_SQL);
  // Recording costs a note per changed row and a drain per commit: it runs only while someone listens, and for
  // LIVE_LINGER_MS after the last listener left (a dropped connection resumes with a replay). A time without
  // recording is a gap: a resume from before it is a reset (hub.newPeriod()).
  let recording = false;
  let stopTimer: ReturnType<typeof setTimeout> | null = null;
  hub.onDemand = {
    start() {
      if (stopTimer) clearTimeout(stopTimer);
      stopTimer = null;
      if (recording) return;
      recording = true;
      hub.newPeriod();
      whenIdle(db, () => db.exec(TRIGGERS_SQL));
    },
    stop() {
      if (stopTimer) clearTimeout(stopTimer);
      stopTimer = setTimeout(() => {
        stopTimer = null;
        if (hub.subscribers > 0) return;
        recording = false;
        whenIdle(db, () => {
          if (recording) return;
          for (const name of TRIGGER_NAMES) db.exec(`DROP TRIGGER IF EXISTS temp.${name}`);
          db.exec('DELETE FROM temp.vc_live_notes');
        });
      }, lingerMs);
      stopTimer.unref();
    },
  };
  return hub;
}

/** A row event as the database's triggers send it (PostgreSQL migration 18). */
interface NotifiedRow {
  o?: unknown;
  e?: unknown;
  k?: unknown;
  v?: unknown;
  d?: unknown;
  w?: unknown;
}

const KINDS = new Set<string>(LIVE_EVENT_KINDS);
const str = (x: unknown): string | null => (typeof x === 'string' && x !== '' ? x : null);

/** The rows of one notification (a JSON array); anything malformed is left out. */
function parseNotified(payload: string): NoteRow[] {
  let rows: unknown;
  try {
    rows = JSON.parse(payload);
  } catch {
    return [];
  }
  if (!Array.isArray(rows)) return [];
  const out: NoteRow[] = [];
  for (const r of rows as NotifiedRow[]) {
    const org = str(r?.o);
    const kind = str(r?.k);
    const env = str(r?.e);
    if (!org || !kind || !KINDS.has(kind) || (env !== null && env !== 'sandbox' && env !== 'live')) continue;
    out.push({ seq: 0, organization_id: org, environment: env, kind: kind as LiveEventKind, verification_id: str(r.v), delivery_id: str(r.d), webhook_id: str(r.w) });
  }
  return out;
}

/**
 * A team server's live events (PostgreSQL): the database's triggers NOTIFY every change on `vc_events` inside the
 * transaction that makes it, delivered at its commit to every instance; this instance's LISTEN connection hands
 * them here and they are published to its hub. Notifications that arrive together (the statements of one commit)
 * are published as one batch, identical events once. Registered under `store` (the service's port), for
 * liveEventsOf(). Resolves once this instance listens, so a console subscribed after it misses nothing.
 *
 * The instance listens for as long as it runs, but records only while someone subscribes and for `lingerMs` after the
 * last one left, like the SQLite path: while it records it holds the demand lock, and the triggers of every instance
 * send changes only while some instance holds it (a NOTIFY has a cluster-wide cost at commit). A time without
 * recording is a new period (a resume from before it is a reset). When the LISTEN connection was lost, what was sent meanwhile is lost too: once it
 * listens again every subscriber gets a reset.
 */
export async function attachNotifiedLiveEvents(
  store: object,
  source: NotificationSource,
  log?: Logger,
  hub = new LiveEventHub(),
  lingerMs = LIVE_LINGER_MS,
): Promise<LiveEventHub> {
  const existing = hubs.get(store);
  if (existing) return existing;
  hubs.set(store, hub);
  let recording = false;
  let stopTimer: ReturnType<typeof setTimeout> | null = null;
  let pending: NoteRow[] = [];
  let flushing: ReturnType<typeof setImmediate> | null = null;
  const flush = () => {
    flushing = null;
    const rows = pending;
    pending = [];
    if (recording && rows.length > 0) hub.publish(toEvents(rows));
  };
  hub.onDemand = {
    start() {
      if (stopTimer) clearTimeout(stopTimer);
      stopTimer = null;
      if (recording) return;
      recording = true;
      hub.newPeriod();
      // The triggers send only while some instance wants the events (store/notifications.ts LIVE_DEMAND_LOCK).
      return source.demandLiveEvents?.(true);
    },
    stop() {
      if (stopTimer) clearTimeout(stopTimer);
      stopTimer = setTimeout(() => {
        stopTimer = null;
        if (hub.subscribers > 0) return;
        recording = false;
        pending = [];
        void source.demandLiveEvents?.(false);
      }, lingerMs);
      stopTimer.unref();
    },
  };
  await source.listenTo(LIVE_EVENTS_CHANNEL, {
    notify(payload) {
      if (!recording) return;
      const rows = parseNotified(payload);
      if (rows.length === 0) {
        if (payload !== '[]') log?.warn({ bytes: payload.length }, 'live events: a notification that is not a list of changes was ignored');
        return;
      }
      for (const r of rows) pending.push(r);
      // The other notifications of the same commit are read from the same network chunk: one batch.
      flushing ??= setImmediate(flush);
    },
    resumed() {
      if (!recording) return;
      if (flushing) clearImmediate(flushing);
      flush();
      hub.reset();
    },
  });
  return hub;
}

/** Runs a schema change outside any open transaction of the connection (never inside someone else's write). */
function whenIdle(db: Db, fn: () => void): void {
  if (!db.open) return;
  if (db.inTransaction) setImmediate(() => whenIdle(db, fn));
  else fn();
}

/** One event per distinct change (a delivery's update and its attempt's insert in one commit are one event). */
function toEvents(rows: NoteRow[]): Omit<LiveEvent, 'id'>[] {
  const seen = new Set<string>();
  const out: Omit<LiveEvent, 'id'>[] = [];
  for (const r of rows) {
    const key = `${r.organization_id}|${r.environment}|${r.kind}|${r.verification_id}|${r.delivery_id}|${r.webhook_id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const ids: LiveEvent['ids'] = {};
    if (r.verification_id) ids.verificationId = r.verification_id;
    if (r.delivery_id) ids.deliveryId = r.delivery_id;
    if (r.webhook_id) ids.webhookId = r.webhook_id;
    out.push({ organizationId: r.organization_id, environment: (r.environment as Environment | null) ?? null, kind: r.kind, ids });
  }
  return out;
}
