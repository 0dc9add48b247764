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

export async function bootstrap(
  deps: CoreDeps,
  input: { email: string; password: string; organizationName?: string },
): Promise<BootstrapResult> {
  const email = validateEmail(input.email);
  validatePassword(input.password);
  const hash = await hashPassword(input.password, deps.config.scryptN);
  const existing = deps.db.prepare('SELECT 1 FROM users WHERE email = ?').get(email);
  if (existing) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'email', message: 'a user with this email already exists' }] });
  const orgId = newId('org');
  const userId = newId('usr');
  const now = iso(deps.clock.now());
  return deps.db.transaction(() => {
    deps.db
      .prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)')
      .run(orgId, input.organizationName ?? 'My organization', now);
    deps.db
      .prepare("INSERT INTO users (id, organization_id, email, password_hash, role, created_at) VALUES (?, ?, ?, ?, 'OWNER', ?)")
      .run(userId, orgId, email, hash, now);
    appendAudit(deps, orgId, { action: 'organization.created', target: { type: 'organization', id: orgId }, detail: { name: input.organizationName ?? 'My organization' } });
    appendAudit(deps, orgId, { action: 'user.created', target: { type: 'user', id: userId }, detail: { email, role: 'OWNER' } });
    const sandbox = insertKey(deps, orgId, 'Default sandbox key', 'sandbox');
    const live = insertKey(deps, orgId, 'Default live key', 'live');
    return { organizationId: orgId, owner: { id: userId, email }, keys: { sandbox, live } };
  })();
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
  if (deps.db.prepare('SELECT 1 FROM users WHERE email = ?').get(email)) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'email', message: 'a user with this email already exists' }] });
  }
  const id = newId('usr');
  const now = iso(deps.clock.now());
  audited(
    deps,
    organizationId,
    () =>
      deps.db
        .prepare('INSERT INTO users (id, organization_id, email, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(id, organizationId, email, hash, input.role, now),
    () => ({ action: 'user.created', target: { type: 'user', id }, detail: { email, role: input.role } }),
  );
  return { id, email, role: input.role, organizationId, createdAt: now };
}

export function listUsers(deps: CoreDeps, organizationId: string): UserView[] {
  const rows = deps.db
    .prepare('SELECT id, email, role, organization_id, created_at FROM users WHERE organization_id = ? ORDER BY created_at')
    .all(organizationId) as { id: string; email: string; role: Role; organization_id: string; created_at: string }[];
  return rows.map((r) => ({ id: r.id, email: r.email, role: r.role, organizationId: r.organization_id, createdAt: r.created_at }));
}
