// The composition root: builds the running service from a config — store, core, queue worker, HTTP listener
// and console door — so Electron's main process and `vconsole serve` start and stop it exactly the same way
// (graceful stop: stop accepting, drain the queue, close the store).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { systemClock, type Clock } from './core/clock';
import type { CoreConfig, CoreDeps, Logger } from './core/context';
import { recoverIdempotency } from './core/idempotency/idempotency';
import type { CoreRuntime, RuntimeInfo } from './core/runtime';
import { processVerification, VERIFICATION_JOB, type VerificationRuntime } from './core/verification/engine';
import type { StoredWithText } from './core/verification/records';
import { FEATURES, type FeatureRuntime } from './features';
import { auditExportFile } from './feature-audit';
import { consoleCall, createHandlers, type Handlers } from './console/handlers';
import type { AuditExportFile } from './console/audit-download';
import { createWebBridge, type WebBridge } from './console/web-bridge';
import { buildApp, endIdleSockets } from './http/app';
import { listenerProblem, parsePublicUrl } from './http/public-url';
import { JobWorker } from './jobs/worker';
import { releaseLeases } from './jobs/queue';
import { releaseDeliveryLeases } from './core/webhooks/deliveries';
import { sealPlainWebhookSecrets } from './core/webhooks/secret-sealing';
import { rendererDir as defaultRendererDir, resourcesDir as defaultResourcesDir } from './paths';
import { createProviderRegistry } from './providers/registry';
import { type SecretBox } from './core/providers/secret-box';
import { checkSecretKey, KEY_FINGERPRINT_SETTING } from './core/providers/secret-key-check';
import { openDatabase, StoreError, type Db } from './store/database';
import { applyPendingRestore } from './core/backups/backups';
import { appendInstallationAudit } from './core/audit/audit-log';
import { explainOpenError, openStoreForService, storeFile } from './store/store-open';
import { attachStorageHealth, StorageHealth, storageFault } from './store/storage-faults';
import { GroupCommitter } from './store/group-commit';
import { createServicePort } from './store/service-port';
import { ReaderThread, type LongReads } from './store/reader-thread';
import type { SqlQueries } from './store/sql-port';
import { acquireDataFolderLock, DataFolderLockedError, type DataFolderLock, type LockDoor } from './store/data-folder-lock';
import { attachLiveEvents, attachNotifiedLiveEvents, liveEventsOf } from './core/events/live-events';
import type { NotificationSource } from './store/notifications';
import { followSettings } from './core/settings/settings-sync';
import type { DurabilityObserver, WritePort } from './store/write-port';
import { effectiveSettings, noteRunningListener, readPersistedSettings } from './core/settings/settings-store';

export const VERSION = '0.1.0';

export interface ServiceConfig {
  dataDir: string;
  /** Seals stored credentials (Electron passes safeStorage); default: AES-256-GCM with <dataDir>/secret.key. */
  secretBox?: SecretBox;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  retryUnitMs?: number;
  allowWebhookHosts?: string[];
  rateLimitPerMinute?: number;
  scryptN?: number;
  clock?: Clock;
  /** Where the core's log lines go (default stdout); tests capture them to check nothing secret is logged. */
  logStream?: { write(line: string): void };
  /** One logger for the core and Fastify (the Electron door's rotating file); when given, logStream/logLevel are unused. */
  logger?: pino.Logger;
  /** 'silent' for tests; a pino level otherwise. */
  logLevel?: string;
  /** Serve the web console and its bridge on the listener (headless mode). */
  webConsole?: boolean;
  rendererDir?: string;
  resourcesDir?: string;
  /** Start the HTTP listener (false: core and console handlers only). */
  listen?: boolean;
  door?: 'electron' | 'web';
  /** Automatic backups (docs/reliability.md, "Backups"); absent fields come from Settings, then the defaults. */
  backups?: { everyHours?: number; keep?: number };
  /** How this service was started, as a second start on the same data folder is told (default: from `door`). */
  lockDoor?: LockDoor;
  /** Tests only: sees every group commit and WAL sync (test/reliability/durable-acks.test.ts). */
  durabilityObserver?: DurabilityObserver;
  /** Tests only: stands in for the WAL sync (GroupCommitOptions.syncForTests), to hold syncs back. SQLite only. */
  syncForTests?: () => Promise<void>;
  /** A team server (docs/team-server.md): its public URL; console sign-in; the only Host answered. */
  publicUrl?: string;
  /** Serve HTTPS directly (PEM certificate chain and key); needs an https publicUrl. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Proxy addresses whose X-Forwarded-* headers are trusted (never by default). */
  trustProxy?: string[];
  /**
   * A team server's store (docs/team-server.md): postgres://… instead of the data folder's SQLite file. The data
   * folder still holds this instance's lock, uploads, batch files and `secret.key` (the same key on every instance).
   */
  databaseUrl?: string;
  /** How long a claimed job or webhook attempt is held (CoreConfig.leaseMs; default 60 s). */
  leaseMs?: number;
  /**
   * `serve --replace-secret-key`: the store's data key is lost for good; this data folder's (made when missing)
   * becomes the store's, instead of the start being refused (core/providers/secret-key-check.ts).
   */
  replaceSecretKey?: boolean;
}

