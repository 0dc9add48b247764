// What every core function needs: the store, the clock, the configuration and a logger.
import type { Db } from '../store/database';
import type { LongReads } from '../store/reader-thread';
import type { SqlQueries } from '../store/sql-port';
import type { WritePort } from '../store/write-port';
import type { Clock } from './clock';
import type { SecretBox } from './providers/secret-box';

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {} };

export interface CoreConfig {
  /** scrypt cost parameter N; OWASP recommends 2^17. Tests may lower it to keep the suite quick. */
  scryptN: number;
  /** Per-key request budget per minute for the HTTP door (0 disables). */
  rateLimitPerMinute: number;
  /** Length of one "minute" of the webhook retry schedule (decisions §11 --retry-unit-ms). */
  retryUnitMs: number;
  /** host:port pairs exempt from the webhook URL rules (decisions §11 --allow-webhook-host). */
  allowWebhookHosts: string[];
  /** Random id of this process, used to release idempotency keys held by a crashed predecessor. */
  bootId: string;
  /** Folder holding sandbox fixtures and routing data (resources/). */
  resourcesDir: string;
  /** Automatic backups given on the command line (`serve --backup-every/--backup-keep`); they win over Settings. */
  backups?: { everyHours?: number; keep?: number };
  /**
   * How long a claimed job or webhook attempt is held before any instance may claim it again (`serve --lease-ms`;
   * default 60 s). Longer than any job or attempt runs (an attempt times out after 10 s); shorter only for tests of
   * a takeover after a crash (docs/team-server.md, "Claims, leases and takeover").
   */
  leaseMs?: number;
}

export interface CoreDeps {
  /**
   * The store, whatever the engine (store/sql-port.ts): every read and write of the core goes through it. A
   * transaction's handle (`tx`) is passed down to whatever runs inside it (`{ ...deps, sql: tx }` where a function
   * takes deps); the port itself refuses to be used from inside a transaction (store/service-port.ts).
   */
  sql: SqlQueries;
  /**
   * The SQLite connection under `sql`, for what only SQLite has (backups with VACUUM INTO, the live-events
   * triggers, the API-key cache's PRAGMA data_version, storage health); each use is marked "SQLite engine only".
   * Never for the core's reads and writes: those go through `sql`. Absent when the store is PostgreSQL.
   */
  db?: Db;
  /**
   * Resolves once every write committed so far is durable: the barrier for answers built from reads (the HTTP
   * door awaits it before each response). Absent where every commit is durable when it returns (deps built by a
   * test or the CLI around synchronous=FULL transactions).
   */
  durable?: WritePort['durable'];
  /**
   * Reads that scan many rows (a summary's counts over a period), answered off the event loop: a read-only connection
   * in a thread of its own (store/reader-thread.ts), SQLite engine only. Absent on PostgreSQL (its reads run in the
   * server already) and in deps built by tests or the CLI: such reads then use `sql`.
   */
  longReads?: LongReads;
  clock: Clock;
  config: CoreConfig;
  log: Logger;
  /**
   * The data folder's key-file box (`<dataDir>/secret.key`), never safeStorage, so every door can open what it
   * seals: webhook signing secrets (docs/webhooks.md). createCore always sets it; deps built for a test that never
   * touches a sealed value may leave it out.
   */
  secrets?: SecretBox;
}
