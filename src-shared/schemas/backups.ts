// The store's health and its backups as the console shows them (docs/reliability.md, "Storage faults", "Backups").
import { z } from 'zod';

export const StorageStatusSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  reason: z.enum(['full', 'read-only', 'io']).nullable(),
  message: z.string().nullable(),
  dataDir: z.string(),
  freeBytes: z.number().nullable(),
  since: z.string().nullable(),
  refused: z.number().int(),
});
export type StorageStatus = z.infer<typeof StorageStatusSchema>;

export const BackupInfoSchema = z.object({
  name: z.string(),
  file: z.string(),
  bytes: z.number().int(),
  createdAt: z.string(),
  auto: z.boolean(),
  hasKey: z.boolean(),
});
export type BackupInfo = z.infer<typeof BackupInfoSchema>;

export const BACKUP_EVERY_HOURS_DEFAULT = 24;
export const BACKUP_KEEP_DEFAULT = 7;
export const BACKUP_EVERY_HOURS_MAX = 24 * 30;
export const BACKUP_KEEP_MAX = 365;

export const BackupScheduleSchema = z
  .object({
    /** 0 turns automatic backups off. */
    everyHours: z.number().int().min(0).max(BACKUP_EVERY_HOURS_MAX),
    keep: z.number().int().min(1).max(BACKUP_KEEP_MAX),
  })
  .strict();
export type BackupSchedule = z.infer<typeof BackupScheduleSchema>;

export const BackupsOverviewSchema = z.object({
  dir: z.string(),
  backups: z.array(BackupInfoSchema),
  schedule: BackupScheduleSchema.extend({ fromFlags: z.boolean() }),
  pendingRestore: z.object({ file: z.string(), requestedAt: z.string() }).nullable(),
  lastRestore: z.object({ ok: z.boolean(), at: z.string(), file: z.string(), message: z.string() }).nullable(),
  keyFile: z.string(),
  keyNote: z.string(),
});
export type BackupsOverview = z.infer<typeof BackupsOverviewSchema>;

export const CreatedBackupSchema = BackupInfoSchema.extend({ integrity: z.literal('ok'), schemaVersion: z.number().int(), keyNote: z.string() });