export interface RunningService {
  rt: CoreRuntime;
  deps: CoreDeps;
  app: FastifyInstance | null;
  handlers: Handlers;
  /**
   * The audit export as a file in parts, for a door's download (console/audit-download.ts): the web console's and the
   * desktop app's. Inside `consoleCall`, as every channel's handler: audited as the console's, storage faults as 503.
   */
  auditExportFile: AuditExportFile;
  worker: JobWorker;
  /** http://host:port, once listening. */
  url: string | null;
  apiBaseUrl: string | null;
  /** A fresh one-time console URL (headless mode only). */
  consoleUrl(): string | null;
  stop(): Promise<void>;
}

/** Credentials never reach a log line, whatever object carries them (docs/providers.md); also for a caller's `logger`. */
export const LOG_REDACT_PATHS = ['secret', 'apiKey', 'password', 'authorization', '*.secret', '*.apiKey', '*.password', '*.authorization', '*.headers.authorization', '*.headers["x-api-key"]', 'req.headers.cookie'];

export class ListenError extends Error {
  override name = 'ListenError';
}

/** The core without doors: store, runtime and (optionally) the queue worker. The CLI's admin commands use it alone. */
export interface Core {
  deps: CoreDeps;
  rt: CoreRuntime;
  worker: JobWorker;
  /** Records the listener's address (for Settings and the lock file); resolves once noted. */
  setPort(port: number | null): Promise<void>;
  /** The listener address to use: a flag given in cfg, else the saved setting, else the default. */
  listen: { host: string; port: number };
  close(): Promise<void>;
}

export async function createCore(cfg: ServiceConfig & { startWorker?: boolean }): Promise<Core> {
  // A process that runs the queue, the dispatcher or a listener holds the data folder's lock; a second one refuses
  // to start (DataFolderLockedError). Admin commands (startWorker: false) write through SQLite's own locking.
  let lock: DataFolderLock | null = null;
  if (cfg.startWorker !== false) {
    try {
      lock = acquireDataFolderLock(cfg.dataDir, cfg.lockDoor ?? (cfg.door === 'electron' ? 'electron' : 'serve'));
    } catch (err) {
      // A read-only or full folder is said in words, with the next step (docs/reliability.md, "Storage faults").
      throw err instanceof DataFolderLockedError ? err : explainOpenError(storeFile(cfg.dataDir), cfg.dataDir, err);
    }
  }
  try {
    return await buildCore(cfg, lock);
  } catch (err) {
    lock?.release();
    throw err;
  }
}

/** The store the core runs on, whatever the engine. */
interface ServiceStore {
  sql: SqlQueries;
  /** SQLite only: the connection (deps.db). */
  db?: Db;
  /** SQLite only: the barrier for answers built from reads (a PostgreSQL commit is durable when it returns). */
  durable?: () => Promise<void>;
  /** SQLite only: reads that scan many rows, off the event loop (store/reader-thread.ts). */
  longReads?: LongReads;
  /**
   * True when this process is the store's only user (SQLite: the data folder's lock): at start it releases what a
   * crashed predecessor held. On PostgreSQL other instances may be alive: leases expire instead.
   */
  soleUser: boolean;
  /** PostgreSQL, a serving instance: the changes other instances commit (live events, settings) are heard here. */
  notifications?: NotificationSource;
  close(): Promise<void>;
}

