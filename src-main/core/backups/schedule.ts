// The automatic backup schedule and the console's view of the backups (docs/reliability.md, "Backups"): which
// schedule is in force (command-line flags, else Settings, else daily keeping 7), and a backup when one is due.
import { join } from 'node:path';
import { BACKUP_EVERY_HOURS_DEFAULT, BACKUP_KEEP_DEFAULT, BackupScheduleSchema, type BackupSchedule, type BackupsOverview } from '../../../src-shared/schemas/backups';
import type { CoreRuntime } from '../runtime';
import { backupsDir, createBackup, KEY_FILE, lastRestoreOutcome, listBackups, pendingRestore, pruneAutoBackups } from './backups';

const KEYS = { everyHours: 'backups.every_hours', keep: 'backups.keep' } as const;

/** The schedule in force: command-line flags, else the saved setting, else daily and keep 7. */
export async function backupSchedule(rt: CoreRuntime): Promise<BackupSchedule & { fromFlags: boolean }> {
  const flags = rt.deps.config.backups ?? {};
  const rows = await rt.deps.sql.all<{ key: string; value: string }>('SELECT key, value FROM settings WHERE key IN (?, ?)', [KEYS.everyHours, KEYS.keep]);
  const saved = (key: string): number | undefined => {
    const row = rows.find((r) => r.key === key);
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

export async function saveBackupSchedule(rt: CoreRuntime, s: BackupSchedule): Promise<void> {
  const parsed = BackupScheduleSchema.parse(s);
  const put = 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value';
  await rt.deps.sql.transaction(async (tx) => {
    await tx.run(put, [KEYS.everyHours, JSON.stringify(parsed.everyHours)]);
    await tx.run(put, [KEYS.keep, JSON.stringify(parsed.keep)]);
  });
}

export async function backupsOverview(rt: CoreRuntime): Promise<BackupsOverview> {
  const dataDir = rt.info().dataDir;
  const keyFile = join(dataDir, KEY_FILE);
  return {
    dir: backupsDir(dataDir),
    backups: listBackups(dataDir),
    schedule: await backupSchedule(rt),
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
  const { everyHours, keep } = await backupSchedule(rt);
  // SQLite engine only: a PostgreSQL store is backed up by its server (pg_dump, point-in-time recovery).
  if (everyHours <= 0 || !rt.deps.db) return null;
  const dataDir = rt.info().dataDir;
  const newest = listBackups(dataDir).find((b) => b.auto);
  if (newest && now - Date.parse(newest.createdAt) < everyHours * 3_600_000) return null;
  // SQLite engine only: a copy of the store's file (backups.ts).
  const made = await createBackup(rt.deps.db, dataDir, { auto: true, now });
  pruneAutoBackups(dataDir, keep);
  rt.deps.log.info({ file: made.file, bytes: made.bytes }, 'automatic backup written and verified');
  return made.name;
}
