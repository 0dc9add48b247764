// A team server's listener (issue 17 item 3, docs/team-server.md), for real: listening beyond loopback needs a public
// URL (refused with a clear error otherwise, by the service and by `vconsole serve`); with one, only its Host is
// answered; HTTPS served directly with a certificate made here by openssl (as the simulator does); behind a proxy,
// X-Forwarded-* are believed only from the addresses given with --trust-proxy.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ListenError } from '../../../src-main/service';
import { main } from '../../../src-main/cli/main';
import { parsePublicUrl } from '../../../src-main/http/public-url';
import { startTestService, TEST_PASSWORD, type TestService } from '../../helpers/harness';

interface Res {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
  text: string;
}

function collect(resolve: (r: Res) => void) {
  return (res: import('node:http').IncomingMessage) => {
    let text = '';
    res.on('data', (c: Buffer) => (text += c.toString()));
    res.on('end', () => {
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
    });
  };
}

function http(port: number, method: string, path: string, headers: Record<string, string>, body?: unknown, address = '127.0.0.1'): Promise<Res> {
  return new Promise((resolve, reject) => {
    const h = { ...headers, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) };
    const req = httpRequest({ host: address, port, method, path, headers: h, agent: false }, collect(resolve));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** A throwaway certificate for team.test (and 127.0.0.1), made by the openssl command. */
function certificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'vc-team-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=team.test',
      '-addext', 'subjectAltName=DNS:team.test,IP:127.0.0.1',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('listening beyond loopback', () => {
  it('is refused without a public URL, with an error that says what to add', async () => {
    const err = await startTestService({ host: '0.0.0.0', bootstrap: false }).then(
      (ts) => ts.stop().then(() => null),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ListenError);
    expect((err as Error).message).toMatch(/Listening on 0\.0\.0\.0 \(beyond loopback\) requires .*--public-url https:\/\//);
  });

  it('`vconsole serve --host 0.0.0.0` without --public-url exits 1 with that error and starts nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vc-cli-'));
    const errs: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
      errs.push(String(c));
      return true;
    });
    try {
      const code = await main(['serve', '--host', '0.0.0.0', '--port', '0', '--data-dir', dataDir]);
      expect(code).toBe(1);
    } finally {
      spy.mockRestore();
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(errs.join('')).toMatch(/requires the public URL .*--public-url/);
  });

  it('refuses TLS without an https public URL, and malformed public URLs', async () => {
    const { cert, key } = certificate();
    await expect(startTestService({ tls: { cert, key }, bootstrap: false })).rejects.toThrow(/--public-url https/);
    for (const bad of ['team.test', 'ftp://team.test', 'https://team.test/console', 'https://u:p@team.test', 'https://team.test/?x=1']) {
      expect(() => parsePublicUrl(bad), bad).toThrow();
    }
    expect(parsePublicUrl('https://team.test:8443').host).toBe('team.test:8443');
  });

  it('with a public URL it listens on every address and answers only the public Host', async () => {
    const ts = await startTestService({ host: '0.0.0.0', publicUrl: 'http://team.test:8080', webConsole: true });
    try {
      const addr = ts.service.app!.server.address();
      expect(typeof addr === 'object' && addr ? addr.address : addr).toBe('0.0.0.0');
      expect(ts.service.apiBaseUrl).toBe('http://team.test:8080/api/v1');
      expect((await http(ts.port, 'GET', '/api/v1/health', { Host: 'team.test:8080' })).status).toBe(200);
      for (const host of ['team.test', `127.0.0.1:${ts.port}`, `localhost:${ts.port}`, 'evil.test:8080']) {
        expect((await http(ts.port, 'GET', '/api/v1/health', { Host: host })).status, host).toBe(403);
      }
    } finally {
      await ts.stop();
    }
  });
});

