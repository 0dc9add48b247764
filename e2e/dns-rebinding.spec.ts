// DNS rebinding and cross-origin attacks in a real Chromium (issue 9 item 6): an attacker page on another local
// port, and one under a foreign host name mapped to 127.0.0.1 (--host-resolver-rules), try to drive the API and
// the console bridge with fetch, XHR and form posts, with and without credentials. None may succeed: the Host
// check answers 403, CORS gives the page nothing, the bridge refuses foreign origins. The store is checked
// afterwards: nothing was created. The console's one-time link works once.
import { chromium, type Browser, type BrowserContext } from '@playwright/test';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, expect, serve, stop, test as base, type Served } from './fixtures';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const EVIL = 'evil.test';

interface Attack {
  name: string;
  /** 'ok' when the page could read a successful answer; otherwise what stopped it. */
  outcome: string;
}

/** The attacker's page: every attempt reports whether the page got a readable, successful answer. */
function attackPage(api: string, apiKey: string, token: string): string {
  return `<!doctype html><meta charset="utf-8"><title>totally harmless</title>
<iframe name="sink"></iframe>
<script>
const API = ${JSON.stringify(api)}, KEY = ${JSON.stringify(apiKey)}, TOKEN = ${JSON.stringify(token)};
const body = JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058' });
async function attempt(name, fn) {
  try { const r = await fn(); return { name, outcome: r }; } catch (e) { return { name, outcome: 'blocked: ' + (e && e.name) }; }
}
async function read(res) { if (res.type === 'opaque') return 'opaque (unreadable)'; const t = await res.text(); return res.ok ? 'ok' : 'status ' + res.status + ' ' + t.slice(0, 60); }
function xhr(method, url, headers, data, withCredentials) {
  return new Promise((resolve) => {
    const x = new XMLHttpRequest();
    x.open(method, url); x.withCredentials = !!withCredentials;
    for (const [k, v] of Object.entries(headers || {})) x.setRequestHeader(k, v);
    x.onload = () => resolve(x.status >= 200 && x.status < 300 ? 'ok' : 'status ' + x.status);
    x.onerror = () => resolve('blocked: network error');
    x.send(data);
  });
}
window.runAttacks = async () => {
  const out = [];
  out.push(await attempt('fetch verify with the key (preflighted)', async () => read(await fetch(API + '/api/v1/verify/account', { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'idempotency-key': 'evil-1' }, body }))));
  out.push(await attempt('fetch no-cors text/plain verify', async () => read(await fetch(API + '/api/v1/verify/account', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body }))));
  out.push(await attempt('fetch read openapi.json', async () => read(await fetch(API + '/api/v1/openapi.json'))));
  out.push(await attempt('fetch read health with credentials', async () => read(await fetch(API + '/api/v1/health', { credentials: 'include' }))));
  out.push(await attempt('fetch login (preflighted)', async () => read(await fetch(API + '/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@b.co', password: 'x' }) }))));
  out.push(await attempt('fetch bridge keys:create with credentials (preflighted)', async () => read(await fetch(API + '/console/bridge/keys:create', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'evil-fetch', environment: 'live' }) }))));
  out.push(await attempt('fetch no-cors bridge keys:create with credentials', async () => read(await fetch(API + '/console/bridge/keys:create', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ name: 'evil-nocors', environment: 'live' }) }))));
  out.push(await attempt('fetch no-cors console session with a stolen token', async () => read(await fetch(API + '/console/session', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ token: TOKEN }) }))));
  out.push(await attempt('XHR bridge keys:list with credentials', () => xhr('POST', API + '/console/bridge/keys:list', { 'content-type': 'application/json' }, '{}', true)));
  out.push(await attempt('XHR GET verifications with the key', () => xhr('GET', API + '/api/v1/verify', { 'x-api-key': KEY }, null, false)));
  // A form post needs no CORS at all: it reaches the server; the server must refuse it.
  for (const [name, action] of [['form post to bridge keys:create', '/console/bridge/keys:create'], ['form post to verify', '/api/v1/verify/account'], ['form post to console session', '/console/session']]) {
    const f = document.createElement('form'); f.method = 'POST'; f.action = API + action; f.target = 'sink'; f.enctype = 'text/plain';
    const i = document.createElement('input'); i.name = '{"name":"evil-form","environment":"live","token":"' + TOKEN + '","x":"'; i.value = '"}'; f.appendChild(i);
    document.body.appendChild(f); f.submit();
    await new Promise((r) => setTimeout(r, 300));
    out.push({ name, outcome: 'sent (response not readable by the page)' });
  }
  return out;
};
</script>`;
}

interface World {
  served: Served;
  apiPort: number;
  apiKey: string;
  attacker: Server;
  attackerPort: number;
  browser: Browser;
  page: { html: string };
}

