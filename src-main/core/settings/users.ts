// Users and roles for owners and admins (decisions §6): list, create, change role, deactivate, reactivate.
// Rules: developers and API keys manage nobody; only an owner creates, changes or deactivates an owner or makes
// someone an owner; the organization always keeps at least one active owner.
import { AppError } from '../../../src-shared/app-error';
import type { Role } from '../../../src-shared/schemas/auth';
import type { ManagedUser } from '../../../src-shared/schemas/settings';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { createUser } from '../orgs/organizations';
import type { Principal } from '../principal';
import { appendAudit } from '../audit/audit-log';

/**
 * A deactivated user's password hash is kept behind this prefix: the sign-in check then never matches (it expects
 * exactly six `$`-separated parts), without a change to the sign-in code, and reactivation restores the hash.
 */
const DEACTIVATED_PREFIX = 'deactivated$';

interface UserRow {
  id: string;
  organization_id: string;
  email: string;
  role: Role;
  created_at: string;
  deactivated_at: string | null;
}

function toManaged(r: UserRow): ManagedUser {
  return {
    id: r.id,
    email: r.email,
    role: r.role,
    organizationId: r.organization_id,
    status: r.deactivated_at ? 'deactivated' : 'active',
    createdAt: r.created_at,
    deactivatedAt: r.deactivated_at,
  };
}

export function requireUserManager(actor: Principal): void {
  if (actor.kind === 'apiKey' || (actor.role !== 'OWNER' && actor.role !== 'ADMIN')) {
    throw new AppError('FORBIDDEN', { message: 'Only owners and admins manage users.' });
  }
}

function requireOwnerFor(actor: Principal, what: string): void {
  if (actor.role !== 'OWNER') throw new AppError('FORBIDDEN', { message: `Only an owner can ${what}.` });
}

function userRow(deps: CoreDeps, organizationId: string, id: string): UserRow {
  const row = deps.db
    .prepare('SELECT id, organization_id, email, role, created_at, deactivated_at FROM users WHERE id = ? AND organization_id = ?')
    .get(id, organizationId) as UserRow | undefined;
  if (!row) throw new AppError('NOT_FOUND', { message: 'No user with this id exists in this organization.' });
  return row;
}

function activeOwners(deps: CoreDeps, organizationId: string): number {
  return (
    deps.db
      .prepare("SELECT COUNT(*) AS n FROM users WHERE organization_id = ? AND role = 'OWNER' AND deactivated_at IS NULL")
      .get(organizationId) as { n: number }
  ).n;
}

function keepsAnOwner(deps: CoreDeps, target: UserRow): void {
  if (target.role === 'OWNER' && !target.deactivated_at && activeOwners(deps, target.organization_id) <= 1) {
    throw new AppError('VALIDATION_ERROR', {
      message: 'The organization must keep at least one active owner. Make another user an owner first.',
      details: [{ field: 'role', message: `${target.email} is the last active owner` }],
    });
  }
}

/** Ends every session of a user: their tokens carry the old role, and a deactivated user must be out at once. */
function revokeSessions(deps: CoreDeps, userId: string): void {
  deps.db.prepare('UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL').run(iso(deps.clock.now()), userId);
}

export function listManagedUsers(deps: CoreDeps, actor: Principal): ManagedUser[] {
  requireUserManager(actor);
  const rows = deps.db
    .prepare('SELECT id, organization_id, email, role, created_at, deactivated_at FROM users WHERE organization_id = ? ORDER BY created_at, rowid')
    .all(actor.organizationId) as UserRow[];
  return rows.map(toManaged);
}

export async function createManagedUser(
  deps: CoreDeps,
  actor: Principal,
  input: { email: string; password: string; role: Role },
): Promise<ManagedUser> {
  requireUserManager(actor);
  if (input.role === 'OWNER') requireOwnerFor(actor, 'create an owner');
  const u = await createUser(deps, actor.organizationId, input);
  return toManaged(userRow(deps, actor.organizationId, u.id));
}

export function setUserRole(deps: CoreDeps, actor: Principal, id: string, role: Role): ManagedUser {
  requireUserManager(actor);
  return deps.db
    .transaction((): ManagedUser => {
      const target = userRow(deps, actor.organizationId, id);
      if (target.role === role) return toManaged(target);
      if (target.role === 'OWNER') requireOwnerFor(actor, "change an owner's role");
      if (role === 'OWNER') requireOwnerFor(actor, 'make someone an owner');
      keepsAnOwner(deps, target);
      deps.db.prepare('UPDATE users SET role = ? WHERE id = ?').run(role, id);
      revokeSessions(deps, id);
      appendAudit(deps, actor.organizationId, { action: 'user.role_changed', target: { type: 'user', id }, detail: { email: target.email, from: target.role, to: role } });
      return toManaged({ ...target, role });
    })
    .immediate();
}

export function deactivateUser(deps: CoreDeps, actor: Principal, id: string): ManagedUser {
  requireUserManager(actor);
  return deps.db
    .transaction((): ManagedUser => {
      const target = userRow(deps, actor.organizationId, id);
      if (target.deactivated_at) return toManaged(target);
      if (target.role === 'OWNER') requireOwnerFor(actor, 'deactivate an owner');
      keepsAnOwner(deps, target);
      const now = iso(deps.clock.now());
      deps.db
        .prepare('UPDATE users SET deactivated_at = ?, password_hash = ? || password_hash WHERE id = ?')
        .run(now, DEACTIVATED_PREFIX, id);
      revokeSessions(deps, id);
      appendAudit(deps, actor.organizationId, { action: 'user.deactivated', target: { type: 'user', id }, detail: { email: target.email } });
      return toManaged({ ...target, deactivated_at: now });
    })
    .immediate();
}

export function reactivateUser(deps: CoreDeps, actor: Principal, id: string): ManagedUser {
  requireUserManager(actor);
  return deps.db
    .transaction((): ManagedUser => {
      const target = userRow(deps, actor.organizationId, id);
      if (!target.deactivated_at) return toManaged(target);
      if (target.role === 'OWNER') requireOwnerFor(actor, 'reactivate an owner');
      deps.db
        .prepare(
          `UPDATE users SET deactivated_at = NULL,
             password_hash = CASE WHEN substr(password_hash, 1, ?) = ? THEN substr(password_hash, ? + 1) ELSE password_hash END
           WHERE id = ?`,
        )
        .run(DEACTIVATED_PREFIX.length, DEACTIVATED_PREFIX, DEACTIVATED_PREFIX.length, id);
      appendAudit(deps, actor.organizationId, { action: 'user.reactivated', target: { type: 'user', id }, detail: { email: target.email } });
      return toManaged({ ...target, deactivated_at: null });
    })
    .immediate();
}
