// The installation's first organization: the one the local console and the CLI act for, and whose audit trail holds
// installation-wide changes. A module of its own so that the audit log can use it without importing organizations.ts
// (which records its own changes in the audit log).
import type { CoreDeps } from '../context';
import { perEngine } from '../../store/pg/dialect';

const FIRST = perEngine((d) => `SELECT id FROM organizations ORDER BY created_at ASC, ${d.insertionOrder()} ASC LIMIT 1`);

export async function firstOrganizationId(deps: Pick<CoreDeps, 'sql'>): Promise<string | null> {
  const row = await deps.sql.get<{ id: string }>(FIRST[deps.sql.engine]);
  return row?.id ?? null;
}