async function buildCore(cfg: ServiceConfig & { startWorker?: boolean }, lock: DataFolderLock | null): Promise<Core> {
  const clock = cfg.clock ?? systemClock;
  // Credentials never reach a log line, whatever object carries them (docs/providers.md).
  const log: Logger = cfg.logger ?? pino({ level: cfg.logLevel ?? 'info', redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } }, cfg.logStream);
  if (cfg.databaseUrl) return assembleCore(cfg, lock, { clock, log }, await openPostgresStore(cfg, log));
  // A restore scheduled from the console happens here: the lock is held and the store is not open yet.
  if (lock) applyPendingRestore(cfg.dataDir, lock, log);
  const db = openStoreForService(cfg.dataDir, openDatabase);
  const storage = new StorageHealth(cfg.dataDir, log, () => clock.now());
  attachStorageHealth(db, storage);
  // The one write port (store/write-port.ts): group commits whose WAL sync runs on its own thread.
  const committer = new GroupCommitter(db, {
    offLoopSync: true,
    warn: (message) => log.warn(message),
    ...(cfg.durabilityObserver ? { observe: cfg.durabilityObserver } : {}),
    ...(cfg.syncForTests ? { syncForTests: cfg.syncForTests } : {}),
  });
  const sql = createServicePort(db, healthWatchedCommit(db, storage, committer));
  // Long reads (the Dashboard's counts) on a connection of their own in a thread of their own: the loop goes on.
  const longReads = new ReaderThread({ file: db.name, fallback: sql, pause: () => committer.walRestartMissed(), warn: (message) => log.warn(message) });
  const store: ServiceStore = {
    sql,
    db,
    durable: () => committer.durable(),
    longReads,
    soleUser: true,
    async close() {
      await longReads.close();
      await committer.close();
      db.close();
    },
  };
  // Change events for the console, published after the commits that make them true (docs/console-live.md).
  attachLiveEvents(db, log);
  return assembleCore(cfg, lock, { clock, log }, store);
}

/**
 * A team server's store: migrations first (under the advisory lock: one instance applies them, the others wait),
 * then the port and this instance's LISTEN connection for other instances' work signals.
 */
