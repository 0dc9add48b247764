// Webhook deliveries (interface §2.8, §3.3, §6; decisions §7): fan-out of outbox events into durable delivery
// rows, one scheduled attempt with its bookkeeping, history, and the console's developer tools (retry now,
// replay byte for byte or re-signed, forwarding to a local receiver).
import { AppError } from '../../../src-shared/app-error';
import type {
  Delivery,
  DeliveryAttempt,
  DeliveryDetail,
  DeliveryListQuery,
  DeliveryOrigin,
  DeliveryStatus,
  DropReason,
  ReplayResult,
  WebhookEvent,
} from '../../../src-shared/schemas/webhooks';
import { iso, type Clock } from '../clock';
import type { CoreDeps } from '../context';
import type { SqlQueries, TransactionOptions } from '../../store/sql-port';
import { newId } from '../ids';
import type { CoreRuntime } from '../runtime';
import { deliveryHeaders, isLocalReceiverUrl, localReceiverRefused, localReceiverUrl, send, type SendOutcome, type SentHeaders } from './sender';
import { emitWebhookFailed, type WebhookFailedEvent } from './failures';
import { checkWebhookUrlForRegistration } from './url-policy';
import {
  getRow,
  markWebhookFailed,
  signingSecrets,
  urlPolicyOf,
  type Scope,
  type WebhookRow,
} from './webhooks-service';
import { perEngine, POSTGRES_DIALECT } from '../../store/pg/dialect';

export const MAX_ATTEMPTS = 5;
/** Waits between consecutive attempts in "minutes" (interface §6): attempts at 0, 1, 4, 13 and 40. */
export const RETRY_DELAYS_MINUTES = [1, 3, 9, 27] as const;
/** Longest Retry-After honoured, in "minutes", so one endpoint cannot park a delivery for days. */
export const MAX_RETRY_AFTER_MINUTES = 60;
/**
 * An attempt in flight holds its delivery this long (CoreConfig.leaseMs overrides it); a crash mid-attempt frees it
 * for a repeat after that, by any instance.
 */
export const ATTEMPT_LEASE_MS = 60_000;

/** The settings key of an organization's forward target is this prefix and its id (getForward, setForward). */
const FORWARD_PREFIX = 'webhooks.forward:';

function attemptLeaseMs(deps: CoreDeps): number {
  return deps.config.leaseMs ?? ATTEMPT_LEASE_MS;
}

/**
 * A fan-out or a claim in a transaction of its own: on PostgreSQL READ COMMITTED is enough — the events and
 * deliveries it takes are locked (`FOR UPDATE SKIP LOCKED`, re-checked at their latest version) and a delivery's
 * uniqueness is the (webhook_id, event_id) constraint — and it spares instances that claim together the serializable
 * transactions' false conflicts. SQLite ignores it. docs/team-server.md, "Claims, leases and takeover".
 */
export const CLAIM_ISOLATION: TransactionOptions = { isolation: 'read committed' };

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  organization_id: string;
  environment: string;
  event_id: string;
  event_type: string;
  verification_id: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at_ms: number | null;
  lease_until_ms: number | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_response_body: string | null;
  last_response_headers: string | null;
  last_error: string | null;
  sent_headers: string | null;
  origin: DeliveryOrigin;
  original_event_id: string | null;
  recovery_id: string | null;
  dropped_reason: DropReason | null;
  dropped_at_ms: number | null;
  created_at_ms: number;
  created_at: string;
  updated_at: string;
}

interface AttemptRow {
  attempt: number | null;
  kind: DeliveryAttempt['kind'];
  url: string;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  next_attempt_at: string | null;
}

export interface OutboxRow {
  id: string;
  organization_id: string;
  environment: string;
  event_type: string;
  verification_id: string;
  payload: string;
  created_at: string;
}

/**
 * Turns undispatched outbox events into one pending delivery per subscribed active webhook and marks the events
 * dispatched, all in one transaction (a savepoint when `deps.sql` is a transaction's handle). A webhook only
 * receives events from after it became active, so events of a failed or paused period are never delivered later
 * (interface §3.2). On PostgreSQL the events are taken `FOR UPDATE SKIP LOCKED`: instances fanning out together
 * take disjoint events, and the (webhook_id, event_id) constraint makes each delivery once whatever happens.
 */
export async function fanOut(deps: CoreDeps, limit = 100): Promise<number> {
  return deps.sql.transaction((tx) => fanOutTx(tx, deps.clock, limit), CLAIM_ISOLATION);
}

interface SubscribedHook {
  id: string;
  events: readonly string[];
  activeSinceMs: number;
  /** What an attempt needs of the webhook, for a delivery leased as it is made (DeliveryHandOff). */
  attempt: AttemptHook;
}

// PostgreSQL: the events are locked as they are chosen, those another transaction holds passed over.
const FAN_OUT_EVENTS = perEngine(
  (d) => `SELECT id, organization_id, environment, event_type, verification_id, payload, created_at FROM outbox_events
  WHERE dispatched_at IS NULL ORDER BY created_at, ${d.insertionOrder()} LIMIT ?${d.skipLocked()}`,
);
const SUBSCRIBED_HOOKS = `SELECT id, events, active_since_ms, url, status, deleted_at, secret, previous_secret, previous_secret_expires_at_ms,
    (SELECT value FROM settings WHERE key = ?) AS forward
  FROM webhooks WHERE organization_id = ? AND environment = ? AND status = 'active' AND deleted_at IS NULL`;
