// API keys: create (full value shown once), list, revoke, and authenticate a request's X-API-Key.
// Lookups are cached by hash; a revoke in this process drops the cache entry before it returns, and a commit by any
// other connection (`vconsole keys revoke` beside the running service) empties the cache before the next lookup
// (SQLite's data_version), so revocation is immediate from every door. On PostgreSQL nothing is cached (any instance
// may revoke). A cache hit answers without a promise (cachedApiKeyPrincipal, the HTTP door's fast path); a miss reads
// the store through the SQL port. lastUsedAt is written at most once a second per key, in the shared group commit.
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

interface KeyCache {
  keys: Map<string, CachedKey>;
  dataVersion: number;
  version: Statement;
  /** Moves on every revocation here: a lookup that read the store before it does not fill the cache. */
  epoch: number;
}

const caches = new WeakMap<object, KeyCache>();
/**
 * The key lookups known to be current, or null where none can be trusted: on PostgreSQL every instance may revoke a
 * key and nothing tells the others, so every lookup reads the store there.
 */
function cacheFor(deps: Pick<CoreDeps, 'sql' | 'db'>): KeyCache | null {
  // SQLite engine only: data_version changes when another connection (another process) has committed since this
  // one last looked: its change may be a revocation, so nothing cached before it is trusted. Our own commits do
  // not move it. The statement is kept (db.pragma() compiles one on every call: 4 % of a sync POST's CPU).
  if (deps.sql.engine !== 'sqlite' || !deps.db) return null;
  let c = caches.get(deps.db);
  const version = c?.version ?? deps.db.prepare('PRAGMA data_version');
  const dataVersion = version.pluck().get() as number;
  if (!c || c.dataVersion !== dataVersion) {
    c = { keys: new Map(), dataVersion, version, epoch: c?.epoch ?? 0 };
    caches.set(deps.db, c);
  }
  return c;
}

/** Creates a key without a role check: for bootstrap and the CLI, which act as the installation's owner. */
export async function insertKey(deps: CoreDeps, organizationId: string, name: string, environment: Environment): Promise<CreatedKey> {
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
  const hash = sha256Hex(key);
  await audited(
    deps,
    organizationId,
    (tx) =>
      tx.run(
        `INSERT INTO api_keys (id, organization_id, name, environment, key_hash, key_prefix, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 'active', ?)`,
        [row.id, organizationId, name, environment, hash, row.key_prefix, now],
      ),
    () => ({ action: 'key.created', target: { type: 'apiKey', id: row.id }, detail: { name, environment } }),
  );
  return { ...toApiKey(row), key };
}

export async function createKey(deps: CoreDeps, p: Principal, input: { name: string; environment: Environment }): Promise<CreatedKey> {
  requireRole(p, ['OWNER', 'ADMIN']);
  return insertKey(deps, p.organizationId, input.name, input.environment);
}

