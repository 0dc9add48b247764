// Console channels of the store's health and backups (merged into CHANNELS by channels.ts).
import { z } from 'zod';
import { channel } from './channel-def';
import { BackupScheduleSchema, BackupsOverviewSchema, CreatedBackupSchema, StorageStatusSchema } from './schemas/backups';

const Empty = z.object({}).strict();

export const backupChannels = {
  'storage:status': channel(Empty, StorageStatusSchema),
  'backups:list': channel(Empty, BackupsOverviewSchema),
  'backups:create': channel(z.object({ includeKey: z.boolean().optional() }).strict(), CreatedBackupSchema),
  'backups:schedule': channel(BackupScheduleSchema, BackupsOverviewSchema),
  /** The console cannot replace the store under the running service: the restore happens at the next start. */
  'backups:restoreAtRestart': channel(z.object({ name: z.string().min(1).max(200) }).strict(), BackupsOverviewSchema),
  'backups:cancelRestore': channel(Empty, BackupsOverviewSchema),
};
export type BackupChannels = typeof backupChannels;
