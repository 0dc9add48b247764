// The installation's first organization: the one the local console and the CLI act for, and whose audit trail holds
// installation-wide changes. A module of its own so that the audit log can use it without importing organizations.ts
// (which records its own changes in the audit log).
import type { CoreDeps } from '../context';

export function firstOrganizationId(deps: Pick<CoreDeps, 'db'>): string | null {
  const row = deps.db.prepare('SELECT id FROM organizations ORDER BY created_at ASC, rowid ASC LIMIT 1').get() as
    | { id: string }
    | undefined;
  return row?.id ?? null;
}
