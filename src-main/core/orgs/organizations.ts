// Organizations and users: bootstrap of an installation (organization, owner, one key per environment) and
// user management for owners and admins.
import { AppError } from '../../../src-shared/app-error';
import type { Role } from '../../../src-shared/schemas/auth';
import type { CreatedKey } from '../../../src-shared/schemas/keys';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import { hashPassword } from '../auth/passwords';
import { insertKey } from '../keys/keys-service';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../../src-shared/schemas/auth';
import { appendAudit, audited } from '../audit/audit-log';
import type { SqlQueries } from '../../store/sql-port';

export interface BootstrapResult {
  organizationId: string;
  owner: { id: string; email: string };
  keys: { sandbox: CreatedKey; live: CreatedKey };
}

export function validatePassword(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw new AppError('VALIDATION_ERROR', {
      details: [{ field: 'password', message: `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` }],
    });
  }
}

function validateEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(e) || e.length > 254) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'email', message: 'must be an email address' }] });
  }
  return e;
}

export { firstOrganizationId } from './first-organization';

/** What setting up an installation that is set up already is told, by every door (the console's set-up, the CLI). */
export const ALREADY_SET_UP = 'This installation is already set up. Add people with `vconsole users create` or Settings › Users, keys with `vconsole keys create` or API keys.';

/**
 * Creates an organization, its owner and a sandbox and a live key. `firstOnly` (the doors' set-up: one organization
 * per installation, since every command and the console act for the first) refuses when one exists, checked in the
 * transaction that inserts, so two set-ups at once cannot both pass it.
 */
export async function bootstrap(
  deps: CoreDeps,
  input: { email: string; password: string; organizationName?: string },
  o: { firstOnly?: boolean } = {},
): Promise<BootstrapResult> {
  const email = validateEmail(input.email);
  validatePassword(input.password);
  // The hash first: a transaction awaits nothing but the store.
  const hash = await hashPassword(input.password, deps.config.scryptN);
  const orgId = newId('org');
  const userId = newId('usr');
  const now = iso(deps.clock.now());
  return deps.sql.transaction(async (tx) => {
    const inTx = { ...deps, sql: tx };
    if (o.firstOnly && (await tx.get('SELECT 1 FROM organizations LIMIT 1'))) throw new AppError('FORBIDDEN', { message: ALREADY_SET_UP });
    // Checked in the transaction that inserts, so two bootstraps with one email cannot both pass it.
    await refuseTakenEmail(tx, email);
    await tx.run('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)', [orgId, input.organizationName ?? 'My organization', now]);
    await tx.run("INSERT INTO users (id, organization_id, email, password_hash, role, created_at) VALUES (?, ?, ?, ?, 'OWNER', ?)", [userId, orgId, email, hash, now]);
    await appendAudit(inTx, orgId, { action: 'organization.created', target: { type: 'organization', id: orgId }, detail: { name: input.organizationName ?? 'My organization' } });
    await appendAudit(inTx, orgId, { action: 'user.created', target: { type: 'user', id: userId }, detail: { email, role: 'OWNER' } });
    const sandbox = await insertKey(inTx, orgId, 'Default sandbox key', 'sandbox');
    const live = await insertKey(inTx, orgId, 'Default live key', 'live');
    return { organizationId: orgId, owner: { id: userId, email }, keys: { sandbox, live } };
  });
}

async function refuseTakenEmail(q: SqlQueries, email: string): Promise<void> {
  if (await q.get('SELECT 1 FROM users WHERE email = ?', [email])) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'email', message: 'a user with this email already exists' }] });
  }
}

export interface UserView {
  id: string;
  email: string;
  role: Role;
  organizationId: string;
  createdAt: string;
}

export async function createUser(
  deps: CoreDeps,
  organizationId: string,
  input: { email: string; password: string; role: Role },
): Promise<UserView> {
  const email = validateEmail(input.email);
  validatePassword(input.password);
  const hash = await hashPassword(input.password, deps.config.scryptN);
  const id = newId('usr');
  const now = iso(deps.clock.now());
  await audited(
    deps,
    organizationId,
    async (tx) => {
      await refuseTakenEmail(tx, email);
      await tx.run('INSERT INTO users (id, organization_id, email, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?, ?)', [id, organizationId, email, hash, input.role, now]);
    },
    () => ({ action: 'user.created', target: { type: 'user', id }, detail: { email, role: input.role } }),
  );
  return { id, email, role: input.role, organizationId, createdAt: now };
}

export async function listUsers(deps: CoreDeps, organizationId: string): Promise<UserView[]> {
  const rows = await deps.sql.all<{ id: string; email: string; role: Role; organization_id: string; created_at: string }>(
    'SELECT id, email, role, organization_id, created_at FROM users WHERE organization_id = ? ORDER BY created_at',
    [organizationId],
  );
  return rows.map((r) => ({ id: r.id, email: r.email, role: r.role, organizationId: r.organization_id, createdAt: r.created_at }));
}
