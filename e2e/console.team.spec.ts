// A team server in Chromium (issue 17 item 3, docs/team-server.md): `vconsole serve --public-url https://team.test:P`
// with TLS from a certificate made here by openssl, reached under its public name (the browser maps team.test to
// 127.0.0.1). A developer signs in, sees the restricted pages and actions left out, is refused by the service when
// calling one anyway, and signs out. A wrong password is refused on the page.
import { chromium, type Browser } from '@playwright/test';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, expect, serve, stop, test, type Served } from './fixtures';
import { screenshotsDir } from './screenshots';
import AxeBuilder from '@axe-core/playwright';

/** Serious or critical accessibility problems on the page as it is now (axe-core), as readable lines. */
async function axeProblems(page: import('@playwright/test').Page, where: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${where}: ${v.id} (${v.impact}) — ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const OWNER = { email: 'owner@team.test', password: 'correct horse battery' };
const DEV = { email: 'dev@team.test', password: 'developer pass 1234' };

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

function cli(dataDir: string, args: string[]): string {
  const r = spawnSync(process.execPath, ['bin/vconsole.mjs', ...args, '--data-dir', dataDir], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`vconsole ${args[0]} failed: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

let served: Served | null = null;
let teamBrowser: Browser | null = null;
let certDir: string | null = null;
test.afterEach(async () => {
  await teamBrowser?.close();
  if (served) await stop(served);
  if (certDir) rmSync(certDir, { recursive: true, force: true });
  served = null;
  teamBrowser = null;
  certDir = null;
});

test('team sign-in: a developer signs in over HTTPS, restricted actions are hidden and refused, then signs out', async () => {
  certDir = mkdtempSync(join(tmpdir(), 'vc-e2e-tls-'));
  const cert = join(certDir, 'cert.pem');
  const key = join(certDir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert,
    '-days', '2', '-subj', '/CN=team.test', '-addext', 'subjectAltName=DNS:team.test',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await freePort();
  const publicUrl = `https://team.test:${port}`;
  served = await serve(['--port', String(port), '--public-url', publicUrl, '--tls-cert', cert, '--tls-key', key]);
  expect(served.consoleUrl).toBe(`${publicUrl}/console/`);
  expect(served.apiUrl).toBe(`${publicUrl}/api/v1`);
  cli(served.dataDir, ['bootstrap', '--email', OWNER.email, '--password', OWNER.password]);
  cli(served.dataDir, ['users', 'create', '--email', DEV.email, '--password', DEV.password, '--role', 'DEVELOPER']);

  teamBrowser = await chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP team.test 127.0.0.1'],
  });
  const ctx = await teamBrowser.newContext({ ignoreHTTPSErrors: true });
  const page = await ctx.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(served.consoleUrl);

  // Nobody is signed in: the sign-in page, not the console.
  await page.locator('[data-app-state="sign-in"]').waitFor({ timeout: 30_000 });
  await expect(page.getByTestId('sign-in-page')).toBeVisible();
  await page.getByTestId('sign-in-email').fill(DEV.email);
  await page.getByTestId('sign-in-password').fill('not the password');
  await page.getByTestId('sign-in-submit').click();
  await expect(page.getByTestId('sign-in-error')).toContainText('The email or password is not correct.');
  await page.screenshot({ path: join(screenshotsDir(), 'team-sign-in.png') });
  expect(await axeProblems(page, 'sign-in page')).toEqual([]);

  await page.getByTestId('sign-in-password').fill(DEV.password);
  await page.getByTestId('sign-in-submit').click();
  await page.locator('[data-app-state="loaded"]').waitFor({ timeout: 30_000 });
  await expect(page.getByTestId('signed-in-user')).toHaveText(DEV.email);
  await expect(page.getByTestId('signed-in-role')).toHaveText('DEVELOPER');

  // The session cookie: HttpOnly, Secure, SameSite=Strict, host-only (__Host-).
  const cookies = await ctx.cookies(publicUrl);
  const session = cookies.find((c) => c.name === '__Host-vc_session');
  expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/', domain: 'team.test' });
  expect(await page.evaluate('document.cookie')).toBe('');

  // Pages a developer may not open are not offered; reached by address they say so.
  await expect(page.getByTestId('nav-dashboard')).toBeVisible();
  await expect(page.getByTestId('nav-verify')).toBeVisible();
  for (const section of ['keys', 'providers', 'audit']) await expect(page.getByTestId(`nav-${section}`)).toHaveCount(0);
  await page.goto(`${publicUrl}/console/#/keys`);
  await expect(page.getByTestId('not-allowed')).toBeVisible();
  await expect(page.getByTestId('sign-out')).toBeVisible();
  await page.screenshot({ path: join(screenshotsDir(), 'team-developer.png') });
  expect(await axeProblems(page, 'the console of a developer')).toEqual([]);

  // Settings: read-only service settings, no users, backups, demo data or configuration file.
  await page.getByTestId('nav-settings').click();
  await expect(page.getByTestId('settings-page')).toBeVisible();
  await expect(page.getByTestId('settings-rate-limit-save')).toBeDisabled();
  await expect(page.getByTestId('users-table')).toHaveCount(0);
  await expect(page.getByTestId('config-export')).toHaveCount(0);
  // Wallet: no top-up or suspend.
  await page.getByTestId('nav-wallet').click();
  await expect(page.getByTestId('wallet-topup')).toHaveCount(0);
  await expect(page.getByTestId('wallet-toggle-status')).toHaveCount(0);
  await expect(page.locator('input[data-testid^="service-switch-"]').first()).toBeDisabled();
  // The palette offers pages and actions the role may use only.
  await page.keyboard.press('Control+K');
  const search = page.getByTestId('palette-search');
  await expect(search).toBeFocused();
  await search.fill('Create API key');
  await expect(page.getByText('Open API keys and start a new key')).toHaveCount(0);
  await search.fill('Webhooks');
  await expect(page.getByText('Open Webhooks (sandbox)')).toBeVisible();
  await page.keyboard.press('Escape');

  // Called anyway from the page's own session, the service refuses.
  const refused = await page.evaluate(async () => {
    const r = await fetch('/console/bridge/keys:create', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'sneaky', environment: 'live' }) });
    return (await r.json()) as { ok: boolean; error?: { code: string; message: string } };
  });
  expect(refused).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
  expect(refused.error!.message).toContain('keys:create needs ADMIN');
  // What a developer may do works: a sandbox account check through the console.
  const check = await page.evaluate(async () => {
    const r = await fetch('/console/bridge/verify:account', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ environment: 'sandbox', request: { country: 'NG', accountNumber: '0123456789', bankCode: '058' } }),
    });
    return (await r.json()) as { ok: boolean };
  });
  expect(check.ok).toBe(true);

  // Sign out: back to the sign-in page, and the old session is gone on the server.
  await page.getByTestId('sign-out').click();
  await expect(page.getByTestId('sign-in-page')).toBeVisible();
  await expect(page.getByTestId('sign-in-notice')).toContainText('signed out');
  const after = await page.evaluate(async () => (await fetch('/console/bridge/app:info', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status);
  expect(after).toBe(401);
  expect((await ctx.cookies(publicUrl)).find((c) => c.name === '__Host-vc_session')).toBeUndefined();
  await ctx.close();
});
