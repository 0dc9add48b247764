// Shared integration-test harness: starts the real service on a temp data dir and an ephemeral port, bootstraps
// an organization, and calls the API over real HTTP (fetch, or node:http where raw header bytes matter).
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { enableService, setPrice, topUp } from '../../src-main/core/billing/billing';
import { bootstrap, type BootstrapResult } from '../../src-main/core/orgs/organizations';
import { configureStandIn } from '../../src-main/providers/registry';
import { startService, type RunningService, type ServiceConfig } from '../../src-main/service';

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
  /** Stops the service; the data dir is removed unless `keepDir` (for a restart on the same files). */
  stop(opts?: { keepDir?: boolean }): Promise<void>;
}

export interface StartOptions extends Partial<ServiceConfig> {
  /** Bootstrap an organization with this email (default: a fresh one); false to skip. */
  bootstrap?: false | { email?: string; password?: string };
}

/** Starts a service on a fresh temp dir (or `dataDir`), port 0, silent logs, cheap scrypt. */
export async function startTestService(opts: StartOptions = {}): Promise<TestService> {
  const { bootstrap: boot, ...cfg } = opts;
  const dataDir = cfg.dataDir ?? mkdtempSync(join(tmpdir(), 'vc-'));
  const service = await startService({ port: 0, logLevel: 'silent', scryptN: 1024, lockDoor: 'test', ...cfg, dataDir });
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
    async stop(o = {}) {
      await service.stop();
      if (!o.keepDir) rmSync(dataDir, { recursive: true, force: true });
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