export async function listKeys(
  deps: CoreDeps,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ data: ApiKey[]; total: number }> {
  const rows = await deps.sql.all<KeyRow>(
    `SELECT id, organization_id, name, environment, key_prefix, status, created_at, last_used_at, revoked_at
     FROM api_keys WHERE organization_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
    [organizationId, page.limit, page.offset],
  );
  const count = await deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE organization_id = ?', [organizationId]);
  return { data: rows.map(toApiKey), total: count?.n ?? 0 };
}

export async function listKeysFor(deps: CoreDeps, p: Principal, page: { limit: number; offset: number }): Promise<{ data: ApiKey[]; total: number }> {
  requireRole(p, ['OWNER', 'ADMIN']);
  return listKeys(deps, p.organizationId, page);
}

export async function revokeKey(deps: CoreDeps, organizationId: string, id: string): Promise<{ id: string; status: 'revoked'; revokedAt: string }> {
  const row = await deps.sql.get<{ id: string; status: string; revoked_at: string | null; key_hash: string }>(
    'SELECT id, status, revoked_at, key_hash FROM api_keys WHERE id = ? AND organization_id = ?',
    [id, organizationId],
  );
  if (!row) throw new AppError('NOT_FOUND', { message: 'No API key with this id exists.' });
  let revokedAt = row.revoked_at;
  try {
    if (row.status !== 'revoked') {
      revokedAt = iso(deps.clock.now());
      await audited(
        deps,
        organizationId,
        (tx) => tx.run("UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE id = ?", [revokedAt, id]),
        () => ({ action: 'key.revoked', target: { type: 'apiKey', id } }),
      );
    }
  } finally {
    // Once the revocation committed (or failed): the next lookup of this key reads the store, and a lookup that
    // read it before now does not put what it read in the cache.
    const c = cacheFor(deps);
    if (c) {
      c.keys.delete(row.key_hash);
      c.epoch++;
    }
  }
  return { id, status: 'revoked', revokedAt: revokedAt! };
}

export async function revokeKeyFor(deps: CoreDeps, p: Principal, id: string): Promise<{ id: string; status: 'revoked'; revokedAt: string }> {
  requireRole(p, ['OWNER', 'ADMIN']);
  return revokeKey(deps, p.organizationId, id);
}

function checkFormat(raw: string | undefined): asserts raw is string {
  if (raw === undefined || raw === '') throw new AppError('API_KEY_MISSING');
  if (!KEY_PATTERN.test(raw)) throw new AppError('API_KEY_INVALID');
}

/**
 * When each key's lastUsedAt was last written by this process, for the engine without a key cache (PostgreSQL): a
 * key read afresh on every request would otherwise write its row on every request, and the requests of one key on
 * every instance would conflict on that row.
 */
const touches = new WeakMap<object, Map<string, number>>();

function lastTouch(deps: CoreDeps, k: CachedKey): { get(): number; set(ms: number): void } {
  let m = touches.get(deps.sql);
  if (!m) touches.set(deps.sql, (m = new Map()));
  const byKey = m;
  return {
    get: () => byKey.get(k.id) ?? 0,
    set: (ms) => {
      if (byKey.size > 10_000) byKey.clear();
      byKey.set(k.id, ms);
    },
  };
}

/** The principal of a known key (refused if revoked); its lastUsedAt is recorded at most once a second. */
function admitKey(deps: CoreDeps, k: CachedKey): Principal {
  if (k.status === 'revoked') throw new AppError('API_KEY_REVOKED');
  const now = deps.clock.now();
  const touch = deps.sql.engine === 'sqlite' ? null : lastTouch(deps, k);
  if (now - (touch ? touch.get() : k.lastTouchMs) >= 1000) {
    if (touch) touch.set(now);
    else k.lastTouchMs = now;
    const id = k.id;
    const at = iso(now);
    // Rides the next group commit instead of an fsync of its own on the request path; losing a touch in a
    // crash only leaves lastUsedAt a second stale.
    void deps.sql.transaction((tx) => tx.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [at, id])).catch((err: unknown) => {
      deps.log.warn({ err, keyId: id }, 'could not record lastUsedAt');
    });
  }
  return { kind: 'apiKey', organizationId: k.organizationId, environment: k.environment, role: 'DEVELOPER', keyId: k.id, keyName: k.name };
}

/**
 * The fast path of authenticateApiKey, without a promise: the principal when the key is in the cache (or a throw:
 * missing, malformed, revoked), null when only the store can say (then call authenticateApiKey).
 */
export function cachedApiKeyPrincipal(deps: CoreDeps, raw: string | undefined): Principal | null {
  checkFormat(raw);
  const k = cacheFor(deps)?.keys.get(sha256Hex(raw));
  return k ? admitKey(deps, k) : null;
}

export async function authenticateApiKey(deps: CoreDeps, raw: string | undefined): Promise<Principal> {
  checkFormat(raw);
  const hash = sha256Hex(raw);
  const cache = cacheFor(deps);
  let k = cache?.keys.get(hash);
  if (!k) {
    const epoch = cache?.epoch;
    const row = await deps.sql.get<{ id: string; organization_id: string; environment: Environment; status: 'active' | 'revoked'; name: string }>(
      'SELECT id, organization_id, environment, status, name FROM api_keys WHERE key_hash = ?',
      [hash],
    );
    if (!row) throw new AppError('API_KEY_INVALID');
    // Another lookup of the same key may have filled the cache meanwhile: keep its entry (and its last touch).
    k = cache?.keys.get(hash) ?? { id: row.id, organizationId: row.organization_id, environment: row.environment, status: row.status, name: row.name, lastTouchMs: 0 };
    if (cache && cache.epoch === epoch && !cache.keys.has(hash)) {
      if (cache.keys.size > 10_000) cache.keys.clear();
      cache.keys.set(hash, k);
    }
  }
  return admitKey(deps, k);
}
