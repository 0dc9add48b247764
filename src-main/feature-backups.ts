// The store's health and backups (issue 20): automatic backups on a schedule (default daily, keep 7), and the
// console channels behind Settings › Backups and the storage banner. The CLI commands live in cli/db-commands.ts.
import { join } from 'node:path';
import type { z } from 'zod';
import { AppError } from '../src-shared/app-error';
import type { BackupChannels } from '../src-shared/channels-backups';
import { BACKUP_EVERY_HOURS_DEFAULT, BACKUP_KEEP_DEFAULT, BackupScheduleSchema, type BackupSchedule, type BackupsOverview } from '../src-shared/schemas/backups';
import type { ConsoleContext } from './console/handlers';
import {
  cancelPendingRestore,
  createBackup,
  KEY_FILE,
  backupsDir,
  lastRestoreOutcome,
  listBackups,
  pendingRestore,
  pruneAutoBackups,
  scheduleRestore,
} from './core/backups/backups';
import type { CoreRuntime } from './core/runtime';
import type { Feature } from './features';
import { storageHealthOf } from './store/storage-faults';

const KEYS = { everyHours: 'backups.every_hours', keep: 'backups.keep' } as const;

/** The schedule in force: command-line flags, else the saved setting, else daily and keep 7. */
export function backupSchedule(rt: CoreRuntime): BackupSchedule & { fromFlags: boolean } {
  const flags = rt.deps.config.backups ?? {};
  const get = rt.deps.db.prepare('SELECT value FROM settings WHERE key = ?');
  const saved = (key: string): number | undefined => {
    const row = get.get(key) as { value: string } | undefined;
    if (!row) return undefined;
    const n = Number(JSON.parse(row.value));
    return Number.isInteger(n) ? n : undefined;
  };
  return {
    everyHours: flags.everyHours ?? saved(KEYS.everyHours) ?? BACKUP_EVERY_HOURS_DEFAULT,
    keep: flags.keep ?? saved(KEYS.keep) ?? BACKUP_KEEP_DEFAULT,
    fromFlags: flags.everyHours !== undefined || flags.keep !== undefined,
  };
}

export function saveBackupSchedule(rt: CoreRuntime, s: BackupSchedule): void {
  const parsed = BackupScheduleSchema.parse(s);
  const put = rt.deps.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  rt.deps.db.transaction(() => {
    put.run(KEYS.everyHours, JSON.stringify(parsed.everyHours));
    put.run(KEYS.keep, JSON.stringify(parsed.keep));
  })();
}

export function backupsOverview(rt: CoreRuntime): BackupsOverview {
  const dataDir = rt.info().dataDir;
  const keyFile = join(dataDir, KEY_FILE);
  return {
    dir: backupsDir(dataDir),
    backups: listBackups(dataDir),
    schedule: backupSchedule(rt),
    pendingRestore: pendingRestore(dataDir),
    lastRestore: lastRestoreOutcome(dataDir),
    keyFile,
    keyNote: `Sealed credentials and webhook secrets open only with ${keyFile}. Backups do not carry it unless made with "include the key": keep a copy of it apart.`,
  };
}

/**
 * Takes an automatic backup when the newest one is older than the schedule, then prunes to the kept number.
 * Returns the new backup's name, or null when none was due.
 */
export async function runDueBackup(rt: CoreRuntime, now = Date.now()): Promise<string | null> {
  const { everyHours, keep } = backupSchedule(rt);
  if (everyHours <= 0) return null;
  const dataDir = rt.info().dataDir;
  const newest = listBackups(dataDir).find((b) => b.auto);
  if (newest && now - Date.parse(newest.createdAt) < everyHours * 3_600_000) return null;
  const made = await createBackup(rt.deps.db, dataDir, { auto: true, now });
  pruneAutoBackups(dataDir, keep);
  rt.deps.log.info({ file: made.file, bytes: made.bytes }, 'automatic backup written and verified');
  return made.name;
}

/** First look five minutes after start (a service started for a moment makes no backup), then every ten. */
const FIRST_CHECK_MS = 5 * 60_000;
const CHECK_EVERY_MS = 10 * 60_000;

function startBackupLoop(rt: CoreRuntime): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = runDueBackup(rt)
      .catch((err: unknown) => rt.deps.log.error({ err: (err as Error).message }, 'automatic backup failed; the next check tries again'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, CHECK_EVERY_MS).unref();
      });
  };
  timer = setTimeout(tick, FIRST_CHECK_MS).unref();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

type BackupHandlers = {
  [K in keyof BackupChannels]: (input: z.output<BackupChannels[K]['input']>) => Promise<z.input<BackupChannels[K]['output']>>;
};

export function backupConsoleHandlers(ctx: ConsoleContext): BackupHandlers {
  const { rt } = ctx;
  const dataDir = rt.info().dataDir;
  return {
    'storage:status': async () =>
      storageHealthOf(rt.deps.db)?.status() ?? { status: 'ok', reason: null, message: null, dataDir, freeBytes: null, since: null, refused: 0 },
    'backups:list': async () => backupsOverview(rt),
    'backups:create': async ({ includeKey }) => createBackup(rt.deps.db, dataDir, { includeKey: includeKey === true }),
    'backups:schedule': async (s) => {
      saveBackupSchedule(rt, s);
      return backupsOverview(rt);
    },
    'backups:restoreAtRestart': async ({ name }) => {
      const b = listBackups(dataDir).find((x) => x.name === name);
      if (!b) throw new AppError('NOT_FOUND', { message: `No backup named ${name} in ${backupsDir(dataDir)}.` });
      scheduleRestore(dataDir, b.file);
      return backupsOverview(rt);
    },
    'backups:cancelRestore': async () => {
      cancelPendingRestore(dataDir);
      return backupsOverview(rt);
    },
  };
}

export const backupsFeature: Feature = {
  name: 'backups',
  consoleHandlers: (ctx) => backupConsoleHandlers(ctx),
  start: (f) => startBackupLoop(f.rt),
};
