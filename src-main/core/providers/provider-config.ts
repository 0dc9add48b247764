// The one place live-mode provider configuration is read and written (console channels, CLI, tests): adapters,
// routes, limits and credentials sealed by the SecretBox. Plain credentials leave this module only towards an
// adapter (resolve), never towards a door.
import { X509Certificate } from 'node:crypto';
import { AppError } from '../../../src-shared/app-error';
import {
  CACHE_TTL_MAX_SECONDS,
  PROVIDER_KINDS,
  type CaInfo,
  ProviderInputSchema,
  mappingIssues,
  type CacheTtl,
  type ProviderInput,
  type ProviderSettings,
  type ResultMapping,
} from '../../../src-shared/schemas/providers';
import type { SqlQueries } from '../../store/sql-port';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import type { SecretBox } from './secret-box';
import { appendInstallationAudit } from '../audit/audit-log';

export interface StoredProvider extends Omit<ProviderSettings, 'secret' | 'clearSecret' | 'mapping' | 'caCert' | 'clearCaCert'> {
  mapping: Record<string, ResultMapping> | null;
  /** The stored CA certificate, described (the PEM itself is only handed to the adapter's TLS). */
  ca: CaInfo | null;
  secretConfigured: boolean;
  secretLast4: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What an adapter gets: the stored settings plus the opened credential. */
export interface ResolvedProvider extends StoredProvider {
  secret: string | null;
  /** PEM bundle the upstream's certificate must chain to; null: the system's public roots. */
  caPem: string | null;
  /** Changes whenever the row changes, so per-provider runtime state (agent, breaker) can be rebuilt. */
  version: string;
}

/** Default cache time to live per kind (seconds); 0 switches the cache off for the kind. */
export const DEFAULT_CACHE_TTL: CacheTtl = { account: 86_400, phone: 86_400, identity: 86_400, face: 0, address: 0 };

interface Row {
  id: string;
  adapter: string;
  base_url: string;
  auth_scheme: string;
  secret_sealed: string | null;
  secret_last4: string | null;
  timeout_ms: number;
  deadline_ms: number;
  max_concurrency: number;
  max_queue: number;
  retries: number;
  breaker_threshold: number;
  breaker_cooldown_ms: number;
  mapping: string | null;
  ca_pem: string | null;
  created_at: string;
  updated_at: string;
}

function toStored(r: Row, routes: string[]): StoredProvider {
  return {
    id: r.id,
    adapter: r.adapter as StoredProvider['adapter'],
    baseUrl: r.base_url,
    authScheme: r.auth_scheme as StoredProvider['authScheme'],
    routes,
    mapping: r.mapping ? (JSON.parse(r.mapping) as Record<string, ResultMapping>) : null,
    ca: r.ca_pem ? describeCa(r.ca_pem) : null,
    secretConfigured: r.secret_sealed !== null,
    secretLast4: r.secret_last4,
    timeoutMs: r.timeout_ms,
    deadlineMs: r.deadline_ms,
    maxConcurrency: r.max_concurrency,
    maxQueue: r.max_queue,
    retries: r.retries,
    breakerThreshold: r.breaker_threshold,
    breakerCooldownMs: r.breaker_cooldown_ms,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/**
 * Checks a pasted PEM bundle: one or more X.509 certificates and nothing else (a private key pasted by mistake is
 * refused rather than stored). Returns the normalised bundle; throws VALIDATION_ERROR naming the problem.
 */
export function parseCaBundle(pem: string, nowMs: number): { pem: string; info: CaInfo } {
  const bad = (message: string): never => {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'caCert', message }] });
  };
  if (/PRIVATE KEY-----/.test(pem)) bad('this is a private key: give only the CA certificate (it is not secret)');
  const blocks = [...pem.matchAll(PEM_BLOCK)];
  if (blocks.length === 0) bad('no PEM certificate found (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----)');
  if (blocks.length > 20) bad('at most 20 certificates');
  const certs: X509Certificate[] = [];
  for (const b of blocks) {
    if (b[1] !== 'CERTIFICATE') bad(`expected certificates only, found a ${b[1]!.toLowerCase()} block`);
    try {
      certs.push(new X509Certificate(b[0]));
    } catch {
      bad('a certificate in the PEM text could not be read as X.509');
    }
  }
  for (const c of certs) {
    if (Date.parse(c.validTo) <= nowMs) bad(`the certificate "${oneLine(c.subject)}" expired on ${new Date(c.validTo).toISOString()}`);
  }
  const normalised = blocks.map((b) => b[0]).join('\n') + '\n';
  return { pem: normalised, info: infoOf(certs, blocks.length) };
}

