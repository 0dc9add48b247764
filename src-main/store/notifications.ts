// Notifications between the instances of a team server (docs/team-server.md, "Live events and settings across
// instances"): PostgreSQL's NOTIFY, sent by triggers of the database (PostgreSQL migration 18) inside the transaction
// that changes the rows, delivered to every instance at its commit (never for a rollback). Each instance receives
// them on its one LISTEN connection (store/pg/pg-service.ts). Engine-neutral: the core sees only this interface.

/** Changes of the rows the console shows (core/events/live-events.ts): a JSON array of row events per message. */
export const LIVE_EVENTS_CHANNEL = 'vc_events';
/** A statement changed the `settings` table (core/settings/settings-sync.ts): the payload is empty. */
export const SETTINGS_CHANNEL = 'vc_settings';
/**
 * The advisory lock ("vc", 3) an instance holds in shared mode, on its LISTEN connection, while it records live
 * events. The triggers send `vc_events` only while some session holds it: a NOTIFY serialises the commits of every
 * notifying transaction of the cluster (PostgreSQL holds a cluster-wide lock from the NOTIFY's queueing until after
 * the commit), a cost the writes pay only while a console somewhere is watching. A holder that dies releases it.
 */
export const LIVE_DEMAND_LOCK = [0x7663, 3] as const;
/**
 * The advisory lock ("vc", 5) every serving instance holds in shared mode on its LISTEN connection, from before its
 * data-key check until it stops (a holder that dies releases it). `serve --replace-secret-key` takes it exclusively,
 * without waiting, in the transaction that records the new key: so it is refused while another instance serves (which
 * would go on sealing with the old key), and an instance starting meanwhile waits for that commit and then checks its
 * key against the new record (docs/team-server.md, "The data key").
 */
export const SERVING_LOCK = [0x7663, 5] as const;

export interface ChannelListener {
  /** One notification's payload. Called outside any transaction; must not throw. */
  notify(payload: string): void;
  /**
   * The LISTEN connection (re)connected and listens again: whatever was sent while it was down is lost, so what a
   * listener derives from the notifications must be rebuilt (a live-event reset, a settings reload).
   */
  resumed?(): void;
}

export interface NotificationSource {
  /**
   * Listens to `channel` on this instance's LISTEN connection. Resolves once the LISTEN is in effect (or at once if
   * this store does not listen: a CLI command). Returns the function that stops listening.
   */
  listenTo(channel: string, listener: ChannelListener): Promise<() => void>;
  /**
   * Whether this instance wants live change events now (LIVE_DEMAND_LOCK); kept across reconnections. Resolves once
   * the database knows (or at once when it cannot be told: the connection is down, and takes it when back).
   */
  demandLiveEvents?(on: boolean): Promise<void>;
  /**
   * Holds SERVING_LOCK in shared mode from now until the store closes (taken again by a new LISTEN connection, which
   * then runs `retaken`: the key may have been replaced while no connection held it). Resolves once held: it waits
   * while a `--replace-secret-key` transaction holds it exclusively, and while the connection is down (bounded).
   */
  holdServingLock?(retaken?: () => Promise<void>): Promise<void>;
}
