// How long audit entries are kept (docs/audit.md "Integrity"): a setting of the installation, default 400 days, changed
// only with its own audit entry. The pruning itself is pruneAudit() in audit-log.ts.
import { AppError } from '../../../src-shared/app-error';
import { AUDIT_RETENTION_DAYS_DEFAULT, AuditRetentionDaysSchema } from '../../../src-shared/schemas/audit';
import type { Db } from '../../store/database';
import type { CoreDeps } from '../context';
import { audited } from './audit-log';

const RETENTION_KEY = 'audit.retention_days';

export function auditRetentionDays(db: Db): number {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(RETENTION_KEY) as { value: string } | undefined;
  const n = row ? Number(JSON.parse(row.value)) : NaN;
  return AuditRetentionDaysSchema.safeParse(n).success ? n : AUDIT_RETENTION_DAYS_DEFAULT;
}

export function setAuditRetention(deps: Pick<CoreDeps, 'db' | 'clock'>, organizationId: string, days: number): number {
  if (!AuditRetentionDaysSchema.safeParse(days).success) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'days', message: 'a whole number of days from 30 to 3650' }] });
  }
  const before = auditRetentionDays(deps.db);
  audited(
    deps,
    organizationId,
    () => deps.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(RETENTION_KEY, JSON.stringify(days)),
    () => ({ action: 'settings.updated', target: { type: 'settings', id: RETENTION_KEY }, detail: { auditRetentionDays: { from: before, to: days } } }),
  );
  return days;
}