function oneLine(dn: string): string {
  return dn.split('\n').filter(Boolean).join(', ');
}

function infoOf(certs: X509Certificate[], count: number): CaInfo {
  const first = certs[0]!;
  return {
    subject: oneLine(first.subject),
    issuer: oneLine(first.issuer),
    fingerprint256: first.fingerprint256,
    validTo: new Date(first.validTo).toISOString(),
    count,
  };
}

/** The stored bundle, described for views (it was validated when saved). */
export function describeCa(pem: string): CaInfo | null {
  const blocks = [...pem.matchAll(PEM_BLOCK)];
  try {
    return infoOf(blocks.map((b) => new X509Certificate(b[0])), blocks.length);
  } catch {
    return null;
  }
}

export interface ProviderConfig {
  readonly box: SecretBox;
  list(): Promise<StoredProvider[]>;
  get(id: string): Promise<StoredProvider | null>;
  /** Creates or replaces a provider and its routes; a route held by another provider moves to this one. */
  set(input: ProviderInput): Promise<StoredProvider>;
  remove(id: string): Promise<void>;
  /** The provider serving kind + country: the exact route first, then `kind:*`. */
  resolve(kind: string, country: string): Promise<ResolvedProvider | null>;
  resolveById(id: string): Promise<ResolvedProvider | null>;
  cacheTtl(): Promise<CacheTtl>;
  setCacheTtl(kind: keyof CacheTtl, seconds: number): Promise<CacheTtl>;
}

