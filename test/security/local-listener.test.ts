// The local listener (issue 9 item 6, decisions §1): bound to loopback by default; any Host but
// 127.0.0.1:<port> / localhost:<port> → 403 on every route, the console included; no CORS header on any answer,
// preflights included; the console bridge's entry token is single-use and the bridge refuses other origins.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/harness';
import { rawExchange, type RawExchange } from './raw-http';

let ts: TestService;
let tried = 0;

async function send(method: string, path: string, headers: Record<string, string>, body = ''): Promise<RawExchange> {
  tried += 1;
  const hasHost = Object.keys(headers).some((k) => k.toLowerCase() === 'host');
  const lines = [`${method} ${path} HTTP/1.1`, ...(hasHost ? [] : [`Host: 127.0.0.1:${ts.port}`]), ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return rawExchange(ts.port, lines.join('\r\n'), body);
}

function corsHeaders(r: RawExchange): string[] {
  return Object.keys(r.headers).filter((h) => h.startsWith('access-control-') || h === 'timing-allow-origin');
}

function tokenOf(url: string): string {
  return new URL(url).hash.replace(/^#token=/, '');
}

beforeAll(async () => {
  const rendererDir = mkdtempSync(join(tmpdir(), 'vc-renderer-'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>console</title>');
  ts = await startTestService({ webConsole: true, rendererDir });
});

afterAll(async () => {
  console.log(`local listener: ${tried} requests`);
  await ts?.stop();
});

describe('bound to loopback', () => {
  it('without a host option the service listens on 127.0.0.1 only', () => {
    const addr = ts.service.app!.server.address();
    expect(typeof addr === 'object' && addr ? addr.address : addr).toBe('127.0.0.1');
    expect(ts.url).toBe(`http://127.0.0.1:${ts.port}`);
  });
});

describe('the Host check', () => {
  const foreign = (port: number) => [
    'evil.test',
    `evil.test:${port}`,
    `127.0.0.1.evil.test:${port}`,
    `localhost.evil.test:${port}`,
    `127.0.0.1:${port}.evil.test`,
    '127.0.0.1',
    'localhost',
    `127.0.0.1:${port + 1}`,
    `0.0.0.0:${port}`,
    `[::1]:${port}`,
    `127.1:${port}`,
    `2130706433:${port}`,
    `127.0.0.1:${port}@evil.test`,
  ];
  const paths: [string, string, Record<string, string>, string?][] = [
    ['GET', '/api/v1/health', {}],
    ['GET', '/api/v1/openapi.json', {}],
    ['GET', '/api/v1/verify', { 'X-API-Key': '' }],
    ['POST', '/api/v1/verify/account', { 'Content-Type': 'application/json', 'Idempotency-Key': 'k1' }, '{"country":"NG","accountNumber":"0123456789","bankCode":"058"}'],
    ['POST', '/api/v1/auth/login', { 'Content-Type': 'application/json' }, '{"email":"a@b.co","password":"x"}'],
    ['GET', '/console/', {}],
    ['POST', '/console/session', { 'Content-Type': 'application/json' }, '{"token":"x"}'],
    ['POST', '/console/bridge/keys:list', { 'Content-Type': 'application/json' }, '{}'],
    ['OPTIONS', '/api/v1/verify/account', { 'Access-Control-Request-Method': 'POST' }],
    ['GET', '/no/such/route', {}],
  ];

  it('every foreign Host → 403 FORBIDDEN on the API and the console, before anything runs', async () => {
    const before = (await ts.service.deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM verifications'))!;
    for (const host of foreign(ts.port)) {
      for (const [method, path, headers, body] of paths) {
        const h = { ...headers, Host: host, 'X-API-Key': headers['X-API-Key'] ?? ts.sandboxKey, Origin: `http://${host}` };
        const r = await send(method, path, h, body ?? '');
        expect(r.status, `${method} ${path} Host ${host}: ${r.text.slice(0, 200)}`).toBe(403);
        expect(r.body.code).toBe('FORBIDDEN');
        expect(corsHeaders(r)).toEqual([]);
      }
    }
    const after = (await ts.service.deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM verifications'))!;
    expect(after.n).toBe(before.n);
  });

  it('the two loopback names with the right port are answered, a name in any case', async () => {
    for (const host of [`127.0.0.1:${ts.port}`, `localhost:${ts.port}`, `LOCALHOST:${ts.port}`, `LocalHost:${ts.port}`]) {
      const r = await send('GET', '/api/v1/health', { Host: host });
      expect(r.status).toBe(200);
    }
  });

  it('a request without a Host header is refused (400 from the parser or 403), never answered', async () => {
    tried += 1;
    const r = await rawExchange(ts.port, 'GET /api/v1/health HTTP/1.1');
    expect([400, 403]).toContain(r.status);
    tried += 1;
    const r10 = await rawExchange(ts.port, 'GET /api/v1/health HTTP/1.0');
    expect(r10.status).toBe(403);
  });
});

describe('no CORS headers, on any answer', () => {
  it('preflights and simple requests from any Origin carry no Access-Control-* header', async () => {
    const origins = ['http://evil.test', 'null', `http://127.0.0.1:${ts.port}`, `http://localhost:${ts.port + 1}`];
    const requests: [string, string, Record<string, string>, string?][] = [
      ['OPTIONS', '/api/v1/verify/account', { 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-api-key,content-type,idempotency-key' }],
      ['OPTIONS', '/api/v1/client/api-keys', { 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' }],
      ['OPTIONS', '/console/bridge/keys:list', { 'Access-Control-Request-Method': 'POST' }],
      ['OPTIONS', '*', {}],
      ['GET', '/api/v1/health', {}],
      ['GET', '/api/v1/verify', { 'X-API-Key': ts.sandboxKey }],
      ['POST', '/api/v1/verify/account', { 'X-API-Key': ts.sandboxKey, 'Content-Type': 'text/plain', 'Idempotency-Key': 'cors-1' }, '{}'],
      ['POST', '/api/v1/auth/login', { 'Content-Type': 'application/json' }, '{"email":"x@y.zz","password":"wrong-password"}'],
      ['GET', '/console/', {}],
      ['POST', '/console/session', { 'Content-Type': 'application/json' }, '{"token":"nope"}'],
      ['GET', '/api/v1/nothing-here', {}],
    ];
    for (const origin of origins) {
      for (const [method, path, headers, body] of requests) {
        const r = await send(method, path, { ...headers, Origin: origin }, body ?? '');
        expect(r.status, `${method} ${path}`).toBeGreaterThan(0);
        expect(corsHeaders(r), `${method} ${path} from ${origin}`).toEqual([]);
      }
    }
  });

  it('a preflight is not answered with a 2xx (no route answers OPTIONS)', async () => {
    const r = await send('OPTIONS', '/api/v1/verify/account', { Origin: 'http://evil.test', 'Access-Control-Request-Method': 'POST' });
    expect(r.status).toBeGreaterThanOrEqual(400);
  });
});

describe('the console bridge', () => {
  const self = () => `http://127.0.0.1:${ts.port}`;

  async function session(token: string, origin: string | null, cookie?: string) {
    const h: Record<string, string> = { 'Content-Type': 'application/json' };
    if (origin !== null) h['Origin'] = origin;
    if (cookie) h['Cookie'] = cookie;
    return send('POST', '/console/session', h, JSON.stringify({ token }));
  }

  async function bridge(channel: string, body: unknown, origin: string | null, cookie?: string) {
    const h: Record<string, string> = { 'Content-Type': 'application/json' };
    if (origin !== null) h['Origin'] = origin;
    if (cookie) h['Cookie'] = cookie;
    return send('POST', `/console/bridge/${channel}`, h, JSON.stringify(body));
  }

  async function keyCount(): Promise<number> {
    return (await ts.service.deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM api_keys'))!.n;
  }

  it('the entry token works once, from the console’s own origin only, and sets an HttpOnly SameSite=Strict cookie', async () => {
    const token = tokenOf(ts.service.consoleUrl()!);
    // Refused from other origins, and from none (a form post or a non-browser client without Origin).
    for (const origin of ['http://evil.test', `http://127.0.0.1:${ts.port + 1}`, 'null', `https://127.0.0.1:${ts.port}`, null]) {
      const r = await session(token, origin);
      expect(r.status, String(origin)).toBe(403);
      expect(r.headers['set-cookie']).toBeUndefined();
    }
    // The refused attempts did not use it up.
    const first = await session(token, self());
    expect(first.status).toBe(200);
    const cookie = first.headers['set-cookie'] ?? '';
    expect(cookie).toMatch(/^vc_console=[A-Za-z0-9_-]{20,};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    // A second use of the same link does not authenticate.
    const second = await session(token, self());
    expect(second.status).toBe(401);
    expect(second.headers['set-cookie']).toBeUndefined();
    const again = await session(token, `http://localhost:${ts.port}`);
    expect(again.status).toBe(401);
  });

  it('bridge calls need the session cookie and the console’s origin; refused calls change nothing', async () => {
    const first = await session(tokenOf(ts.service.consoleUrl()!), self());
    const cookie = (first.headers['set-cookie'] ?? '').split(';')[0]!;
    const before = await keyCount();
    const create = { name: 'from a hostile page', environment: 'live' };
    const refused: [string | null, string | undefined][] = [
      ['http://evil.test', cookie],
      ['null', cookie],
      [null, cookie],
      [`http://localhost:${ts.port + 1}`, cookie],
      [self(), undefined],
      [self(), 'vc_console=forged-session-id-000000000000'],
    ];
    for (const [origin, c] of refused) {
      const r = await bridge('keys:create', create, origin, c);
      expect([401, 403], `${origin} ${c ? 'with' : 'without'} cookie: ${r.text}`).toContain(r.status);
    }
    expect(await keyCount()).toBe(before);
    // The control: the same call from the console itself works.
    const ok = await bridge('keys:list', {}, self(), cookie);
    expect(ok.status).toBe(200);
    expect(ok.body.ok).toBe(true);
  });

  it('a fresh link for every entry: tokens are independent and unguessable', () => {
    const a = tokenOf(ts.service.consoleUrl()!);
    const b = tokenOf(ts.service.consoleUrl()!);
    expect(a).not.toBe(b);
    expect(a.length).toBeGreaterThanOrEqual(32);
  });

  it('console file paths: traversal and malformed escapes are 4xx, never a file outside the renderer or a 5xx', async () => {
    for (const p of ['/console/..%2f..%2f..%2fetc%2fpasswd', '/console/%2e%2e/%2e%2e/etc/passwd', '/console/..%252f..%252fetc%252fpasswd', '/console/%25', '/console/%E0%A4%A', '/console/%00']) {
      const r = await send('GET', p, {});
      expect(r.status, `${p}: ${r.text.slice(0, 100)}`).toBeGreaterThanOrEqual(400);
      expect(r.status, p).toBeLessThan(500);
      expect(r.text).not.toMatch(/root:/);
    }
  });
});
