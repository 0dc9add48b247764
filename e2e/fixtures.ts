// Test fixtures: each test gets its own data folder and its own `vconsole serve` process on a free port, started
// through the real CLI; the page waits for the console's readiness marker, never a fixed sleep.
import { test as base, chromium, type Browser, type Page } from '@playwright/test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath as toPath } from 'node:url';
import { dirname as dirOf } from 'node:path';

const here = dirOf(toPath(import.meta.url));

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface Served {
  dataDir: string;
  apiUrl: string;
  consoleUrl: string;
  proc: ChildProcess;
}

export async function serve(extraArgs: string[] = []): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vc-e2e-'));
  const root = resolve(here, '..');
  const proc = spawn(process.execPath, ['bin/vconsole.mjs', 'serve', '--port', '0', '--data-dir', dataDir, ...extraArgs], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = await new Promise<{ api: string; console: string }>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`serve did not start:\n${out}`)), 30_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      const api = /API:\s+(\S+)/.exec(out)?.[1];
      const con = /Console:\s+(\S+)/.exec(out)?.[1];
      if (api && con) {
        clearTimeout(timer);
        res({ api, console: con });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => rej(new Error(`serve exited with ${code}:\n${out}`)));
  });
  return { dataDir, apiUrl: ready.api, consoleUrl: ready.console, proc };
}

export async function stop(s: Served): Promise<void> {
  if (s.proc.exitCode === null) {
    const exited = new Promise((r) => s.proc.once('exit', r));
    s.proc.kill('SIGTERM');
    await exited;
  }
  rmSync(s.dataDir, { recursive: true, force: true });
}

export async function openConsole(browser: Browser, s: Served): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(s.consoleUrl);
  await page.locator('[data-app-state="loaded"]').waitFor({ timeout: 30_000 });
  return page;
}

/**
 * Creates the served data folder's organization with the CLI (owner@acme.test), before the console opens: a test of a
 * page other than set-up starts in the shell, not on the set-up screen.
 */
export function bootstrapOwner(s: Served): { sandboxKey: string } {
  const boot = spawnSync(process.execPath, ['bin/vconsole.mjs', 'bootstrap', '--data-dir', s.dataDir, '--email', 'owner@acme.test', '--password', 'correct horse battery', '--json'], {
    cwd: resolve(here, '..'),
    encoding: 'utf8',
  });
  if (boot.status !== 0) throw new Error(`bootstrap failed: ${boot.stderr}`);
  return { sandboxKey: (JSON.parse(boot.stdout) as { keys: { sandbox: string } }).keys.sandbox };
}

/** Sets the organization up through the console's bridge (not its set-up screen), then reloads into the shell. */
export async function setUpThroughBridge(page: Page): Promise<void> {
  const status = await page.evaluate(async () => {
    const r = await fetch('bridge/setup:bootstrap', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organizationName: 'Acme Ops', email: 'ops@acme.test', password: 'correct horse battery' }),
    });
    return r.status;
  });
  if (status !== 200) throw new Error(`setup:bootstrap answered ${status}`);
  await page.reload();
  await page.locator('[data-app-state="loaded"]').waitFor();
}

export const test = base.extend<{ served: Served }, { browser: Browser }>({
  browser: [
    async ({}, use) => {
      const b = await chromium.launch({ executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
      await use(b);
      await b.close();
    },
    { scope: 'worker' },
  ],
  served: async ({}, use) => {
    const s = await serve();
    await use(s);
    await stop(s);
  },
});

export { expect } from '@playwright/test';
