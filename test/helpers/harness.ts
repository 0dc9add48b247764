// Shared integration-test harness: starts the real service on a temp data dir and an ephemeral port, bootstraps
// an organization, and calls the API over real HTTP (fetch, or node:http where raw header bytes matter).
// The engine comes from VC_TEST_ENGINE (test/helpers/engine.ts): on PostgreSQL each data folder gets a fresh
// database of the run's cluster, whose URL is kept in the folder, so a restart on the same folder reuses it.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { enableService, setPrice, topUp } from '../../src-main/core/billing/billing';
import { bootstrap, type BootstrapResult } from '../../src-main/core/orgs/organizations';
import { configureStandIn } from '../../src-main/providers/registry';
import { startService, type RunningService, type ServiceConfig } from '../../src-main/service';
import Database from 'better-sqlite3';
import { afterAll } from 'vitest';
import type { SqlPort } from '../../src-main/store/sql-port';
import { createSqlitePort } from '../../src-main/store/sqlite-port';
import { storeFile } from '../../src-main/store/store-open';
import { ON_POSTGRES } from './engine';
import { freshDatabase, type TestDatabase } from './pg';

export { notYetOnPostgres, ON_POSTGRES, sqliteOnly, TEST_ENGINE } from './engine';

export const TEST_PASSWORD = 'correct horse battery staple';

export interface TestService {
  service: RunningService;
  dataDir: string;
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** The bootstrapped organization (null when started with `bootstrap: false`). */
  org: BootstrapResult | null;
  email: string;
  sandboxKey: string;
  liveKey: string;
  /** The PostgreSQL database the service runs on (VC_TEST_ENGINE=postgres, or a databaseUrl given), else null. */
  databaseUrl: string | null;
  /**
   * Stops the service; the data dir is removed unless `keepDir` (for a restart on the same files). On PostgreSQL the
   * database the harness made for the folder goes with it, and stays with a kept folder.
   */
  stop(opts?: { keepDir?: boolean }): Promise<void>;
}

export interface StartOptions extends Partial<ServiceConfig> {
  /** Bootstrap an organization with this email (default: a fresh one); false to skip. */
  bootstrap?: false | { email?: string; password?: string };
}

/** The file of a data folder that names its test database (VC_TEST_ENGINE=postgres). */
export const TEST_DATABASE_FILE = 'test-database-url';

// Databases made for data folders in this test file, by URL. A folder kept by `stop({ keepDir: true })` and then
// removed by the test itself leaves its database behind: the file's afterAll drops what is left.
const madeDatabases = new Map<string, TestDatabase>();
afterAll(async () => {
  for (const db of [...madeDatabases.values()]) await dropMade(db);
});

async function dropMade(db: TestDatabase): Promise<void> {
  madeDatabases.delete(db.url);
  await db.drop();
}

/**
 * The database of a data folder on PostgreSQL: the one its file names (a restart), else a fresh one, noted in it.
 * Null on SQLite.
 */
