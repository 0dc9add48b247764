// The automatic backup schedule and the console's view of the backups (docs/reliability.md, "Backups"): which
// schedule is in force (command-line flags, else Settings, else daily keeping 7), and a backup when one is due.
import { join } from 'node:path';
import { BACKUP_EVERY_HOURS_DEFAULT, BACKUP_KEEP_DEFAULT, BackupScheduleSchema, type BackupSchedule, type BackupsOverview } from '../../../src-shared/schemas/backups';
import type { CoreRuntime } from '../runtime';
import { backupsDir, createBackup, KEY_FILE, lastRestoreOutcome, listBackups, pendingRestore, pruneAutoBackups } from './backups';

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