async function openPostgresStore(cfg: ServiceConfig & { startWorker?: boolean }, log: Logger): Promise<ServiceStore> {
  // Loaded on use: a desktop or SQLite service never loads the PostgreSQL driver (docs/performance.md, "Cold start").
  const [{ createPgServicePort }, { migratePostgres }] = await Promise.all([import('./store/pg/pg-service'), import('./store/pg/migrate')]);
  const port = createPgServicePort(cfg.databaseUrl!, { warn: (m) => log.warn(m), listen: cfg.startWorker !== false });
  try {
    const m = await migratePostgres(port, { onWait: () => log.info('another instance is migrating the database; waiting for it') });
    if (m.applied.length > 0) log.info({ from: m.from, to: m.to }, 'database migrated');
    await port.startListening();
  } catch (err) {
    await port.close().catch(() => undefined);
    // One line that names the server (never its password) and what it said.
    throw new StoreError(`Could not open the PostgreSQL database at ${port.where}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { sql: port, soleUser: false, ...(cfg.startWorker !== false ? { notifications: port } : {}), close: () => port.close() };
}

/**
 * Every commit tells the store's health whether the disk took it (docs/reliability.md, "Storage faults"). While a
 * fault lasts, only a commit that changed rows shows that writes resumed: the idle polls of the job worker and the
 * dispatcher commit empty transactions every 200 ms, and would clear the fault (and restart its log lines) at
 * once. SQLite engine only: total_changes(), read only while the store is degraded.
 */
function healthWatchedCommit(db: Db, storage: StorageHealth, committer: GroupCommitter): WritePort['commit'] {
  const totalChanges = db.prepare('SELECT total_changes()').pluck();
  return (fn) => {
    let wrote = false;
    const measured = !storage.degraded
      ? fn
      : () => {
          const before = totalChanges.get() as number;
          const note = (v: unknown) => {
            wrote = (totalChanges.get() as number) > before;
            return v;
          };
          const r = fn();
          return r instanceof Promise ? r.then(note) : note(r);
        };
    return committer.commit(measured).then(
      (v) => {
        if (wrote && storage.degraded) storage.ok();
        return v;
      },
      (err: unknown) => {
        const reason = storageFault(err);
        if (reason) storage.fault(reason, err);
        throw err;
      },
    );
  };
}

async function assembleCore(
  cfg: ServiceConfig & { startWorker?: boolean },
  lock: DataFolderLock | null,
  { clock, log }: { clock: Clock; log: Logger },
  store: ServiceStore,
): Promise<Core> {
  try {
    return await assemble(cfg, lock, { clock, log }, store);
  } catch (err) {
    // A start that failed (the store refused a read or write of the start-up steps): close the store (and the WAL
    // sync thread) before the lock goes (createCore releases it).
    await store.close().catch(() => undefined);
    throw err;
  }
}

async function assemble(
  cfg: ServiceConfig & { startWorker?: boolean },
  lock: DataFolderLock | null,
  { clock, log }: { clock: Clock; log: Logger },
  store: ServiceStore,
): Promise<Core> {
  const { sql, db } = store;
  // Saved settings (docs/settings.md) fill in what the caller did not give explicitly.
  const persisted = await readPersistedSettings(sql);
  const effective = effectiveSettings(persisted, cfg);
  const config: CoreConfig = {
    scryptN: cfg.scryptN ?? 2 ** 17,
    rateLimitPerMinute: effective.rateLimitPerMinute,
    retryUnitMs: cfg.retryUnitMs ?? 60_000,
    allowWebhookHosts: cfg.allowWebhookHosts ?? [],
    bootId: randomBytes(8).toString('hex'),
    resourcesDir: cfg.resourcesDir ?? defaultResourcesDir(),
    ...(cfg.backups ? { backups: cfg.backups } : {}),
    ...(cfg.leaseMs !== undefined ? { leaseMs: cfg.leaseMs } : {}),
  };
  // Webhook secrets use the key-file box in every door (never safeStorage): headless serve must sign for the same store.
  // Its key is checked against the store's record before anything is sealed or opened: a data folder without the key
  // the store's secrets are sealed with refuses to start (docs/team-server.md, "The data key"); the first start on a
  // store makes the key (when missing) and records it.
  // A serving team instance holds the serving lock from before its check until it stops, so a `--replace-secret-key`
  // elsewhere is refused while it runs; the replacing instance takes it after its own replacement.
  const replace = cfg.replaceSecretKey === true;
  // Each time a new LISTEN connection takes the lock again (the old one was lost, and the lock with it), the store's
  // record is read again: a key replaced in that gap leaves this instance sealing with the old one.
  let myKey: string | null = null;
  const retaken = async () => {
    const now = (await sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [KEY_FINGERPRINT_SETTING]))?.value ?? null;
    if (myKey !== null && now !== myKey) {
      log.error(
        `The data key of this database was replaced (--replace-secret-key) while this instance's connection was down: this instance still seals with the old key, and what it seals now the others cannot open. Stop it, copy the new secret.key into ${cfg.dataDir}, and start it again.`,
      );
    }
  };
  if (!replace) await store.notifications?.holdServingLock?.(retaken);
  const keyCheck = await checkSecretKey(sql, cfg.dataDir, { replace });
  if (replace) await store.notifications?.holdServingLock?.(retaken);
  if (store.notifications) myKey = (await sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [KEY_FINGERPRINT_SETTING]))?.value ?? null;
  if (keyCheck.warning) log.warn(keyCheck.warning);
  if (keyCheck.outcome === 'replaced') {
    log.warn('secret.key replaced (--replace-secret-key): webhook secrets and provider credentials sealed with the previous key no longer open; rotate them or enter them again, and copy this secret.key to every other instance');
  }
  const dataBox = keyCheck.box;
  const deps: CoreDeps = {
    sql,
    ...(db ? { db } : {}),
    clock,
    config,
    log,
    ...(store.durable ? { durable: store.durable } : {}),
    ...(store.longReads ? { longReads: store.longReads } : {}),
    secrets: dataBox,
  };
  await sealPlainWebhookSecrets(deps);
  if (store.notifications) {
    // A team server (docs/team-server.md): the changes any instance commits reach this one's consoles, and a setting
    // saved anywhere applies here too. Both listen before this instance serves anything.
    await attachNotifiedLiveEvents(sql, store.notifications, log);
    await followSettings(deps, store.notifications, persisted);
  }
  // Assigned below; the runtime's wake() needs the worker that needs the runtime.
  // eslint-disable-next-line prefer-const
  let worker: JobWorker | undefined;
  const verification: VerificationRuntime = {
    deps,
    providers: createProviderRegistry(config.resourcesDir, { deps, secretBox: cfg.secretBox ?? dataBox, dataDir: cfg.dataDir }),
    specs: Object.assign({}, ...FEATURES.map((f) => f.specs ?? {})) as VerificationRuntime['specs'],
    wake: () => worker?.wake(),
  };
  let port: number | null = null;
  const host = effective.host;
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const publicOrigin = cfg.publicUrl ? new URL(cfg.publicUrl).origin : null;
  const info = (): RuntimeInfo => ({
    version: VERSION,
    apiBaseUrl: port === null ? null : publicOrigin ? `${publicOrigin}/api/v1` : `http://${displayHost}:${port}/api/v1`,
    dataDir: cfg.dataDir,
    developerOptions: { allowWebhookHosts: config.allowWebhookHosts, retryUnitMs: config.retryUnitMs },
  });
  const rt: CoreRuntime = { deps, verification, info };
  const featureRt: FeatureRuntime = { rt, wake: () => worker?.wake() };
  worker = new JobWorker({
    sql,
    clock,
    log,
    ...(config.leaseMs !== undefined ? { leaseMs: config.leaseMs } : {}),
    handlers: {
      [VERIFICATION_JOB]: (job) =>
        processVerification(verification, (job.payload as { verificationId: string }).verificationId, job.completeWith, job.local as StoredWithText | undefined),
      ...Object.assign({}, ...FEATURES.map((f) => f.jobHandlers?.(featureRt) ?? {})),
    },
  });
  const loops: { stop(): Promise<void> }[] = [];
  if (cfg.startWorker !== false) {
    // Only a process that runs the queue may release what a crashed predecessor held: idempotency keys, job
    // leases and delivery-attempt leases (one service per data folder; docs/reliability.md). On PostgreSQL other
    // instances may be alive and hold them: their leases expire instead (docs/team-server.md).
    if (store.soleUser) {
      await recoverIdempotency(deps);
      await releaseLeases(deps.sql, deps.clock.now());
      await releaseDeliveryLeases(deps);
    }
    worker.start();
    for (const f of FEATURES) {
      const loop = f.start?.(featureRt);
      if (loop) loops.push(loop);
    }
  }
  const w = worker;
  return {
    deps,
    rt,
    worker: w,
    setPort: async (p) => {
      port = p;
      await noteRunningListener(deps, host, p);
      lock?.update({ host: displayHost, port: p, url: p === null ? null : `http://${displayHost}:${p}` });
    },
    listen: { host: effective.host, port: effective.port },
    async close() {
      try {
        void (verification.providers as { shutdown?: () => Promise<void> }).shutdown?.();
        for (const l of loops) await l.stop();
        await w.stop();
        await (verification.providers as { close?: () => Promise<void> }).close?.();
        await store.close();
      } finally {
        lock?.release();
      }
    },
  };
}

