// API keys: create (full value shown once), list, revoke, and authenticate a request's X-API-Key.
// Lookups are cached by hash; a revoke in this process drops the cache entry before it returns, and a commit by any
// other connection (`vconsole keys revoke` beside the running service) empties the cache before the next lookup
// (SQLite's data_version), so revocation is immediate from every door. lastUsedAt is written at most once a second per key, in the shared group commit.
import { AppError } from '../../../src-shared/app-error';
import type { ApiKey, CreatedKey } from '../../../src-shared/schemas/keys';
import type { Environment } from '../../../src-shared/schemas/common';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import { requireRole, type Principal } from '../principal';
import { randomHex, sha256Hex } from '../auth/secrets';
import { audited } from '../audit/audit-log';
import type { Statement } from 'better-sqlite3';

const KEY_PATTERN = /^svc_(sandbox|live)_[0-9a-f]{64}$/;

interface KeyRow {
  id: string;
  organization_id: string;
  name: string;
  environment: Environment;
  key_prefix: string;
  status: 'active' | 'revoked';
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

function toApiKey(r: KeyRow): ApiKey {
  return {
    id: r.id,
    name: r.name,
    environment: r.environment,
    keyPrefix: r.key_prefix,
    status: r.status,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    expiresAt: null,
    revokedAt: r.revoked_at,
  };
}

interface CachedKey {
  id: string;
  organizationId: string;
  environment: Environment;
  status: 'active' | 'revoked';
  /** The key's name (keys are never renamed), recorded as the actor of the checks it runs. */
  name: string;
  lastTouchMs: number;
}

const caches = new WeakMap<object, { keys: Map<string, CachedKey>; dataVersion: number; version: Statement }>();
function cacheFor(deps: CoreDeps): Map<string, CachedKey> {
  // data_version changes when another connection (another process) has committed since this one last looked: its
  // change may be a revocation, so nothing cached before it is trusted. Our own commits do not move it. The
  // statement is kept (db.pragma() compiles one on every call: 4 % of a sync POST's CPU).
  let c = caches.get(deps.db);
  const version = c?.version ?? deps.db.prepare('PRAGMA data_version');
  const dataVersion = version.pluck().get() as number;
  if (!c || c.dataVersion !== dataVersion) {
    c = { keys: new Map(), dataVersion, version };
    caches.set(deps.db, c);
  }
  return c.keys;
}

/** Creates a key without a role check: for bootstrap and the CLI, which act as the installation's owner. */
export function insertKey(deps: CoreDeps, organizationId: string, name: string, environment: Environment): CreatedKey {
  const key = `svc_${environment}_${randomHex(32)}`;
  const now = iso(deps.clock.now());
  const row: KeyRow = {
    id: newId('key'),
    organization_id: organizationId,
    name,
    environment,
    key_prefix: key.slice(0, 20),
    status: 'active',
    created_at: now,
    last_used_at: null,
    revoked_at: null,
  };
  audited(
    deps,
    organizationId,
    () =>
      deps.db
        .prepare(
          `INSERT INTO api_keys (id, organization_id, name, environment, key_hash, key_prefix, status, created_at)
           VALUES (?, ?, ?, ?, ?, ?, 'active', ?)`,
        )
        .run(row.id, organizationId, name, environment, sha256Hex(key), row.key_prefix, now),
    () => ({ action: 'key.created', target: { type: 'apiKey', id: row.id }, detail: { name, environment } }),
  );
  return { ...toApiKey(row), key };
}

export function createKey(deps: CoreDeps, p: Principal, input: { name: string; environment: Environment }): CreatedKey {
  requireRole(p, ['OWNER', 'ADMIN']);
  return insertKey(deps, p.organizationId, input.name, input.environment);
}

export function listKeys(
  deps: CoreDeps,
  organizationId: string,
  page: { limit: number; offset: number },
): { data: ApiKey[]; total: number } {
  const rows = deps.db
    .prepare(
      `SELECT id, organization_id, name, environment, key_prefix, status, created_at, last_used_at, revoked_at
       FROM api_keys WHERE organization_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
    )
    .all(organizationId, page.limit, page.offset) as KeyRow[];
  const { n } = deps.db.prepare('SELECT count(*) AS n FROM api_keys WHERE organization_id = ?').get(organizationId) as {
    n: number;
  };
  return { data: rows.map(toApiKey), total: n };
}

export function listKeysFor(deps: CoreDeps, p: Principal, page: { limit: number; offset: number }) {
  requireRole(p, ['OWNER', 'ADMIN']);
  return listKeys(deps, p.organizationId, page);
}

export function revokeKey(deps: CoreDeps, organizationId: string, id: string): { id: string; status: 'revoked'; revokedAt: string } {
  const row = deps.db
    .prepare('SELECT id, status, revoked_at, key_hash FROM api_keys WHERE id = ? AND organization_id = ?')
    .get(id, organizationId) as { id: string; status: string; revoked_at: string | null; key_hash: string } | undefined;
  if (!row) throw new AppError('NOT_FOUND', { message: 'No API key with this id exists.' });
  let revokedAt = row.revoked_at;
  if (row.status !== 'revoked') {
    revokedAt = iso(deps.clock.now());
    audited(
      deps,
      organizationId,
      () => deps.db.prepare("UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE id = ?").run(revokedAt, id),
      () => ({ action: 'key.revoked', target: { type: 'apiKey', id } }),
    );
  }
  cacheFor(deps).delete(row.key_hash);
  return { id, status: 'revoked', revokedAt: revokedAt! };
}

export function revokeKeyFor(deps: CoreDeps, p: Principal, id: string) {
  requireRole(p, ['OWNER', 'ADMIN']);
  return revokeKey(deps, p.organizationId, id);
}

export function authenticateApiKey(deps: CoreDeps, raw: string | undefined): Principal {
  if (raw === undefined || raw === '') throw new AppError('API_KEY_MISSING');
  if (!KEY_PATTERN.test(raw)) throw new AppError('API_KEY_INVALID');
  const hash = sha256Hex(raw);
  const cache = cacheFor(deps);
  let k = cache.get(hash);
  if (!k) {
    const row = deps.db
      .prepare('SELECT id, organization_id, environment, status, name FROM api_keys WHERE key_hash = ?')
      .get(hash) as { id: string; organization_id: string; environment: Environment; status: 'active' | 'revoked'; name: string } | undefined;
    if (!row) throw new AppError('API_KEY_INVALID');
    k = { id: row.id, organizationId: row.organization_id, environment: row.environment, status: row.status, name: row.name, lastTouchMs: 0 };
    if (cache.size > 10_000) cache.clear();
    cache.set(hash, k);
  }
  if (k.status === 'revoked') throw new AppError('API_KEY_REVOKED');
  const now = deps.clock.now();
  if (now - k.lastTouchMs >= 1000) {
    k.lastTouchMs = now;
    const id = k.id;
    const at = iso(now);
    // Rides the next group commit instead of an fsync of its own on the request path; losing a touch in a
    // crash only leaves lastUsedAt a second stale.
    void deps.commit(() => deps.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at, id)).catch((err: unknown) => {
      deps.log.warn({ err, keyId: id }, 'could not record lastUsedAt');
    });
  }
  return { kind: 'apiKey', organizationId: k.organizationId, environment: k.environment, role: 'DEVELOPER', keyId: k.id, keyName: k.name };
}
