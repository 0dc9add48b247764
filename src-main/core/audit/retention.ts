// How long audit entries are kept (docs/audit.md "Integrity"): a setting of the installation, default 400 days, changed
// only with its own audit entry. The pruning itself is pruneAudit() in audit-log.ts.
import { AppError } from '../../../src-shared/app-error';
import { AUDIT_RETENTION_DAYS_DEFAULT, AuditRetentionDaysSchema } from '../../../src-shared/schemas/audit';
import type { SqlQueries } from '../../store/sql-port';
import type { CoreDeps } from '../context';
import { audited } from './audit-log';

const RETENTION_KEY = 'audit.retention_days';

export async function auditRetentionDays(q: SqlQueries): Promise<number> {
  const row = await q.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [RETENTION_KEY]);
  const n = row ? Number(JSON.parse(row.value)) : NaN;
  return AuditRetentionDaysSchema.safeParse(n).success ? n : AUDIT_RETENTION_DAYS_DEFAULT;
}

export async function setAuditRetention(deps: Pick<CoreDeps, 'sql' | 'clock'>, organizationId: string, days: number): Promise<number> {
  if (!AuditRetentionDaysSchema.safeParse(days).success) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'days', message: 'a whole number of days from 30 to 3650' }] });
  }
  await audited(
    deps,
    organizationId,
    // The value it replaces is read in the same transaction, so the entry's "from" is what the change overwrote.
    async (tx) => {
      const before = await auditRetentionDays(tx);
      await tx.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [RETENTION_KEY, JSON.stringify(days)]);
      return before;
    },
    (before) => ({ action: 'settings.updated', target: { type: 'settings', id: RETENTION_KEY }, detail: { auditRetentionDays: { from: before, to: days } } }),
  );
  return days;
}
