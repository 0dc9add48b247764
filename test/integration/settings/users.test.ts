// Users and roles (decisions §6): who may manage whom, the last active owner, and what a role change or a
// deactivation does to the user's sign-in and sessions — through the core, the console door and the HTTP API.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/console/handlers';
import type { Principal } from '../../../src-main/core/principal';
import {
  createManagedUser,
  deactivateUser,
  listManagedUsers,
  reactivateUser,
  setUserRole,
} from '../../../src-main/core/settings/users';
import { api, login, startTestService, TEST_PASSWORD, type TestService } from '../../helpers/harness';

let ts: TestService;
let orgId: string;
const as = (role: Principal['role'], kind: Principal['kind'] = 'user'): Principal => ({ kind, organizationId: orgId, environment: 'sandbox', role });

beforeEach(async () => {
  ts = await startTestService();
  orgId = ts.org!.organizationId;
});
afterEach(async () => {
  await ts.stop();
});

async function make(role: Principal['role'], email = `${role.toLowerCase()}-${Math.random().toString(36).slice(2, 8)}@example.com`) {
  return createManagedUser(ts.service.deps, as('OWNER'), { email, password: TEST_PASSWORD, role });
}

describe('users and roles', () => {
  it('developers and API keys cannot see or manage users', async () => {
    const deps = ts.service.deps;
    const dev = await make('DEVELOPER');
    for (const actor of [as('DEVELOPER'), as('OWNER', 'apiKey')]) {
      await expect(listManagedUsers(deps, actor)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(createManagedUser(deps, actor, { email: 'x@example.com', password: TEST_PASSWORD, role: 'DEVELOPER' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(setUserRole(deps, actor, dev.id, 'ADMIN')).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(deactivateUser(deps, actor, dev.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    }
  });

  it('an admin manages admins and developers but never owners', async () => {
    const deps = ts.service.deps;
    const admin = as('ADMIN');
    const dev = await createManagedUser(deps, admin, { email: 'dev@example.com', password: TEST_PASSWORD, role: 'DEVELOPER' });
    expect(dev).toMatchObject({ role: 'DEVELOPER', status: 'active', organizationId: orgId });
    expect((await setUserRole(deps, admin, dev.id, 'ADMIN')).role).toBe('ADMIN');
    await expect(createManagedUser(deps, admin, { email: 'o2@example.com', password: TEST_PASSWORD, role: 'OWNER' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(setUserRole(deps, admin, dev.id, 'OWNER')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const ownerId = ts.org!.owner.id;
    await expect(setUserRole(deps, admin, ownerId, 'ADMIN')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(deactivateUser(deps, admin, ownerId)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await deactivateUser(deps, admin, dev.id)).status).toBe('deactivated');
  });

  it('never removes the last active owner, but allows it once another owner exists', async () => {
    const deps = ts.service.deps;
    const ownerId = ts.org!.owner.id;
    await expect(setUserRole(deps, as('OWNER'), ownerId, 'ADMIN')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(deactivateUser(deps, as('OWNER'), ownerId)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('at least one active owner') });
    // A deactivated second owner does not count.
    const second = await make('OWNER');
    await deactivateUser(deps, as('OWNER'), second.id);
    await expect(setUserRole(deps, as('OWNER'), ownerId, 'DEVELOPER')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await reactivateUser(deps, as('OWNER'), second.id);
    expect((await setUserRole(deps, as('OWNER'), ownerId, 'DEVELOPER')).role).toBe('DEVELOPER');
    await expect(deactivateUser(deps, as('OWNER'), second.id)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('a user of another organization is not found', async () => {
    const other = await startTestService();
    try {
      const foreign = other.org!.owner.id;
      await expect(setUserRole(ts.service.deps, as('OWNER'), foreign, 'ADMIN')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await other.stop();
    }
  });

  it('deactivation ends sessions and sign-in; reactivation restores the same password', async () => {
    const deps = ts.service.deps;
    const dev = await make('DEVELOPER', 'worker@example.com');
    const pair = await login(ts.url, 'worker@example.com');
    expect((await api(ts.url, 'GET', '/client/webhooks', { token: pair.accessToken })).status).toBe(200);
    await deactivateUser(deps, as('OWNER'), dev.id);
    expect((await api(ts.url, 'GET', '/client/webhooks', { token: pair.accessToken })).status).toBe(401);
    expect((await api(ts.url, 'POST', '/auth/refresh', { body: { refreshToken: pair.refreshToken } })).status).toBe(401);
    const denied = await api(ts.url, 'POST', '/auth/login', { body: { email: 'worker@example.com', password: TEST_PASSWORD } });
    expect(denied.status).toBe(401);
    expect(denied.body.code).toBe('INVALID_CREDENTIALS');
    // Idempotent: a second deactivation changes nothing.
    expect((await deactivateUser(deps, as('OWNER'), dev.id)).status).toBe('deactivated');
    expect((await reactivateUser(deps, as('OWNER'), dev.id)).status).toBe('active');
    expect((await login(ts.url, 'worker@example.com')).user.id).toBe(dev.id);
  });

  it('a role change ends the sessions that carry the old role', async () => {
    const dev = await make('DEVELOPER', 'promoted@example.com');
    const pair = await login(ts.url, 'promoted@example.com');
    // A developer may not create keys (decisions §6).
    expect((await api(ts.url, 'POST', '/client/api-keys', { token: pair.accessToken, body: { name: 'k', environment: 'sandbox' } })).status).toBe(403);
    await setUserRole(ts.service.deps, as('OWNER'), dev.id, 'ADMIN');
    expect((await api(ts.url, 'GET', '/client/webhooks', { token: pair.accessToken })).status).toBe(401);
    const fresh = await login(ts.url, 'promoted@example.com');
    expect(fresh.user).toMatchObject({ id: dev.id });
    expect((await api(ts.url, 'POST', '/client/api-keys', { token: fresh.accessToken, body: { name: 'k', environment: 'sandbox' } })).status).toBe(201);
  });

  it('the console channels list, create, change and deactivate with the error body on failure', async () => {
    const h = ts.service.handlers;
    const created = await dispatch(h, 'users:create', { email: 'Analyst@Example.com', password: TEST_PASSWORD, role: 'DEVELOPER' });
    expect(created).toMatchObject({ ok: true, value: { email: 'analyst@example.com', role: 'DEVELOPER', status: 'active' } });
    const id = (created as { value: { id: string } }).value.id;
    expect(await dispatch(h, 'users:setRole', { id, role: 'ADMIN' })).toMatchObject({ ok: true, value: { role: 'ADMIN' } });
    expect(await dispatch(h, 'users:deactivate', { id })).toMatchObject({ ok: true, value: { status: 'deactivated' } });
    const list = await dispatch(h, 'users:list', {});
    expect((list as { value: { email: string; status: string }[] }).value.map((u) => [u.email, u.status])).toEqual([
      [ts.email, 'active'],
      ['analyst@example.com', 'deactivated'],
    ]);
    const dup = await dispatch(h, 'users:create', { email: 'analyst@example.com', password: TEST_PASSWORD, role: 'DEVELOPER' });
    expect(dup).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR', details: [{ field: 'email' }] } });
    const last = await dispatch(h, 'users:deactivate', { id: ts.org!.owner.id });
    expect(last).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('at least one active owner'), hint: expect.any(String) } });
    const short = await dispatch(h, 'users:create', { email: 'x@example.com', password: 'short', role: 'DEVELOPER' });
    expect(short).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
  });
});