async function folderDatabase(dataDir: string): Promise<string | null> {
  if (!ON_POSTGRES) return null;
  const file = join(dataDir, TEST_DATABASE_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const db = await freshDatabase();
  madeDatabases.set(db.url, db);
  writeFileSync(file, db.url);
  return db.url;
}

/**
 * The store options for a data folder under VC_TEST_ENGINE, for tests that call startService or createCore
 * themselves: `{ databaseUrl }` of the folder's database on PostgreSQL (made on first use, dropped when the test
 * file ends), nothing on SQLite.
 */
export async function testStore(dataDir: string): Promise<{ databaseUrl?: string }> {
  const url = await folderDatabase(dataDir);
  return url ? { databaseUrl: url } : {};
}

/** Drops the database testStore made for a data folder (PostgreSQL; nothing on SQLite): after its service stopped. */
export async function dropTestStore(dataDir: string): Promise<void> {
  const file = join(dataDir, TEST_DATABASE_FILE);
  const made = existsSync(file) ? madeDatabases.get(readFileSync(file, 'utf8').trim()) : undefined;
  if (made) await dropMade(made);
}

/**
 * The store of a stopped test service, read through the SQL port whatever the engine (SQLite: the folder's file,
 * read-only; PostgreSQL: its database). Close it after use.
 */
export async function openStoppedStore(ts: Pick<TestService, 'dataDir' | 'databaseUrl'>): Promise<SqlPort> {
  if (ts.databaseUrl) return (await import('../../src-main/store/pg/pg-port')).createPgPort(ts.databaseUrl);
  return createSqlitePort(new Database(storeFile(ts.dataDir), { readonly: true }), { closeConnection: true });
}

/**
 * Starts a service on a fresh temp dir (or `dataDir`), port 0, silent logs, cheap scrypt. With VC_TEST_ENGINE=postgres
 * and no `databaseUrl`, on the folder's own database.
 */
export async function startTestService(opts: StartOptions = {}): Promise<TestService> {
  const { bootstrap: boot, ...cfg } = opts;
  const dataDir = cfg.dataDir ?? mkdtempSync(join(tmpdir(), 'vc-'));
  // A start that fails (what some tests expect) keeps the folder and its database, for the test to retry.
  const databaseUrl = cfg.databaseUrl ?? (await folderDatabase(dataDir)) ?? undefined;
  const service = await startService({ port: 0, logLevel: process.env['VC_TEST_LOG'] ?? 'silent', scryptN: 1024, lockDoor: 'test', ...cfg, ...(databaseUrl ? { databaseUrl } : {}), dataDir });
  if (!service.url) throw new Error('service did not listen');
  // The listening port (a team server's url is its public URL, whose port may differ).
  const addr = service.app?.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : Number(new URL(service.url).port);
  let org: BootstrapResult | null = null;
  const email = (boot && boot.email) || `owner-${randomUUID().slice(0, 8)}@example.com`;
  if (boot !== false) {
    org = await bootstrap(service.deps, { email, password: (boot && boot.password) || TEST_PASSWORD });
  }
  return {
    service,
    dataDir,
    url: service.url,
    port,
    org,
    email,
    sandboxKey: org?.keys.sandbox.key ?? '',
    liveKey: org?.keys.live.key ?? '',
    databaseUrl: databaseUrl ?? null,
    async stop(o = {}) {
      await service.stop();
      if (o.keepDir) return;
      rmSync(dataDir, { recursive: true, force: true });
      const made = databaseUrl ? madeDatabases.get(databaseUrl) : undefined;
      if (made) await dropMade(made);
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response is JSON, else the text ('' for an empty body). */
  body: T;
  text: string;
}

export interface CallOptions {
  key?: string;
  token?: string;
  /** Serialized as JSON unless it is already a string. */
  body?: unknown;
  /** The Idempotency-Key header. */
  idem?: string;
  headers?: Record<string, string>;
}

/** Calls `${base}/api/v1${path}` with fetch. */
export async function api<T = any>(base: string, method: string, path: string, o: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.key !== undefined) headers['x-api-key'] = o.key;
  if (o.token !== undefined) headers['authorization'] = `Bearer ${o.token}`;
  if (o.idem !== undefined) headers['idempotency-key'] = o.idem;
  let body: string | undefined;
  if (o.body !== undefined) {
    body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}/api/v1${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  const isJson = (res.headers.get('content-type') ?? '').includes('json');
  return { status: res.status, headers: res.headers, body: (isJson && text ? JSON.parse(text) : text) as T, text };
}

/** Signs in and returns the token pair. */
export async function login(base: string, email: string, password = TEST_PASSWORD) {
  const r = await api(base, 'POST', '/auth/login', { body: { email, password } });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
  return r.body as { accessToken: string; refreshToken: string; user: { id: string; organizationId: string } };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
}

/**
 * A request through node:http, for what fetch refuses or rewrites: raw header bytes (a header value string is
 * written as latin1, one byte per char), a foreign Host header.
 */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/**
 * Makes live verifications of `service` (e.g. 'account:NG') possible for an organization (decisions §9: enabled,
 * priced, funded wallet). Sandbox needs none of this.
 */
export async function enableLive(ts: TestService, service = 'account:NG', o: { price?: number; balance?: number; organizationId?: string } = {}): Promise<void> {
  const orgId = o.organizationId ?? ts.org!.organizationId;
  const deps = ts.service.deps;
  await topUp(deps, orgId, o.balance ?? 100_000, 'USD');
  await setPrice(deps, orgId, service, o.price ?? 25, 'USD');
  await enableService(deps, orgId, service);
  // Live checks need a configured provider (docs/providers.md): the stand-in answers like the sandbox, billed.
  // Routes a test already gave a real adapter (the simulator) stay with it.
  await configureStandIn(ts.service.rt);
}

/** A valid NG account request that the sandbox answers with success. */
export const NG_OK = { country: 'NG', accountNumber: '0123456789', bankCode: '058' } as const;

export function newKey(): string {
  return `test-${randomUUID()}`;
}