const INSERT_DELIVERY = `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type,
    verification_id, payload, status, attempts, next_attempt_at_ms, lease_until_ms, created_at_ms, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;
const MARK_DISPATCHED = 'UPDATE outbox_events SET dispatched_at = ? WHERE id = ?';

async function fanOutTx(tx: SqlQueries, clock: Clock, limit: number): Promise<number> {
  const events = await tx.all<OutboxRow>(FAN_OUT_EVENTS[tx.engine], [limit]);
  if (events.length === 0) return 0;
  const nowMs = clock.now();
  const now = iso(nowMs);
  // The subscribed webhooks of each organization and environment, read and parsed once per pass: nothing else
  // writes between the statements of this transaction.
  const subscribed = new Map<string, SubscribedHook[]>();
  for (const e of events) {
    const scope = `${e.organization_id}\n${e.environment}`;
    let hooks = subscribed.get(scope);
    if (!hooks) {
      hooks = await subscribedHooks(tx, e.organization_id, e.environment);
      subscribed.set(scope, hooks);
    }
    await insertDeliveries(tx, hooks, e, nowMs, now, null);
    await tx.run(MARK_DISPATCHED, [now, e.id]);
  }
  return events.length;
}

type SubscribedRow = Omit<AttemptHook, 'forward'> & { events: string; active_since_ms: number; forward: string | null };

async function subscribedHooks(tx: SqlQueries, organizationId: string, environment: string): Promise<SubscribedHook[]> {
  const rows = await tx.all<SubscribedRow>(SUBSCRIBED_HOOKS, [FORWARD_KEY(organizationId), organizationId, environment]);
  return rows.map((h) => ({
    id: h.id,
    events: JSON.parse(h.events) as string[],
    activeSinceMs: h.active_since_ms,
    attempt: {
      id: h.id,
      url: h.url,
      status: h.status,
      deleted_at: h.deleted_at,
      secret: h.secret,
      previous_secret: h.previous_secret,
      previous_secret_expires_at_ms: h.previous_secret_expires_at_ms,
      forward: h.forward,
    },
  }));
}

/**
 * What writing an event's deliveries did: how many were made, how many of them were leased for this process's
 * dispatcher (handed to it once durable), and how many were left unleased for one of their webhook's slots here
 * (at its per-endpoint limit: the dispatcher claims them as that webhook's attempts end, no signal needed for it).
 */
export interface FannedOut {
  made: number;
  leased: number;
  ownSlot: number;
}

/**
 * One pending delivery of `e` per webhook subscribed to its type and active since before it was written; with
 * `handOff`, each leased for this process's dispatcher while it has a free slot (FannedOut).
 */
async function insertDeliveries(
  tx: SqlQueries,
  hooks: readonly SubscribedHook[],
  e: OutboxRow,
  nowMs: number,
  now: string,
  handOff: DeliveryHandOff | null,
): Promise<FannedOut> {
  const out = { made: 0, leased: 0, ownSlot: 0 };
  if (hooks.length === 0) return out;
  const eventMs = Date.parse(e.created_at);
  for (const h of hooks) {
    if (!h.events.includes(e.event_type)) continue;
    if (h.activeSinceMs > eventMs) continue;
    const id = newId('del');
    const lease = handOff?.lease(nowMs, h.id) ?? null;
    const leaseUntil = typeof lease === 'number' ? lease : null;
    const { changes } = await tx.run(INSERT_DELIVERY, [id, h.id, e.organization_id, e.environment, e.id, e.event_type, e.verification_id, e.payload, nowMs, leaseUntil, nowMs, now, now]);
    if (changes === 1) out.made++;
    if (lease === 'own-slot' && changes === 1) out.ownSlot++;
    if (leaseUntil === null) continue;
    if (changes !== 1) {
      handOff!.unlease(h.id);
      continue;
    }
    handOff!.add({ d: { id, webhook_id: h.id, organization_id: e.organization_id, event_type: e.event_type, payload: e.payload, status: 'pending', attempts: 0 }, hook: h.attempt, leaseUntil });
    out.leased++;
  }
  return out;
}

const INSERT_DISPATCHED_EVENT = `INSERT INTO outbox_events (id, organization_id, environment, event_type, verification_id, payload, created_at, dispatched_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Inside the transaction that makes an event true (`tx`): the event into the outbox, already fanned out — its
 * deliveries are written beside it, one per subscribed active webhook, by the rules of fanOut — so no pass reads the
 * event back, marks it, or runs an empty fan-out per attempt. With `handOff` the deliveries are also leased for this
 * process's dispatcher (as many as it has free slots) and started once the transaction is durable, so they need no
 * claim either. The deliveries commit (and are synced) with the event. Returns the deliveries made and how many were
 * leased; the caller signals the dispatcher for the others.
 */
export async function insertFannedOutEvent(tx: SqlQueries, e: OutboxRow, nowMs: number, handOff: DeliveryHandOff | null = null): Promise<FannedOut> {
  await tx.run(INSERT_DISPATCHED_EVENT, [e.id, e.organization_id, e.environment, e.event_type, e.verification_id, e.payload, e.created_at, e.created_at]);
  return insertDeliveries(tx, await subscribedHooks(tx, e.organization_id, e.environment), e, nowMs, iso(nowMs), handOff);
}

/** This process's dispatcher, as a transaction that writes deliveries sees it (DeliveryHandOff). */
export interface AttemptTaker {
  /**
   * Holds an attempt slot for a delivery of webhook `webhookId` about to be leased (true); otherwise the delivery is
   * written unleased: 'own-slot' when that webhook is at its per-endpoint limit here and the dispatcher will claim
   * it by itself as one of the webhook's attempts ends, false when it has no free slot at all (or is stopping).
   */
  reserve(webhookId: string): boolean | 'own-slot';
  /** Gives back a held slot that was not used. */
  release(webhookId: string): void;
  /** Starts the attempts of deliveries leased in held slots (their transaction is durable). */
  start(claimed: ClaimedAttempt[]): void;
}

const takers = new WeakMap<object, AttemptTaker>();

/** The dispatcher of the store behind `port` (the SQL port itself) takes deliveries leased for it; returns the undo. */
export function takeLeasedDeliveries(port: SqlQueries, taker: AttemptTaker): () => void {
  takers.set(port, taker);
  return () => {
    if (takers.get(port) === taker) takers.delete(port);
  };
}

/**
 * The deliveries one transaction leases for this process's dispatcher as it writes them (insertFannedOutEvent):
 * each in a slot the dispatcher holds for it, started by `start()` once the transaction is durable — the same rule
 * as a claim's leases (nothing is sent before the commit it depends on is on disk). Without a dispatcher (a CLI, a
 * test without one), without a free slot, or for a webhook with as many attempts held as its per-endpoint limit
 * allows, a delivery is written unleased, and the dispatcher claims it as usual.
 * A transaction that rolls back or runs again calls `reset()`: its leases never happened.
 */
export class DeliveryHandOff {
  private readonly taker: AttemptTaker | null;
  private readonly leaseMs: number;
  /** The webhook of each slot held. */
  private held: string[] = [];
  private claimed: ClaimedAttempt[] = [];

  constructor(deps: CoreDeps) {
    this.taker = takers.get(deps.sql) ?? null;
    this.leaseMs = attemptLeaseMs(deps);
  }

  /**
   * The lease's end for a delivery of webhook `webhookId`; 'own-slot' when it is left unleased for one of its
   * webhook's slots here (AttemptTaker.reserve); null when no dispatcher here has a slot for it.
   */
  lease(nowMs: number, webhookId: string): number | 'own-slot' | null {
    const got = this.taker ? this.taker.reserve(webhookId) : false;
    if (got !== true) return got === 'own-slot' ? got : null;
    this.held.push(webhookId);
    return nowMs + this.leaseMs;
  }

  /** The last lease was not used (the delivery already existed). */
  unlease(webhookId: string): void {
    this.held.pop();
    this.taker!.release(webhookId);
  }

  add(claimed: ClaimedAttempt): void {
    this.claimed.push(claimed);
  }

  reset(): void {
    for (const webhookId of this.held) this.taker!.release(webhookId);
    this.held = [];
    this.claimed = [];
  }

  /** After the transaction is durable: its leased deliveries' attempts start. */
  start(): void {
    const claimed = this.claimed;
    this.held = [];
    this.claimed = [];
    if (claimed.length > 0) this.taker!.start(claimed);
  }
}

/**
 * Leases up to `limit` deliveries whose next attempt is due — never attempted, or whose lease expired (its
 * instance died or stalled) — in one transaction (a savepoint inside one). The delivery keeps its id: a repeat is
 * signed with the same webhook-id, and receivers deduplicate on it.
 */
export async function claimDue(deps: CoreDeps, limit: number): Promise<string[]> {
  return (await claimDueAttempts(deps, limit)).map((a) => a.d.id);
}

/**
 * The per-endpoint limit a claim keeps (docs/webhooks.md, "How many attempts at once"): at most `perEndpoint`
 * attempts of one webhook held (leased) at once by the claiming dispatcher — for the service's dispatcher twice the
 * requests it may have open (LEASED_PER_OPEN) — counting those it already holds (`held`:
 * attempts leased or in flight, by webhook id; a webhook whose own limit is lower — a slow one — is given as holding
 * that much more). A webhook at its limit is passed over; one below it gets at most its remaining room from one
 * claim. What another instance holds is not counted (each instance caps itself).
 */
export interface EndpointCap {
  perEndpoint: number;
  held: ReadonlyMap<string, number>;
  /**
   * Claim only this webhook's deliveries (at most its room): the claim chained to the end of one of its attempts when
   * only its deliveries are known to be waiting for a slot (or a freed slot's claim of its own). It reads from that
   * webhook's oldest due delivery, by its own index.
   */
  only?: string;
}

/** The webhooks of `cap` at their limit (a claim passes over their deliveries): a JSON array for the statements. */
export function cappedWebhooks(cap: EndpointCap | undefined): string[] {
  const out: string[] = [];
  if (cap) for (const [id, n] of cap.held) if (n >= cap.perEndpoint) out.push(id);
  return out;
}

/**
 * claimDue, with what each attempt needs of its delivery and webhook read by the claim itself (ClaimedAttempt), so
 * that runScheduledAttempt reads nothing before it sends. With `cap`, no webhook gets more than its room.
 */
export async function claimDueAttempts(deps: CoreDeps, limit: number, cap?: EndpointCap): Promise<ClaimedAttempt[]> {
  return deps.sql.transaction((tx) => claimDueTx(tx, deps.clock.now(), limit, attemptLeaseMs(deps), cap), CLAIM_ISOLATION);
}

/** An attempt's delivery and webhook as its claim read them (the claim's transaction; the lease is ours). */
export interface ClaimedAttempt {
  d: AttemptDelivery;
  hook: AttemptHook | undefined;
  /** When the lease that claimed it ends (the service's clock); absent where it was read without a lease. */
  leaseUntil?: number;
}

// The attempt's delivery columns, its webhook's and the organization's forward target (a setting), in one row.
const HOOK_COLUMNS = `w.id AS hook_id, w.url AS hook_url, w.status AS hook_status, w.deleted_at AS hook_deleted_at, w.secret AS hook_secret,
  w.previous_secret AS hook_previous_secret, w.previous_secret_expires_at_ms AS hook_previous_secret_expires_at_ms`;
const FORWARD_COLUMN = (d: string) => `(SELECT value FROM settings WHERE key = '${FORWARD_PREFIX}' || ${d}.organization_id) AS hook_forward`;
const DELIVERY_COLUMNS = 'id, webhook_id, organization_id, event_type, payload, status, attempts';
/** What an attempt needs, from delivery `d` joined to its webhook `w` (ClaimedRow). */
const ATTEMPT_COLUMNS = (d: string) => `${DELIVERY_COLUMNS.split(', ').map((c) => `${d}.${c}`).join(', ')}, ${HOOK_COLUMNS}, ${FORWARD_COLUMN(d)}`;
const DUE = (d: string) => `${d}status = 'pending' AND ${d}next_attempt_at_ms <= ? AND (${d}lease_until_ms IS NULL OR ${d}lease_until_ms <= ?)`;
/**
 * The webhooks with pending deliveries, one index seek each (webhook_deliveries_pending_hook, migration 22): a
 * recursive walk from one webhook id to the next, so a webhook with a backlog of 50,000 is one step, not 50,000 rows.
 */
const WEBHOOKS_PENDING = `WITH RECURSIVE h(id) AS (
    SELECT min(webhook_id) FROM webhook_deliveries WHERE status = 'pending'
    UNION ALL
    SELECT (SELECT min(webhook_id) FROM webhook_deliveries WHERE status = 'pending' AND webhook_id > h.id) FROM h WHERE h.id IS NOT NULL)`;
/** Webhook `h.id`'s oldest pending delivery not leased (or whose lease ended), `due` added to its condition. */
const FIRST_UNLEASED = (due: string) => `(SELECT x.next_attempt_at_ms FROM webhook_deliveries x
    WHERE x.webhook_id = h.id AND x.status = 'pending' AND ${due} AND (x.lease_until_ms IS NULL OR x.lease_until_ms <= ?)
    ORDER BY x.next_attempt_at_ms LIMIT 1)`;
/**
 * The webhooks below their limit with a due delivery, the one due longest first: a claim with a per-endpoint limit
 * takes from each in turn, at most its room, until it has enough. All of them, not the first `limit`: the walk visits
 * every webhook with pending deliveries anyway, and on PostgreSQL one whose due deliveries are all locked by other
 * claims (SKIP LOCKED) gives none, so the next must be there. Parameters: now, now, capped.
 */
const DUE_WEBHOOKS = perEngine(
  (d) => `${WEBHOOKS_PENDING},
  c AS MATERIALIZED (SELECT h.id, ${FIRST_UNLEASED('x.next_attempt_at_ms <= ?')} AS first FROM h WHERE h.id IS NOT NULL AND h.id NOT IN ${d.jsonArrayValues('?')})
  SELECT id FROM c WHERE first IS NOT NULL ORDER BY first`,
);
// The oldest due deliveries, their ids and webhooks only: a claim keeping the per-endpoint limit picks from them
// first (claimDueTx). On PostgreSQL locked as read, those other transactions hold passed over (a claim of this
// process not committed yet: its rows still look due), so the picks are not taken already; the rows not picked are
// let go at the commit. Parameters: now, now, window.
const DUE_WINDOW = perEngine((d) => `SELECT id, webhook_id FROM webhook_deliveries WHERE ${DUE('')} ORDER BY next_attempt_at_ms LIMIT ?${d.skipLocked()}`);

// SQLite (one writer: a SELECT of due rows, then an UPDATE of each, is a claim). Parameters: now, now, limit.
const DUE_DELIVERIES = `SELECT ${ATTEMPT_COLUMNS('d')}
  FROM webhook_deliveries d LEFT JOIN webhooks w ON w.id = d.webhook_id
  WHERE ${DUE('d.')} ORDER BY d.next_attempt_at_ms LIMIT ?`;
// Parameters: now, now, webhook, limit. By the webhook's pending deliveries in due order (migration 22): from its
// oldest due delivery, whatever other webhooks have due before it.
const DUE_DELIVERIES_OF = `SELECT ${ATTEMPT_COLUMNS('d')}
  FROM webhook_deliveries d INDEXED BY webhook_deliveries_pending_hook LEFT JOIN webhooks w ON w.id = d.webhook_id
  WHERE ${DUE('d.')} AND d.webhook_id = ? ORDER BY d.next_attempt_at_ms LIMIT ?`;
// The deliveries a claim picked (a JSON array of ids), in that order, with what their attempts need.
const DELIVERIES_BY_ID = `SELECT ${ATTEMPT_COLUMNS('d')}
  FROM json_each(?) j JOIN webhook_deliveries d ON d.id = j.value LEFT JOIN webhooks w ON w.id = d.webhook_id ORDER BY j.key`;
const LEASE_DELIVERY = 'UPDATE webhook_deliveries SET lease_until_ms = ? WHERE id = ?';

// PostgreSQL: the same rows in one statement, locked as they are chosen, those another transaction holds passed over.
const CLAIMED_PG = (which: string) => `WITH c AS (UPDATE webhook_deliveries SET lease_until_ms = ?
  WHERE id IN (${which})
  RETURNING ${DELIVERY_COLUMNS}, next_attempt_at_ms)
  SELECT ${ATTEMPT_COLUMNS('c')}, c.next_attempt_at_ms
  FROM c LEFT JOIN webhooks w ON w.id = c.webhook_id ORDER BY c.next_attempt_at_ms`;
// Parameters: lease, now, now, limit.
const CLAIM_DUE_PG = CLAIMED_PG(`SELECT id FROM webhook_deliveries WHERE ${DUE('')} ORDER BY next_attempt_at_ms LIMIT ?${POSTGRES_DIALECT.skipLocked()}`);
// Parameters: lease, ids (a JSON array), now, now: those of the picked deliveries still due and not locked.
const CLAIM_PICKED_PG = CLAIMED_PG(`SELECT id FROM webhook_deliveries WHERE id IN ${POSTGRES_DIALECT.jsonArrayValues('?')} AND ${DUE('')}${POSTGRES_DIALECT.skipLocked()}`);
// Parameters: lease, now, now, webhook, limit.
const CLAIM_DUE_OF_PG = CLAIMED_PG(`SELECT id FROM webhook_deliveries WHERE ${DUE('')} AND webhook_id = ? ORDER BY next_attempt_at_ms LIMIT ?${POSTGRES_DIALECT.skipLocked()}`);

type ClaimedRow = AttemptDelivery & {
  hook_id: string | null;
  hook_url: string;
  hook_status: WebhookRow['status'];
  hook_deleted_at: string | null;
  hook_secret: string;
  hook_previous_secret: string | null;
  hook_previous_secret_expires_at_ms: number | null;
  hook_forward: string | null;
};

/** The claimed rows, each with the end of the lease the claim gave it. */
function leasedAttempts(rows: ClaimedRow[], leaseUntil: number): ClaimedAttempt[] {
  return rows.map((r) => ({ ...claimedAttempt(r), leaseUntil }));
}

function claimedAttempt(r: ClaimedRow): ClaimedAttempt {
  return {
    d: { id: r.id, webhook_id: r.webhook_id, organization_id: r.organization_id, event_type: r.event_type, payload: r.payload, status: r.status, attempts: r.attempts },
    hook:
      r.hook_id === null
        ? undefined
        : {
            id: r.hook_id,
            url: r.hook_url,
            status: r.hook_status,
            deleted_at: r.hook_deleted_at,
            secret: r.hook_secret,
            previous_secret: r.hook_previous_secret,
            previous_secret_expires_at_ms: r.hook_previous_secret_expires_at_ms,
            forward: r.hook_forward,
          },
  };
}

/**
 * Whether a claim must keep the per-endpoint limit webhook by webhook: when a webhook is at its limit (its
 * deliveries are passed over) or the claim could take more of one than its room — `limit` above the smallest room of
 * a webhook below its limit (perEndpoint for one holding none). Otherwise the plain claim, oldest first, whoever.
 */
function claimShape(limit: number, cap: EndpointCap | undefined): { capped: string[]; byWebhook: boolean } {
  if (!cap) return { capped: [], byWebhook: false };
  const capped: string[] = [];
  let smallestRoom = cap.perEndpoint;
  for (const [id, n] of cap.held) {
    if (n >= cap.perEndpoint) capped.push(id);
    else smallestRoom = Math.min(smallestRoom, cap.perEndpoint - n);
  }
  return { capped, byWebhook: capped.length > 0 || limit > smallestRoom };
}

/** Leases up to `room` of webhook `webhookId`'s due deliveries, oldest first (by its own index: migration 22). */
async function claimOf(tx: SqlQueries, nowMs: number, leaseUntil: number, webhookId: string, room: number): Promise<ClaimedAttempt[]> {
  if (tx.engine === 'postgres') return leasedAttempts(await tx.all<ClaimedRow>(CLAIM_DUE_OF_PG, [leaseUntil, nowMs, nowMs, webhookId, room]), leaseUntil);
  const rows = await tx.all<ClaimedRow>(DUE_DELIVERIES_OF, [nowMs, nowMs, webhookId, room]);
  for (const r of rows) await tx.run(LEASE_DELIVERY, [leaseUntil, r.id]);
  return leasedAttempts(rows, leaseUntil);
}

async function claimDueTx(tx: SqlQueries, nowMs: number, limit: number, leaseMs: number, cap: EndpointCap | undefined): Promise<ClaimedAttempt[]> {
  const leaseUntil = nowMs + leaseMs;
  const roomOf = (id: string) => Math.min(limit, cap!.perEndpoint - (cap!.held.get(id) ?? 0));
  if (cap?.only !== undefined) {
    const room = roomOf(cap.only);
    return room > 0 ? claimOf(tx, nowMs, leaseUntil, cap.only, room) : [];
  }
  const { capped, byWebhook } = claimShape(limit, cap);
  if (!byWebhook) {
    if (tx.engine === 'postgres') return leasedAttempts(await tx.all<ClaimedRow>(CLAIM_DUE_PG, [leaseUntil, nowMs, nowMs, limit]), leaseUntil);
    const rows = await tx.all<ClaimedRow>(DUE_DELIVERIES, [nowMs, nowMs, limit]);
    for (const r of rows) await tx.run(LEASE_DELIVERY, [leaseUntil, r.id]);
    return leasedAttempts(rows, leaseUntil);
  }
  // The oldest due deliveries first, as the plain claim reads them but a window a little wider than the slots: each
  // webhook's within its room, those at their limit passed over. Enough unless the window was all of webhooks at
  // their limit — a backlog — and only then webhook by webhook.
  const window = 2 * limit + 16;
  const due = await tx.all<{ id: string; webhook_id: string }>(DUE_WINDOW[tx.engine], [nowMs, nowMs, window]);
  const picked: string[] = [];
  const taken = new Map<string, number>();
  for (const r of due) {
    if (picked.length >= limit) break;
    const n = taken.get(r.webhook_id) ?? 0;
    if (n >= roomOf(r.webhook_id)) continue;
    taken.set(r.webhook_id, n + 1);
    picked.push(r.id);
  }
  if (picked.length >= limit || due.length < window) {
    if (picked.length === 0) return [];
    if (tx.engine === 'postgres') return leasedAttempts(await tx.all<ClaimedRow>(CLAIM_PICKED_PG, [leaseUntil, JSON.stringify(picked), nowMs, nowMs]), leaseUntil);
    const rows = await tx.all<ClaimedRow>(DELIVERIES_BY_ID, [JSON.stringify(picked)]);
    for (const r of rows) await tx.run(LEASE_DELIVERY, [leaseUntil, r.id]);
    return leasedAttempts(rows, leaseUntil);
  }
  // Webhook by webhook, the one due longest first, each at most its room: one seek per webhook with pending
  // deliveries, however long the backlog of those at their limit. (The deliveries the dispatcher holds already are
  // leased: on PostgreSQL a lease of one of its transactions not committed yet is a row lock, which SKIP LOCKED
  // passes over.)
  const out: ClaimedAttempt[] = [];
  const webhooks = await tx.all<{ id: string }>(DUE_WEBHOOKS[tx.engine], [nowMs, nowMs, JSON.stringify(capped)]);
  for (const { id } of webhooks) {
    const room = Math.min(roomOf(id), limit - out.length);
    if (room > 0) out.push(...(await claimOf(tx, nowMs, leaseUntil, id, room)));
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * Ends a lease this process gave and will not use (an attempt not sent: its dispatcher stopped, or it waited too long
 * to open): the delivery is due again at once for any claim, not once the lease has run out. Only that lease — the
 * same end, the delivery still pending — so a lease another claim gave it since is left alone.
 */
export async function endLease(deps: CoreDeps, deliveryId: string, leaseUntil: number): Promise<void> {
  await deps.sql.transaction(
    (tx) => tx.run("UPDATE webhook_deliveries SET lease_until_ms = NULL WHERE id = ? AND status = 'pending' AND lease_until_ms = ?", [deliveryId, leaseUntil]),
    CLAIM_ISOLATION,
  );
}

/**
 * On start: attempt leases of a process that died are dropped, so those deliveries are attempted now. The store's
 * sole user only (SQLite); on PostgreSQL the leases expire and any instance claims them again.
 */
export async function releaseDeliveryLeases(deps: CoreDeps): Promise<number> {
  return deps.sql.transaction(
    async (tx) => (await tx.run(`UPDATE webhook_deliveries SET lease_until_ms = NULL WHERE status = 'pending' AND lease_until_ms IS NOT NULL`)).changes,
  );
}

// The loop's next due time: the oldest pending delivery not leased (or whose lease has ended), by the due index past
// the few leased ones (those in flight). A lease that ends later (an instance that died, on PostgreSQL) is found by a
// poll. Parameters: now.
const NEXT_DUE = `SELECT next_attempt_at_ms AS t FROM webhook_deliveries
  WHERE status = 'pending' AND next_attempt_at_ms IS NOT NULL AND (lease_until_ms IS NULL OR lease_until_ms <= ?)
  ORDER BY next_attempt_at_ms LIMIT 1`;
// Passing over the webhooks at their limit: the oldest of each other webhook's, one seek each (migration 22).
// Parameters: now (a lease that has ended counts as none), capped.
const NEXT_DUE_PASSING_CAPPED = perEngine(
  (d) => `${WEBHOOKS_PENDING}
  SELECT min(${FIRST_UNLEASED('x.next_attempt_at_ms IS NOT NULL')}) AS t FROM h WHERE h.id IS NOT NULL AND h.id NOT IN ${d.jsonArrayValues('?')}`,
);

/**
 * When the loop should look next: the oldest pending delivery's next attempt, not counting leased ones nor those of
 * the webhooks in `capped` (at their limit: one of their attempts' end claims for them); null when there is none.
 */
export async function nextDueAt(deps: CoreDeps, capped: readonly string[] = []): Promise<number | null> {
  const row =
    capped.length > 0
      ? await deps.sql.get<{ t: number | null }>(NEXT_DUE_PASSING_CAPPED[deps.sql.engine], [deps.clock.now(), JSON.stringify(capped)])
      : await deps.sql.get<{ t: number | null }>(NEXT_DUE, [deps.clock.now()]);
  return row?.t ?? null;
}

async function deliveryRow(deps: CoreDeps, id: string): Promise<DeliveryRow | undefined> {
  return deps.sql.get<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?', [id]);
}

/** What an attempt needs of its delivery (not the last response, nor the headers of the last attempt). */
type AttemptDelivery = Pick<DeliveryRow, 'id' | 'webhook_id' | 'organization_id' | 'event_type' | 'payload' | 'status' | 'attempts'>;

/**
 * What an attempt needs of its webhook, and the organization's forward target (a setting) in the same statement.
 * The sealed secrets are opened through a cache (secret-sealing.ts).
 */
type AttemptHook = Pick<WebhookRow, 'id' | 'url' | 'status' | 'deleted_at' | 'secret' | 'previous_secret' | 'previous_secret_expires_at_ms'> & {
  forward: string | null;
};

/** A delivery by id with what its attempt needs (ATTEMPT_COLUMNS), and `extra` columns of the delivery. */
const ATTEMPT_ROW_WITH = (extra: string) =>
  `SELECT ${ATTEMPT_COLUMNS('d')}${extra} FROM webhook_deliveries d LEFT JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ?`;
const ATTEMPT_ROW = ATTEMPT_ROW_WITH('');

async function attemptRows(deps: CoreDeps, deliveryId: string): Promise<ClaimedAttempt | undefined> {
  const row = await deps.sql.get<ClaimedRow>(ATTEMPT_ROW, [deliveryId]);
  return row ? claimedAttempt(row) : undefined;
}

const LEASED_ATTEMPT_ROW = ATTEMPT_ROW_WITH(', d.lease_until_ms');

/**
 * What the attempt `a` (leased by a claim or a hand-off) needs of its delivery and webhook, read again now: for an
 * attempt that waited to open, whose webhook may have been paused, deleted, moved or given a new secret since its
 * claim read it. Undefined when the delivery is gone or no longer holds that lease (it was given back, or ran out and
 * another claim took it): nothing to send.
 */
export async function rereadLeasedAttempt(deps: CoreDeps, a: ClaimedAttempt): Promise<ClaimedAttempt | undefined> {
  const row = await deps.sql.get<ClaimedRow & { lease_until_ms: number | string | null }>(LEASED_ATTEMPT_ROW, [a.d.id]);
  // (PostgreSQL's driver may answer a bigint as text.)
  if (!row || row.lease_until_ms === null || a.leaseUntil === undefined || Number(row.lease_until_ms) !== a.leaseUntil) return undefined;
  return { ...claimedAttempt(row), leaseUntil: a.leaseUntil };
}

async function webhookRowById(deps: CoreDeps, id: string): Promise<WebhookRow | undefined> {
  return deps.sql.get<WebhookRow>('SELECT * FROM webhooks WHERE id = ?', [id]);
}

/** Inside a transaction (`q` is its handle): one line of a delivery's attempt log. */
async function insertAttempt(
  q: SqlQueries,
  deliveryId: string,
  a: {
    attempt: number | null;
    kind: DeliveryAttempt['kind'];
    url: string;
    startedMs: number;
    outcome: SendOutcome;
    nextAttemptMs: number | null;
    /** JSON.stringify(outcome.responseHeaders) when the caller has it. */
    responseHeaders?: string | null;
  },
): Promise<void> {
  await q.run(
    `INSERT INTO webhook_attempts (delivery_id, attempt, kind, url, started_at, duration_ms, status_code, error,
       response_body, response_headers, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      deliveryId,
      a.attempt,
      a.kind,
      a.url,
      iso(a.startedMs),
      a.outcome.durationMs,
      a.outcome.statusCode,
      a.outcome.error,
      a.outcome.responseBody,
      a.responseHeaders !== undefined ? a.responseHeaders : a.outcome.responseHeaders ? JSON.stringify(a.outcome.responseHeaders) : null,
      a.nextAttemptMs === null ? null : iso(a.nextAttemptMs),
    ],
  );
}

const FORWARD_KEY = (organizationId: string): string => `${FORWARD_PREFIX}${organizationId}`;

export async function getForward(deps: CoreDeps, organizationId: string): Promise<string | null> {
  const row = await deps.sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [FORWARD_KEY(organizationId)]);
  return row?.value ?? null;
}

/** Sets (or clears with null) the organization's local receiver that gets a copy of every delivery as it is sent. */
export async function setForward(rt: CoreRuntime, organizationId: string, url: string | null): Promise<{ url: string | null }> {
  if (url === null || url.trim() === '') {
    await rt.deps.sql.transaction((tx) => tx.run('DELETE FROM settings WHERE key = ?', [FORWARD_KEY(organizationId)]));
    return { url: null };
  }
  const checked = localReceiverUrl(rt, url.trim());
  if (!checked.ok) throw localReceiverRefused(checked.reason);
  await rt.deps.sql.transaction((tx) =>
    tx.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [FORWARD_KEY(organizationId), checked.url]),
  );
  return { url: checked.url };
}

async function forwardCopy(rt: CoreRuntime, d: AttemptDelivery, target: string | null, headers: SentHeaders, body: string | Buffer = d.payload): Promise<void> {
  if (!target) return;
  const startedMs = rt.deps.clock.now();
  const outcome = await send(rt, target, body, headers, { local: true });
  await rt.deps.sql.transaction((tx) => insertAttempt(tx, d.id, { attempt: null, kind: 'forward', url: target, startedMs, outcome, nextAttemptMs: null }));
}

function scaledRetryAfterMs(rt: CoreRuntime, seconds: number | null): number {
  if (seconds === null) return 0;
  // Retry-After is in real seconds; the developer --retry-unit-ms option shrinks the whole schedule, this included.
  const minutes = Math.min(seconds / 60, MAX_RETRY_AFTER_MINUTES);
  return Math.ceil(minutes * rt.deps.config.retryUnitMs);
}

/** An attempt that could not be signed is not sent; it counts as a failure so the schedule still ends. */
const UNSIGNABLE: SendOutcome = {
  ok: false,
  statusCode: null,
  error: 'not sent: the signing secret cannot be opened (secret.key missing or replaced); rotate the secret',
  responseBody: null,
  responseHeaders: null,
  retryAfterSeconds: null,
  durationMs: 0,
};

// A sealed secret that does not open (data folder copied without secret.key) must not crash the attempt in a
// loop: null makes it an ordinary failed attempt.
function openSigningSecrets(deps: CoreDeps, hook: Pick<WebhookRow, 'id' | 'secret' | 'previous_secret' | 'previous_secret_expires_at_ms'>, nowMs: number): string[] | null {
  try {
    return signingSecrets(deps, hook, nowMs);
  } catch {
    deps.log.error({ webhookId: hook.id }, 'webhook signing secret cannot be opened');
    return null;
  }
}

/** Commits an attempt's bookkeeping: `fn` writes through the transaction's handle it is given. */
export type AttemptCommit = (fn: (tx: SqlQueries) => Promise<void>, options?: TransactionOptions) => Promise<void>;

/**
 * The attempt's bookkeeping reads its delivery locked (`FOR UPDATE` on PostgreSQL) and writes it back by id, so on
 * PostgreSQL READ COMMITTED is enough for it — a second attempt of the same delivery (a stale holder whose lease
 * expired) waits for the lock and then reads the committed count — unless the attempt may fail the webhook (its
 * last scheduled one failed): that also appends to the audit chain, which needs serializable. Serializable
 * bookkeeping of deliveries whose ids share an index page conflicts needlessly (measured in docs/team-server.md).
 */
const BOOKKEEPING_ISOLATION: TransactionOptions = { isolation: 'read committed' };
const FRESH_DELIVERY = perEngine((d) => `SELECT status, attempts, next_attempt_at_ms FROM webhook_deliveries WHERE id = ?${d.forUpdate()}`);

/**
 * Makes the next scheduled attempt of a leased delivery: POST, record the attempt, then success, the next
 * attempt time, or (after the fifth failure) a failed delivery and a failed webhook. Safe to run twice. The lease
 * was committed before this runs; the POST (and the signing) happen outside any transaction, and the attempt's log
 * and the delivery's update are written together in one transaction after it. Resolves true when the POST failed
 * (another attempt may now be scheduled: the dispatcher looks at the next due time again).
 */
export async function runScheduledAttempt(
  rt: CoreRuntime,
  deliveryId: string,
  kind: 'scheduled' | 'manual' = 'scheduled',
  /** How the attempt's bookkeeping is committed (the dispatcher leases the next due delivery in the same transaction). */
  commit: AttemptCommit = (fn, options) => rt.deps.sql.transaction(fn, options),
  /**
   * The delivery and its webhook as the claim that leased it read them (claimDueAttempts); without it they are read
   * now. Either way the bookkeeping below checks the delivery again, in its own transaction.
   */
  claimed?: ClaimedAttempt,
): Promise<boolean> {
  const { deps } = rt;
  const rows = claimed ?? (await attemptRows(deps, deliveryId));
  if (!rows) return false;
  const { d, hook } = rows;
  if (kind === 'scheduled' && d.status !== 'pending') return false;
  if (!hook || hook.deleted_at !== null || (kind === 'scheduled' && hook.status !== 'active')) {
    if (d.status === 'pending') {
      const nowMs = deps.clock.now();
      const reason: DropReason = !hook || hook.deleted_at ? 'webhook_deleted' : hook.status === 'failed' ? 'webhook_failed' : 'webhook_paused';
      await commit(async (tx) => {
        await tx.run(
          `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at_ms = NULL, lease_until_ms = NULL, last_error = ?, dropped_reason = ?,
             dropped_at_ms = ?, updated_at = ? WHERE id = ? AND status = 'pending'`,
          [hook?.deleted_at ? 'webhook deleted' : `webhook ${hook?.status ?? 'missing'}`, reason, nowMs, iso(nowMs), d.id],
        );
      });
    }
    return false;
  }
  const startedMs = deps.clock.now();
  const secrets = openSigningSecrets(deps, hook, startedMs);
  // The bytes sent and signed, encoded once.
  const body = Buffer.from(d.payload, 'utf8');
  const headers = secrets ? deliveryHeaders({ deliveryId: d.id, eventType: d.event_type, body, secrets, nowMs: startedMs }) : null;
  const [outcome] = headers
    ? await Promise.all([
        send(rt, hook.url, body, headers),
        hook.forward
          ? forwardCopy(rt, d, hook.forward, headers, body).catch((err: unknown) => deps.log.warn({ deliveryId: d.id, err: String(err) }, 'forward to local receiver failed'))
          : undefined,
      ])
    : [UNSIGNABLE];
  const endMs = deps.clock.now();
  let failure: WebhookFailedEvent | null = null;
  // Only a failed last scheduled attempt can fail the webhook (it must count: the delivery still as it was read).
  const mayFailWebhook = kind === 'scheduled' && !outcome.ok && d.attempts + 1 >= MAX_ATTEMPTS;
  const responseHeaders = outcome.responseHeaders ? JSON.stringify(outcome.responseHeaders) : null;
  const sentHeaders = headers ? JSON.stringify(headers) : null;
  await commit(async (tx) => {
    // A body run again after a serialization failure starts from scratch.
    failure = null;
    if (kind === 'scheduled') {
      // The attempt counts if the delivery is still as it was read — pending, with the attempts seen — which the
      // update checks itself (on PostgreSQL its row lock and the re-check of its WHERE at the latest version do what
      // a SELECT … FOR UPDATE did); otherwise (cancelled, or a duplicate run) it is only logged, below.
      const attempt = d.attempts + 1;
      const next = scheduledOutcome(rt, outcome, attempt, startedMs, endMs);
      const status: DeliveryStatus = outcome.ok ? 'success' : next === null ? 'failed' : 'pending';
      const { changes } = await tx.run(UPDATE_SCHEDULED, [
        status, attempt, next, iso(startedMs), outcome.statusCode, outcome.responseBody, responseHeaders, outcome.error, sentHeaders, iso(endMs), d.id, d.attempts,
      ]);
      if (changes === 1) {
        await insertAttempt(tx, d.id, { attempt, kind, url: hook.url, startedMs, outcome, responseHeaders, nextAttemptMs: next });
        if (status === 'failed') failure = await markWebhookFailed({ ...deps, sql: tx }, hook.id, { deliveryId: d.id, statusCode: outcome.statusCode, error: outcome.error });
        return;
      }
    }
    const fresh = await tx.get<Pick<DeliveryRow, 'status' | 'attempts' | 'next_attempt_at_ms'>>(FRESH_DELIVERY[tx.engine], [d.id]);
    if (!fresh) return;
    if (kind === 'scheduled') {
      // A scheduled attempt that lost its delivery meanwhile is still logged, without counting.
      await insertAttempt(tx, d.id, { attempt: null, kind, url: hook.url, startedMs, outcome, responseHeaders, nextAttemptMs: fresh.status === 'pending' ? fresh.next_attempt_at_ms : null });
      return;
    }
    // A manual attempt (the console's retry of a finished delivery) counts, can turn it into a success, never fails
    // it nor the webhook, and leaves the schedule of a pending one as it is.
    const attempt = fresh.attempts + 1;
    const status: DeliveryStatus = outcome.ok ? 'success' : fresh.status;
    const next = status === 'pending' ? fresh.next_attempt_at_ms : null;
    await insertAttempt(tx, d.id, { attempt, kind, url: hook.url, startedMs, outcome, responseHeaders, nextAttemptMs: next });
    await tx.run(UPDATE_ATTEMPTED, [status, attempt, next, iso(startedMs), outcome.statusCode, outcome.responseBody, responseHeaders, outcome.error, sentHeaders, iso(endMs), d.id]);
  }, mayFailWebhook ? undefined : BOOKKEEPING_ISOLATION);
  if (failure) emitWebhookFailed(deps, failure);
  deps.log.info(
    { deliveryId: d.id, webhookId: hook.id, kind, ok: outcome.ok, statusCode: outcome.statusCode, error: outcome.error },
    'webhook delivery attempt',
  );
  return !outcome.ok;
}

/** A scheduled attempt's next attempt time: null once it succeeded or was the last (MAX_ATTEMPTS). */
function scheduledOutcome(rt: CoreRuntime, outcome: SendOutcome, attempt: number, startedMs: number, endMs: number): number | null {
  if (outcome.ok || attempt >= MAX_ATTEMPTS) return null;
  const delay = RETRY_DELAYS_MINUTES[attempt - 1]! * rt.deps.config.retryUnitMs;
  return Math.max(startedMs + delay, endMs + scaledRetryAfterMs(rt, outcome.retryAfterSeconds));
}

const ATTEMPTED_SET = `status = ?, attempts = ?, next_attempt_at_ms = ?, lease_until_ms = NULL,
  last_attempt_at = ?, last_status_code = ?, last_response_body = ?, last_response_headers = ?, last_error = ?,
  sent_headers = ?, updated_at = ?`;
const UPDATE_ATTEMPTED = `UPDATE webhook_deliveries SET ${ATTEMPTED_SET} WHERE id = ?`;
const UPDATE_SCHEDULED = `UPDATE webhook_deliveries SET ${ATTEMPTED_SET} WHERE id = ? AND status = 'pending' AND attempts = ?`;

// ---------------------------------------------------------------------------------------------------------
// History

function parseJson<T>(s: string | null): T | null {
  if (s === null) return null;
  try {
    return JSON.parse(s) as T;
  } catch {
    return null;
  }
}

export function toDelivery(r: DeliveryRow): Delivery {
  const hasResponse = r.last_status_code !== null || r.last_response_body !== null;
  return {
    id: r.id,
    webhookId: r.webhook_id,
    verificationId: r.verification_id,
    // A recovered delivery's own event_id only keeps it unique; the event it carries is the original one.
    eventId: r.original_event_id ?? r.event_id,
    eventType: r.event_type as WebhookEvent,
    status: r.status,
    attempts: r.attempts,
    lastAttemptAt: r.last_attempt_at,
    nextAttemptAt: r.status === 'pending' && r.next_attempt_at_ms !== null ? iso(r.next_attempt_at_ms) : null,
    payload: parseJson<Record<string, unknown>>(r.payload) ?? {},
    response: hasResponse
      ? { statusCode: r.last_status_code, body: r.last_response_body, headers: parseJson<Record<string, string>>(r.last_response_headers) }
      : null,
    error: r.last_error,
    origin: r.origin,
    recoveryId: r.recovery_id,
    dropReason: r.dropped_reason,
    droppedAt: r.dropped_at_ms === null ? null : iso(r.dropped_at_ms),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

// A page of a webhook's deliveries, newest first. The page's keys come from the list index alone and only the page's
// rows are read (a deferred join): with OFFSET over full rows, the last page of 50,000 deliveries read every row before
// it (≈ 1.3 KB each with the payload), 3.9 s from a cold cache. The index's order is the statement's order, tie-break
// included (migration 25), so SQLite neither sorts nor reads past the page (docs/performance.md).
const listPageSql = (where: string) =>
  perEngine((d) => {
    const key = d.insertionOrder();
    const order = `created_at_ms DESC, ${key} DESC`;
    return `SELECT * FROM webhook_deliveries WHERE ${key} IN (SELECT ${key} FROM webhook_deliveries WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?) ORDER BY ${order}`;
  });
const OF_WEBHOOK = 'webhook_id = ?';
const OF_WEBHOOK_BY_STATUS = 'webhook_id = ? AND status = ?';
const LIST_DELIVERIES = listPageSql(OF_WEBHOOK);
const LIST_DELIVERIES_BY_STATUS = listPageSql(OF_WEBHOOK_BY_STATUS);

export async function listDeliveries(deps: CoreDeps, scope: Scope, webhookId: string, q: DeliveryListQuery): Promise<{ data: Delivery[]; total: number }> {
  await getRow(deps, scope, webhookId);
  const args = q.status ? [webhookId, q.status] : [webhookId];
  // The total reads the webhook's whole range of the index: off the event loop where the store allows. Counted first
  // (as listPage does with a page read elsewhere), so that a page is never older than its total.
  const counter = deps.longReads && !deps.sql.inTransaction ? deps.longReads : deps.sql;
  const count = await counter.get<{ n: number }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE ${q.status ? OF_WEBHOOK_BY_STATUS : OF_WEBHOOK}`, args);
  const rows = await deps.sql.all<DeliveryRow>((q.status ? LIST_DELIVERIES_BY_STATUS : LIST_DELIVERIES)[deps.sql.engine], [...args, q.limit, q.offset]);
  return { data: rows.map(toDelivery), total: count?.n ?? 0 };
}

/** One delivery of a live webhook in the caller's scope; webhookId narrows it when the path names one. */
async function scopedDelivery(deps: CoreDeps, scope: Scope, deliveryId: string, webhookId?: string): Promise<{ d: DeliveryRow; hook: WebhookRow }> {
  const d = await deliveryRow(deps, deliveryId);
  const notFound = new AppError('NOT_FOUND', { message: 'No webhook delivery with this id exists.' });
  if (!d || d.organization_id !== scope.organizationId || d.environment !== scope.environment) throw notFound;
  if (webhookId !== undefined && d.webhook_id !== webhookId) throw notFound;
  const hook = await webhookRowById(deps, d.webhook_id);
  if (!hook || hook.deleted_at !== null) throw notFound;
  return { d, hook };
}

/** An attempt log entry's columns (toAttempt). */
const ATTEMPT_LOG_COLUMNS = 'attempt, kind, url, started_at, duration_ms, status_code, error, response_body, next_attempt_at';

function toAttempt(a: AttemptRow): DeliveryAttempt {
  return {
    attempt: a.attempt,
    kind: a.kind,
    url: a.url,
    startedAt: a.started_at,
    durationMs: a.duration_ms,
    statusCode: a.status_code,
    error: a.error,
    responseBody: a.response_body,
    nextAttemptAt: a.next_attempt_at,
  };
}

export async function getDelivery(deps: CoreDeps, scope: Scope, deliveryId: string, webhookId?: string): Promise<DeliveryDetail> {
  if (webhookId !== undefined) await getRow(deps, scope, webhookId);
  const { d } = await scopedDelivery(deps, scope, deliveryId, webhookId);
  const attempts = await deps.sql.all<AttemptRow>(`SELECT ${ATTEMPT_LOG_COLUMNS} FROM webhook_attempts WHERE delivery_id = ? ORDER BY seq`, [d.id]);
  return { ...toDelivery(d), attemptLog: attempts.map(toAttempt) };
}

/**
 * A page of a webhook's deliveries with each one's attempt log: the console's delivery timeline draws every shown
 * delivery's attempts. One read of the attempts for the whole page (`webhook_attempts_delivery`), where the console used
 * to ask for each shown delivery's detail: eleven calls a page, and again on each live redraw.
 */
export async function listDeliveryTimeline(deps: CoreDeps, scope: Scope, webhookId: string, q: DeliveryListQuery): Promise<{ data: DeliveryDetail[]; total: number }> {
  const page = await listDeliveries(deps, scope, webhookId, q);
  const ids = page.data.map((d) => d.id);
  const logs = new Map<string, DeliveryAttempt[]>(ids.map((id) => [id, []]));
  if (ids.length > 0) {
    const rows = await deps.sql.all<AttemptRow & { delivery_id: string }>(
      `SELECT delivery_id, ${ATTEMPT_LOG_COLUMNS} FROM webhook_attempts WHERE delivery_id IN (${ids.map(() => '?').join(', ')}) ORDER BY delivery_id, seq`,
      ids,
    );
    for (const r of rows) logs.get(r.delivery_id)!.push(toAttempt(r));
  }
  return { data: page.data.map((d) => ({ ...d, attemptLog: logs.get(d.id)! })), total: page.total };
}

// ---------------------------------------------------------------------------------------------------------
// Developer tools (console and CLI only; decisions §7 last bullet)

const RETRY_NOW_LEASE = perEngine(
  (d) => `UPDATE webhook_deliveries SET lease_until_ms = ?, next_attempt_at_ms = ${d.least('next_attempt_at_ms', '?')}
         WHERE id = ? AND status = 'pending' AND (lease_until_ms IS NULL OR lease_until_ms <= ?)`,
);

/**
 * Attempts a delivery now. A pending one makes its next scheduled attempt at once (it counts towards the five);
 * a finished one gets one extra manual attempt that can turn it into a success but never fails the webhook.
 */
export async function retryNow(rt: CoreRuntime, scope: Scope, deliveryId: string): Promise<DeliveryDetail> {
  const { deps } = rt;
  const { d } = await scopedDelivery(deps, scope, deliveryId);
  if (d.status === 'pending') {
    const nowMs = deps.clock.now();
    // The lease is committed before the attempt is sent, as the dispatcher's are.
    const { changes } = await deps.sql.transaction((tx) =>
      tx.run(
        RETRY_NOW_LEASE[tx.engine],
        [nowMs + attemptLeaseMs(deps), nowMs, d.id, nowMs],
      ),
    );
    if (changes === 1) await runScheduledAttempt(rt, d.id, 'scheduled');
  } else {
    await runScheduledAttempt(rt, d.id, 'manual');
  }
  return getDelivery(deps, scope, deliveryId);
}

export interface ReplayOptions {
  /** 'webhook' = the endpoint's URL; otherwise a URL (a local receiver, or any URL the webhook rules allow). */
  target: 'webhook' | string;
  /** false: the stored bytes with the headers of the last attempt, signatures included; true: fresh timestamp and signatures. */
  resign: boolean;
}

/** Sends a stored delivery again without touching its status or schedule; the send is logged as a replay. */
export async function replayDelivery(rt: CoreRuntime, scope: Scope, deliveryId: string, opts: ReplayOptions): Promise<ReplayResult> {
  const { deps } = rt;
  const { d, hook } = await scopedDelivery(deps, scope, deliveryId);
  let url = hook.url;
  let local = false;
  if (opts.target !== 'webhook') {
    if (isLocalReceiverUrl(opts.target)) {
      const checked = localReceiverUrl(rt, opts.target);
      if (!checked.ok) throw localReceiverRefused(checked.reason);
      url = checked.url;
      local = true;
    } else {
      const verdict = await checkWebhookUrlForRegistration(opts.target, urlPolicyOf(rt));
      if (!verdict.ok) throw new AppError('INVALID_WEBHOOK_URL', { details: [{ field: 'url', message: verdict.reason }] });
      url = verdict.url.href;
    }
  }
  const stored = parseJson<SentHeaders>(d.sent_headers);
  const startedMs = deps.clock.now();
  const useOriginal = !opts.resign && stored !== null;
  const headers = useOriginal
    ? stored
    : deliveryHeaders({ deliveryId: d.id, eventType: d.event_type, body: d.payload, secrets: signingSecrets(deps, hook, startedMs), nowMs: startedMs });
  const outcome = await send(rt, url, d.payload, headers, { local });
  await deps.sql.transaction((tx) => insertAttempt(tx, d.id, { attempt: null, kind: 'replay', url, startedMs, outcome, nextAttemptMs: null }));
  return {
    deliveryId: d.id,
    url,
    signature: useOriginal ? 'original' : 'fresh',
    ok: outcome.ok,
    statusCode: outcome.statusCode,
    error: outcome.error,
    durationMs: outcome.durationMs,
  };
}

/** The delivery's organization and environment (the CLI acts as the installation's owner and has no scope). */
export async function deliveryScope(deps: CoreDeps, deliveryId: string): Promise<Scope> {
  const d = await deliveryRow(deps, deliveryId);
  if (!d) throw new AppError('NOT_FOUND', { message: 'No webhook delivery with this id exists.' });
  return { organizationId: d.organization_id, environment: d.environment as Scope['environment'] };
}