const test = base.extend<{ world: World }>({
  world: async ({}, use) => {
    const served = await serve();
    const apiPort = Number(new URL(served.apiUrl).port);
    const boot = spawnSync(process.execPath, ['bin/vconsole.mjs', 'bootstrap', '--data-dir', served.dataDir, '--email', 'owner@example.com', '--password', 'correct horse battery staple', '--json'], { cwd: root, encoding: 'utf8' });
    if (boot.status !== 0) throw new Error(`bootstrap failed: ${boot.stdout}${boot.stderr}`);
    const apiKey = (JSON.parse(boot.stdout) as { keys: { live: { key: string } } }).keys.live.key;
    const page = { html: '' };
    const attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page.html);
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    const attackerPort = (attacker.address() as AddressInfo).port;
    const browser = await chromium.launch({
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${EVIL} 127.0.0.1`],
    });
    await use({ served, apiPort, apiKey, attacker, attackerPort, browser, page });
    await browser.close();
    await new Promise((r) => attacker.close(r));
    await stop(served);
  },
});

function counts(dataDir: string) {
  const db = new Database(join(dataDir, 'verification-console.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      keys: n('SELECT count(*) AS n FROM api_keys'),
      verifications: n('SELECT count(*) AS n FROM verifications'),
      sessions: n('SELECT count(*) AS n FROM sessions'),
    };
  } finally {
    db.close();
  }
}

/** Opens the real console once in `ctx`, so that the browser holds a valid console session cookie. */
async function signInToConsole(ctx: BrowserContext, url: string) {
  const p = await ctx.newPage();
  await p.goto(url);
  await p.locator('[data-app-state="loaded"]').waitFor({ timeout: 30_000 });
  return p;
}

test('attacker pages on other origins and a rebound host name cannot drive the API or the console bridge', async ({ world }) => {
  const { served, apiPort, attackerPort } = world;
  const ctx = await world.browser.newContext();
  // The victim has the console open: the browser holds its session cookie (SameSite=Strict, but 127.0.0.1 on
  // another port is the same site, so the cookie IS sent; the Origin check must stop it).
  await signInToConsole(ctx, served.consoleUrl);
  const before = counts(served.dataDir);

  const targets: { page: string; api: string }[] = [
    // Another local origin, the real API host: CORS and the bridge's Origin check stand in the way.
    { page: `http://127.0.0.1:${attackerPort}/`, api: `http://127.0.0.1:${apiPort}` },
    { page: `http://localhost:${attackerPort}/`, api: `http://localhost:${apiPort}` },
    // The rebinding shape: a foreign name that resolves to 127.0.0.1, so the Host header is foreign.
    { page: `http://${EVIL}:${attackerPort}/`, api: `http://${EVIL}:${apiPort}` },
  ];
  for (const t of targets) {
    world.page.html = attackPage(t.api, world.apiKey, 'no-token-known');
    const p = await ctx.newPage();
    await p.goto(t.page);
    const results = (await p.evaluate('window.runAttacks()')) as Attack[];
    expect(results.length, 'every attempt ran').toBe(13);
    for (const r of results) expect(r.outcome, `${t.page} → ${r.name}`).not.toBe('ok');
    await p.close();
  }

  // Same origin after rebinding: a page served under the foreign name on the API's own port gets 403.
  const direct = await ctx.newPage();
  for (const path of ['/api/v1/health', '/console/', '/api/v1/openapi.json']) {
    const res = await direct.goto(`http://${EVIL}:${apiPort}${path}`);
    expect(res?.status(), path).toBe(403);
  }
  await direct.close();

  const after = counts(served.dataDir);
  expect(after.keys).toBe(before.keys);
  expect(after.verifications).toBe(before.verifications);
  expect(after.sessions).toBe(before.sessions);
  await ctx.close();
});

test('the console link is single-use, and a rebound page cannot spend or use it', async ({ world }) => {
  const { served, apiPort } = world;
  const token = new URL(served.consoleUrl).hash.replace('#token=', '');
  // Opening the link under the rebound host name is refused outright (403), and does not spend the token.
  const evilCtx = await world.browser.newContext();
  const evil = await evilCtx.newPage();
  const refused = await evil.goto(`http://${EVIL}:${apiPort}/console/#token=${token}`);
  expect(refused?.status()).toBe(403);
  await evilCtx.close();

  // First use: the console loads.
  const ctx1 = await world.browser.newContext();
  const page1 = await signInToConsole(ctx1, served.consoleUrl);
  const ok = await page1.evaluate(async () => (await fetch('/console/bridge/keys:list', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status);
  expect(ok).toBe(200);

  // Second use of the same link, in a fresh browser profile: no session.
  const ctx2 = await world.browser.newContext();
  const page2 = await ctx2.newPage();
  await page2.goto(served.consoleUrl);
  const status = await page2.evaluate(async () => {
    const r = await fetch('/console/bridge/keys:list', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    return r.status;
  });
  expect(status).toBe(401);
  await ctx1.close();
  await ctx2.close();
});