describe('HTTPS served directly (--tls-cert/--tls-key)', () => {
  let ts: TestService;
  let cert: string;
  let stopped = false;

  function https(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Res> {
    return new Promise((resolve, reject) => {
      const h = { Host: 'team.test', ...headers, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) };
      const req = httpsRequest({ host: '127.0.0.1', port: ts.port, method, path, headers: h, servername: 'team.test', ca: cert, agent: false }, collect(resolve));
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  beforeAll(async () => {
    const pair = certificate();
    cert = pair.cert;
    const rendererDir = mkdtempSync(join(tmpdir(), 'vc-renderer-'));
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>console</title>');
    ts = await startTestService({ publicUrl: 'https://team.test', tls: pair, webConsole: true, rendererDir });
  });
  afterAll(async () => {
    if (!stopped) await ts?.stop();
  });

  it('signs in over TLS: a __Host- cookie with Secure, HttpOnly and SameSite=Strict; HSTS on every answer', async () => {
    const page = await https('GET', '/console/', {});
    expect(page.status).toBe(200);
    expect(page.headers['strict-transport-security']).toBe('max-age=31536000');
    const r = await https('POST', '/console/sign-in', { Origin: 'https://team.test' }, { email: ts.email, password: TEST_PASSWORD });
    expect(r.status, r.text).toBe(200);
    const set = r.headers['set-cookie']?.[0] ?? '';
    expect(set).toMatch(/^__Host-vc_session=[A-Za-z0-9_-]{40,}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=\d+; Secure$/);
    const cookie = set.split(';')[0]!;
    const keys = await https('POST', '/console/bridge/keys:list', { Origin: 'https://team.test', Cookie: cookie }, {});
    expect(keys.body.ok, keys.text).toBe(true);
    // The cookie without its prefix, or from the http origin, does not count.
    const plainOrigin = await https('POST', '/console/bridge/keys:list', { Origin: 'http://team.test', Cookie: cookie }, {});
    expect(plainOrigin.status).toBe(403);
    const renamed = await https('POST', '/console/bridge/keys:list', { Origin: 'https://team.test', Cookie: cookie.replace('__Host-', '') }, {});
    expect(renamed.status).toBe(401);
  });

  it('answers only the public Host over TLS, and nothing over plain HTTP', async () => {
    expect((await https('GET', '/api/v1/health', {})).status).toBe(200);
    expect((await https('GET', '/api/v1/health', { Host: 'team.test:443' })).status).toBe(200);
    expect((await https('GET', '/api/v1/health', { Host: `127.0.0.1:${ts.port}` })).status).toBe(403);
    const plain = await http(ts.port, 'GET', '/api/v1/health', { Host: 'team.test' }).then((r) => r.status, () => 'no HTTP answer');
    expect(plain === 'no HTTP answer' || plain === 400, String(plain)).toBe(true);
  });

  it('stops with a TLS keep-alive connection open (TLS sockets are counted under their TCP socket)', async () => {
    // An idle keep-alive TLS connection must not hold the stop for Node's keep-alive timeout (a hang fails the test).
    const agent = new Agent({ keepAlive: true });
    const res = await new Promise<Res>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port: ts.port, method: 'GET', path: '/api/v1/health', headers: { Host: 'team.test' }, servername: 'team.test', ca: cert, agent }, collect(resolve));
      req.on('error', reject);
      req.end();
    });
    expect(res.status).toBe(200);
    expect(res.headers.connection).toBe('keep-alive');
    await ts.stop();
    stopped = true;
    agent.destroy();
  });
});

describe('behind a reverse proxy (--trust-proxy)', () => {
  it('believes X-Forwarded-For/-Proto only from the trusted address', async () => {
    const trusted = await startTestService({ publicUrl: 'https://team.test', trustProxy: ['127.0.0.1'], webConsole: true });
    const untrusted = await startTestService({ publicUrl: 'https://team.test', webConsole: true });
    try {
      const login = (ts: TestService, headers: Record<string, string>) =>
        http(ts.port, 'POST', '/console/sign-in', { Host: 'team.test', Origin: 'https://team.test', ...headers }, { email: ts.email, password: 'wrong password 123' });
      // The proxy says the client came over https, from 203.0.113.9: the failure is counted and audited for that address.
      const viaProxy = await login(trusted, { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '203.0.113.9' });
      expect(viaProxy.status).toBe(401);
      const lastIp = async (ts: TestService) =>
        (JSON.parse((await ts.service.deps.sql.get<{ detail: string }>("SELECT detail FROM audit_events WHERE action = 'auth.login_failed' ORDER BY seq DESC LIMIT 1"))!.detail) as { ip: string }).ip;
      expect(await lastIp(trusted)).toBe('203.0.113.9');
      // Plain HTTP reported by the proxy: pages are redirected to https, sign-in is refused.
      const page = await http(trusted.port, 'GET', '/console/', { Host: 'team.test', 'X-Forwarded-Proto': 'http' });
      expect(page.status).toBe(308);
      expect(page.headers.location).toBe('https://team.test/console/');
      expect((await login(trusted, { 'X-Forwarded-Proto': 'http' })).status).toBe(403);
      // Without --trust-proxy the same headers change nothing: the address is the socket's.
      expect((await login(untrusted, { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '203.0.113.9' })).status).toBe(401);
      expect(await lastIp(untrusted)).toBe('127.0.0.1');
    } finally {
      await trusted.stop();
      await untrusted.stop();
    }
  });
});