export async function startService(cfg: ServiceConfig): Promise<RunningService> {
  if (process.env['VC_ELD_REPORT'] === '1') void import('./jobs/event-loop-report').then((m) => m.startEventLoopReport());
  const core = await createCore(cfg);
  const { deps, rt, worker } = core;
  const log = deps.log;
  let port: number | null = null;
  const { host, port: wantedPort } = core.listen;
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  // A team server (docs/team-server.md): checked before anything listens.
  let publicUrl: URL | null;
  try {
    publicUrl = cfg.publicUrl ? parsePublicUrl(cfg.publicUrl) : null;
  } catch (e) {
    await core.close();
    throw new ListenError((e as Error).message);
  }
  const problem = cfg.listen === false ? null : listenerProblem({ host, publicUrl, tls: cfg.tls !== undefined });
  if (problem) {
    await core.close();
    throw new ListenError(problem);
  }
  const consoleCtx = { rt, door: cfg.door ?? ('web' as const), teamSignIn: publicUrl !== null };
  const handlers = createHandlers(consoleCtx, FEATURES.flatMap((f) => (f.consoleHandlers ? [f.consoleHandlers(consoleCtx)] : [])));
  const auditExport: AuditExportFile = (format) => consoleCall(consoleCtx, () => auditExportFile(consoleCtx, format));
  let bridge: WebBridge | null = null;
  let app: FastifyInstance | null = null;
  if (cfg.listen !== false) {
    const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
    if (cfg.webConsole) {
      bridge = createWebBridge({ handlers, rendererDir: cfg.rendererDir ?? defaultRendererDir(), port: () => port, log, uploadDir: join(cfg.dataDir, 'uploads'), live: liveEventsOf(deps),
        ...(publicUrl ? { team: { publicUrl, deps } } : {}),
        auditExportFile: auditExport,
        onSessionOpened: ({ userAgent }) =>
          deps.sql.transaction((tx) =>
            appendInstallationAudit(
              { ...deps, sql: tx },
              { action: 'console.session_opened', target: { type: 'consoleSession', id: null }, detail: { door: 'web', userAgent } },
              { actor: { type: 'console', id: null, label: 'Web console (one-time link)' }, door: 'console' },
            ),
          ),
      });
    }
    // Any failure from here on closes the core: a process that printed its error and kept the worker and the data
    // folder's lock was left running (a bad proxy address or TLS key reached buildApp, and `serve` never exited).
    try {
      app = await buildApp({
        rt,
        loopbackOnly: loopback,
        ...(publicUrl ? { publicUrl } : {}),
        ...(cfg.tls ? { https: cfg.tls } : {}),
        ...(cfg.trustProxy ? { trustProxy: cfg.trustProxy } : {}),
        port: () => port,
        ...(cfg.logger ? { loggerInstance: cfg.logger } : { logger: cfg.logLevel === 'silent' ? false : { level: cfg.logLevel ?? 'info', redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'] } }),
        extensions: bridge ? [(a) => bridge!.plugin(a)] : [],
        routes: FEATURES.flatMap((f) => (f.httpRoutes ? [f.httpRoutes] : [])),
      });
    } catch (err) {
      await core.close();
      throw new ListenError(`The HTTP listener could not be set up: ${(err as Error).message}`);
    }
    try {
      await app.listen({ host, port: wantedPort });
    } catch (err) {
      await core.close();
      const code = (err as { code?: string }).code;
      if (code === 'EADDRINUSE') throw new ListenError(`Port ${wantedPort} is already in use by another program (listening on ${host}). Choose another with --port or in Settings.`);
      if (code === 'EACCES') throw new ListenError(`Not allowed to listen on ${host}:${wantedPort}. Choose a port above 1024.`);
      throw err;
    }
    const addr = app.server.address();
    port = typeof addr === 'object' && addr ? addr.port : null;
    await core.setPort(port);
  }
  const url = port === null ? null : publicUrl ? publicUrl.origin : `http://${displayHost}:${port}`;

  let stopped = false;
  return {
    rt,
    deps,
    app,
    handlers,
    auditExportFile: auditExport,
    worker,
    url,
    apiBaseUrl: rt.info().apiBaseUrl,
    consoleUrl: () => {
      if (!bridge || !url) return null;
      // A team server has no one-time link: people open the console and sign in.
      const token = bridge.issueToken();
      return token === null ? `${url}/console/` : `${url}/console/#token=${token}`;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // Live upstream calls in flight get a bounded drain, then end VERIFICATION_CANCELLED (docs/providers.md).
      void (rt.verification.providers as { shutdown?: () => Promise<void> }).shutdown?.();
      if (app) {
        // Sockets serving no request (idle keep-alive ones, and those a browser opened ahead of time and never
        // used) would hold the close for up to a minute: end them now and as each in-flight answer completes.
        const closing = app.close();
        const sweep = setInterval(() => endIdleSockets(app), 100);
        endIdleSockets(app);
        try {
          await closing;
        } finally {
          clearInterval(sweep);
        }
      }
      await core.close();
    },
  };
}
