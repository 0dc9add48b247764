// The store's health and backups (issue 20): the loop that takes automatic backups (core/backups/schedule.ts says
// when), and the console channels behind Settings › Backups and the storage banner. The CLI: cli/db-commands.ts.
import type { z } from 'zod';
import type { BackupChannels } from '../src-shared/channels-backups';
import { AppError } from '../src-shared/app-error';
import { mayBackUpWithKey } from '../src-shared/channel-roles';
import { owner, type ConsoleContext } from './console/handlers';
import { cancelPendingRestore, createBackup, scheduleRestoreByName } from './core/backups/backups';
import { backupsOverview, runDueBackup, saveBackupSchedule } from './core/backups/schedule';
import type { CoreRuntime } from './core/runtime';
import type { Feature } from './features';
import { storageHealthOf } from './store/storage-faults';

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
      // SQLite engine only: the data folder's disk, watched on the store's connection.
      storageHealthOf(rt.deps.db)?.status() ?? { status: 'ok', reason: null, message: null, dataDir, freeBytes: null, since: null, refused: 0 },
    'backups:list': async () => backupsOverview(rt),
    'backups:create': async ({ includeKey }) => {
      if (includeKey === true && !mayBackUpWithKey((await owner(ctx)).role)) {
        throw new AppError('FORBIDDEN', { message: 'Only an owner can make a backup that includes the data key (secret.key).' });
      }
      // SQLite engine only: a copy of the store's file (core/backups/backups.ts).
      return createBackup(rt.deps.db, dataDir, { includeKey: includeKey === true });
    },
    'backups:schedule': async (s) => {
      await saveBackupSchedule(rt, s);
      return backupsOverview(rt);
    },
    'backups:restoreAtRestart': async ({ name }) => {
      scheduleRestoreByName(dataDir, name);
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
