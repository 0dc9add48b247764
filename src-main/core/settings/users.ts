// Users and roles for owners and admins (decisions §6): list, create, change role, deactivate, reactivate.
// Rules: developers and API keys manage nobody; only an owner creates, changes or deactivates an owner or makes
// someone an owner; the organization always keeps at least one active owner.
import { AppError } from '../../../src-shared/app-error';
import type { Role } from '../../../src-shared/schemas/auth';
import type { ManagedUser } from '../../../src-shared/schemas/settings';
import type { SqlQueries } from '../../store/sql-port';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { createUser } from '../orgs/organizations';
import type { Principal } from '../principal';
import { appendAudit } from '../audit/audit-log';
import { perEngine } from '../../store/pg/dialect';

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

async function userRow(q: SqlQueries, organizationId: string, id: string): Promise<UserRow> {
  const row = await q.get<UserRow>('SELECT id, organization_id, email, role, created_at, deactivated_at FROM users WHERE id = ? AND organization_id = ?', [
    id,
    organizationId,
  ]);
  if (!row) throw new AppError('NOT_FOUND', { message: 'No user with this id exists in this organization.' });
  return row;
}

async function activeOwners(q: SqlQueries, organizationId: string): Promise<number> {
  return (await q.get<{ n: number }>("SELECT COUNT(*) AS n FROM users WHERE organization_id = ? AND role = 'OWNER' AND deactivated_at IS NULL", [organizationId]))!.n;
}

async function keepsAnOwner(q: SqlQueries, target: UserRow): Promise<void> {
  if (target.role === 'OWNER' && !target.deactivated_at && (await activeOwners(q, target.organization_id)) <= 1) {
    throw new AppError('VALIDATION_ERROR', {
      message: 'The organization must keep at least one active owner. Make another user an owner first.',
      details: [{ field: 'role', message: `${target.email} is the last active owner` }],
    });
  }
}

/** Ends every session of a user: their tokens carry the old role, and a deactivated user must be out at once. */
async function revokeSessions(deps: Pick<CoreDeps, 'sql' | 'clock'>, userId: string): Promise<void> {
  await deps.sql.run('UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL', [iso(deps.clock.now()), userId]);
}

const LIST_USERS = perEngine(
  (d) => `SELECT id, organization_id, email, role, created_at, deactivated_at FROM users WHERE organization_id = ? ORDER BY created_at, ${d.insertionOrder()}`,
);

export async function listManagedUsers(deps: CoreDeps, actor: Principal): Promise<ManagedUser[]> {
  requireUserManager(actor);
  const rows = await deps.sql.all<UserRow>(LIST_USERS[deps.sql.engine], [actor.organizationId]);
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
  return toManaged(await userRow(deps.sql, actor.organizationId, u.id));
}

export async function setUserRole(deps: CoreDeps, actor: Principal, id: string, role: Role): Promise<ManagedUser> {
  requireUserManager(actor);
  return deps.sql.transaction(async (tx): Promise<ManagedUser> => {
    const inTx = { ...deps, sql: tx };
    const target = await userRow(tx, actor.organizationId, id);
    if (target.role === role) return toManaged(target);
    if (target.role === 'OWNER') requireOwnerFor(actor, "change an owner's role");
    if (role === 'OWNER') requireOwnerFor(actor, 'make someone an owner');
    await keepsAnOwner(tx, target);
    await tx.run('UPDATE users SET role = ? WHERE id = ?', [role, id]);
    await revokeSessions(inTx, id);
    await appendAudit(inTx, actor.organizationId, { action: 'user.role_changed', target: { type: 'user', id }, detail: { email: target.email, from: target.role, to: role } });
    return toManaged({ ...target, role });
  });
}

export async function deactivateUser(deps: CoreDeps, actor: Principal, id: string): Promise<ManagedUser> {
  requireUserManager(actor);
  return deps.sql.transaction(async (tx): Promise<ManagedUser> => {
    const inTx = { ...deps, sql: tx };
    const target = await userRow(tx, actor.organizationId, id);
    if (target.deactivated_at) return toManaged(target);
    if (target.role === 'OWNER') requireOwnerFor(actor, 'deactivate an owner');
    await keepsAnOwner(tx, target);
    const now = iso(deps.clock.now());
    await tx.run('UPDATE users SET deactivated_at = ?, password_hash = ? || password_hash WHERE id = ?', [now, DEACTIVATED_PREFIX, id]);
    await revokeSessions(inTx, id);
    await appendAudit(inTx, actor.organizationId, { action: 'user.deactivated', target: { type: 'user', id }, detail: { email: target.email } });
    return toManaged({ ...target, deactivated_at: now });
  });
}

export async function reactivateUser(deps: CoreDeps, actor: Principal, id: string): Promise<ManagedUser> {
  requireUserManager(actor);
  return deps.sql.transaction(async (tx): Promise<ManagedUser> => {
    const target = await userRow(tx, actor.organizationId, id);
    if (!target.deactivated_at) return toManaged(target);
    if (target.role === 'OWNER') requireOwnerFor(actor, 'reactivate an owner');
    await tx.run(
      `UPDATE users SET deactivated_at = NULL,
         password_hash = CASE WHEN substr(password_hash, 1, ?) = ? THEN substr(password_hash, ? + 1) ELSE password_hash END
       WHERE id = ?`,
      [DEACTIVATED_PREFIX.length, DEACTIVATED_PREFIX, DEACTIVATED_PREFIX.length, id],
    );
    await appendAudit({ ...deps, sql: tx }, actor.organizationId, { action: 'user.reactivated', target: { type: 'user', id }, detail: { email: target.email } });
    return toManaged({ ...target, deactivated_at: null });
  });
}