export function createProviderConfig(deps: CoreDeps, box: SecretBox): ProviderConfig {
  const routesOf = async (q: SqlQueries, id: string): Promise<string[]> =>
    (await q.all<{ route: string }>('SELECT route FROM provider_routes WHERE provider_id = ? ORDER BY route', [id])).map((r) => r.route);
  const row = (q: SqlQueries, id: string): Promise<Row | undefined> => q.get<Row>('SELECT * FROM provider_configs WHERE id = ?', [id]);
  const resolved = async (r: Row): Promise<ResolvedProvider> => ({
    ...toStored(r, await routesOf(deps.sql, r.id)),
    secret: r.secret_sealed === null ? null : box.open(r.secret_sealed),
    caPem: r.ca_pem,
    version: `${r.id}@${r.updated_at}#${r.secret_sealed ?? ''}`.slice(0, 200),
  });

  const api: ProviderConfig = {
    box,
    async list() {
      const rows = await deps.sql.all<Row>('SELECT * FROM provider_configs ORDER BY id');
      // Reads outside a transaction: the routes of every provider may be read side by side.
      return Promise.all(rows.map(async (r) => toStored(r, await routesOf(deps.sql, r.id))));
    },
    async get(id) {
      const r = await row(deps.sql, id);
      return r ? toStored(r, await routesOf(deps.sql, id)) : null;
    },
    async set(input) {
      const parsed = ProviderInputSchema.safeParse(input);
      if (!parsed.success) {
        throw new AppError('VALIDATION_ERROR', {
          details: parsed.error.issues.map((i) => ({ field: i.path.join('.') || 'provider', message: i.message })),
        });
      }
      const v = parsed.data;
      const now = iso(deps.clock.now());
      const givenCa = v.caCert !== undefined ? parseCaBundle(v.caCert, deps.clock.now()).pem : undefined;
      // Sealed before the transaction: nothing but the store runs inside it. Short secrets show no characters at
      // all: four of six would give most of it away.
      const given = v.secret !== undefined ? { sealed: box.seal(v.secret), last4: v.secret.length >= 12 ? v.secret.slice(-4) : '' } : undefined;
      await deps.sql.transaction(async (tx) => {
        const existing = await row(tx, v.id);
        const issues = mappingIssues(v.adapter, v.mapping ?? {}, existing && existing.adapter === v.adapter ? storedMapping(existing.mapping) : null);
        if (issues.length > 0) throw new AppError('VALIDATION_ERROR', { details: issues });
        const caPem = givenCa ?? (v.clearCaCert ? null : (existing?.ca_pem ?? null));
        // A kept CA (edited URL, same CA) must still travel over TLS.
        if (caPem !== null && v.adapter !== 'stand-in' && !/^https:\/\//i.test(v.baseUrl)) {
          throw new AppError('VALIDATION_ERROR', { details: [{ field: 'caCert', message: 'a CA certificate needs an https:// base URL (clear it to use http://)' }] });
        }
        let sealed = existing?.secret_sealed ?? null;
        let last4 = existing?.secret_last4 ?? null;
        if (v.clearSecret) {
          sealed = null;
          last4 = null;
        }
        if (given) {
          sealed = given.sealed;
          last4 = given.last4;
        }
        // A new updated_at even within the same millisecond, so runtime state keyed by version is rebuilt.
        const updatedAt = existing && existing.updated_at >= now ? iso(Date.parse(existing.updated_at) + 1) : now;
        await tx.run(
          `INSERT INTO provider_configs (id, adapter, base_url, auth_scheme, secret_sealed, secret_last4, timeout_ms, deadline_ms,
             max_concurrency, max_queue, retries, breaker_threshold, breaker_cooldown_ms, mapping, ca_pem, created_at, updated_at)
           VALUES (@id, @adapter, @baseUrl, @authScheme, @sealed, @last4, @timeoutMs, @deadlineMs, @maxConcurrency, @maxQueue,
             @retries, @breakerThreshold, @breakerCooldownMs, @mapping, @caPem, @createdAt, @updatedAt)
           ON CONFLICT(id) DO UPDATE SET adapter = excluded.adapter, base_url = excluded.base_url, auth_scheme = excluded.auth_scheme,
             secret_sealed = excluded.secret_sealed, secret_last4 = excluded.secret_last4, timeout_ms = excluded.timeout_ms,
             deadline_ms = excluded.deadline_ms, max_concurrency = excluded.max_concurrency, max_queue = excluded.max_queue,
             retries = excluded.retries, breaker_threshold = excluded.breaker_threshold,
             breaker_cooldown_ms = excluded.breaker_cooldown_ms, mapping = excluded.mapping, ca_pem = excluded.ca_pem,
             updated_at = excluded.updated_at`,
          {
            id: v.id,
            adapter: v.adapter,
            baseUrl: v.baseUrl.replace(/\/+$/, ''),
            authScheme: v.authScheme,
            sealed,
            last4,
            timeoutMs: v.timeoutMs,
            deadlineMs: Math.max(v.deadlineMs, v.timeoutMs),
            maxConcurrency: v.maxConcurrency,
            maxQueue: v.maxQueue,
            retries: v.retries,
            breakerThreshold: v.breakerThreshold,
            breakerCooldownMs: v.breakerCooldownMs,
            mapping: v.mapping ? JSON.stringify(v.mapping) : null,
            caPem,
            createdAt: existing?.created_at ?? now,
            updatedAt,
          },
        );
        await tx.run('DELETE FROM provider_routes WHERE provider_id = ?', [v.id]);
        const put = 'INSERT INTO provider_routes (route, provider_id) VALUES (?, ?) ON CONFLICT(route) DO UPDATE SET provider_id = excluded.provider_id';
        for (const r of new Set(v.routes)) await tx.run(put, [r, v.id]);
        // Never the credential: only whether one was set, replaced or cleared.
        await appendInstallationAudit({ ...deps, sql: tx }, {
          action: existing ? 'provider.updated' : 'provider.created',
          target: { type: 'provider', id: v.id },
          detail: { adapter: v.adapter, baseUrl: v.baseUrl, routes: [...new Set(v.routes)], sealedValue: v.secret !== undefined ? 'replaced' : v.clearSecret ? 'cleared' : 'unchanged', caCert: givenCa ? 'replaced' : v.clearCaCert ? 'cleared' : 'unchanged' },
        });
      });
      return (await api.get(v.id))!;
    },
    async remove(id) {
      const changes = await deps.sql.transaction(async (tx) => {
        const n = (await tx.run('DELETE FROM provider_configs WHERE id = ?', [id])).changes;
        if (n > 0) await appendInstallationAudit({ ...deps, sql: tx }, { action: 'provider.removed', target: { type: 'provider', id } });
        return n;
      });
      if (changes === 0) throw new AppError('NOT_FOUND', { message: `No provider with id ${id} exists.` });
    },
    async resolve(kind, country) {
      const route = 'SELECT provider_id FROM provider_routes WHERE route = ?';
      const hit =
        (await deps.sql.get<{ provider_id: string }>(route, [`${kind}:${country.toUpperCase()}`])) ??
        (await deps.sql.get<{ provider_id: string }>(route, [`${kind}:*`]));
      if (!hit) return null;
      return api.resolveById(hit.provider_id);
    },
    async resolveById(id) {
      const r = await row(deps.sql, id);
      return r ? resolved(r) : null;
    },
    async cacheTtl() {
      const out: CacheTtl = { ...DEFAULT_CACHE_TTL };
      for (const r of await deps.sql.all<{ kind: keyof CacheTtl; ttl_seconds: number }>('SELECT kind, ttl_seconds FROM provider_cache_ttl')) {
        if ((PROVIDER_KINDS as readonly string[]).includes(r.kind)) out[r.kind] = r.ttl_seconds;
      }
      return out;
    },
    async setCacheTtl(kind, seconds) {
      // The bound of every door (the console's field, its channel, the CLI): a CLI value past it showed as an error
      // under the console's field.
      if (!(PROVIDER_KINDS as readonly string[]).includes(kind) || !Number.isInteger(seconds) || seconds < 0 || seconds > CACHE_TTL_MAX_SECONDS) {
        throw new AppError('VALIDATION_ERROR', { details: [{ field: 'ttlSeconds', message: `a whole number of seconds from 0 to ${CACHE_TTL_MAX_SECONDS} (30 days)` }] });
      }
      const now = deps.clock.now();
      await deps.sql.transaction(async (tx) => {
        await tx.run('INSERT INTO provider_cache_ttl (kind, ttl_seconds) VALUES (?, ?) ON CONFLICT(kind) DO UPDATE SET ttl_seconds = excluded.ttl_seconds', [kind, seconds]);
        // A lowered TTL takes effect at once, for every entry: nothing older than the new limit may still be served,
        // and the younger ones expire by it (they kept stored + the old TTL), not by the TTL they were stored under.
        // Milliseconds computed here: on PostgreSQL `? * 1000` is integer arithmetic and 30 days overflows it.
        const ttlMs = seconds * 1000;
        await tx.run('DELETE FROM verification_cache WHERE kind = ? AND stored_at_ms + ? <= ?', [kind, ttlMs, now]);
        await tx.run('UPDATE verification_cache SET expires_at_ms = stored_at_ms + ? WHERE kind = ? AND expires_at_ms > stored_at_ms + ?', [ttlMs, kind, ttlMs]);
        await appendInstallationAudit({ ...deps, sql: tx }, { action: 'provider.cache_ttl_set', target: { type: 'cache', id: kind }, detail: { kind, ttlSeconds: seconds } });
      });
      return api.cacheTtl();
    },
  };
  return api;
}

/** A stored mapping column as rows (null, or text another version wrote that does not parse: no row is kept as is). */
function storedMapping(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
