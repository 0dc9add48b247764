// The `electron` project: the same scenarios as the Chromium project (scenarios.ts), run against the real app, plus
// the security checklist at runtime. Runs wherever an Electron binary and the Electron-ABI better-sqlite3 exist;
// skipped with the reason otherwise (this kind of machine cannot download Electron).
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { accessSync, constants, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname as dirOf, join, resolve } from 'node:path';
import { fileURLToPath as toPath } from 'node:url';
import { buildConsoleBridge } from '../src-main/electron/preload-api';
import { keysAndCheckScenario } from './scenarios';

const here = dirOf(toPath(import.meta.url));
const root = resolve(here, '..');
const require = createRequire(import.meta.url);

function electronBinary(): string | null {
  try {
    // The electron package's main export is the path of the binary; it throws when the download never happened.
    const p = require('electron') as unknown;
    if (typeof p !== 'string' || !existsSync(p)) return null;
    accessSync(p, constants.X_OK);
    return p;
  } catch {
    return null;
  }
}

function skipReason(): string | null {
  if (!electronBinary()) {
    return 'No Electron binary on this machine (node_modules/electron has no downloaded binary; it cannot be downloaded here). The chromium project runs the same scenarios against the headless console.';
  }
  if (!existsSync(join(root, 'out/main/index.js'))) return 'out/ is not built: run `npx electron-vite build` first.';
  if (!existsSync(join(root, 'build/native/electron/better_sqlite3.node'))) {
    return 'No Electron build of better-sqlite3: run `npm run rebuild:electron-sqlite` (needs internet), see docs/packaging.md.';
  }
  if (process.platform === 'linux' && !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY']) return 'No display: run under xvfb-run.';
  return null;
}

const reason = skipReason();
// The list reporter shows skips without their reason; say it once, plainly.
if (reason) console.log(`[electron] skipped: ${reason}`);

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

interface Launched {
  app: ElectronApplication;
  page: Page;
  apiUrl: string;
  close(): Promise<void>;
}

async function launch(port: number): Promise<Launched> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vc-electron-'));
  const app = await electron.launch({
    executablePath: electronBinary()!,
    // Chromium refuses to start as root without --no-sandbox (CI containers); it is never used otherwise.
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), root],
    env: { ...process.env, VCONSOLE_DATA_DIR: dataDir, VCONSOLE_PORT: String(port), LOG_LEVEL: 'warn' },
  });
  const page = await app.firstWindow();
  await page.locator('[data-app-state="loaded"]').waitFor({ timeout: 30_000 });
  return {
    app,
    page,
    apiUrl: `http://127.0.0.1:${port}/api/v1`,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

test.describe('Electron app', () => {
  test.skip(reason !== null, reason ?? '');

  test('set up, create a key, run an NG check, revoke the key (same steps as chromium)', async () => {
    const a = await launch(await freePort());
    try {
      await keysAndCheckScenario(a.page, a.apiUrl);
    } finally {
      await a.close();
    }
  });

  test('the security checklist holds at runtime', async () => {
    const a = await launch(await freePort());
    try {
      const prefs = await a.app.evaluate(({ BrowserWindow }) => {
        const w = BrowserWindow.getAllWindows()[0]!;
        // getLastWebPreferences() exists at runtime but is missing from electron.d.ts.
        const wc = w.webContents as unknown as { getLastWebPreferences?: () => Record<string, unknown> | null };
        const p = wc.getLastWebPreferences?.() ?? {};
        return { url: w.webContents.getURL(), contextIsolation: p.contextIsolation, sandbox: p.sandbox, nodeIntegration: p.nodeIntegration, webSecurity: p.webSecurity };
      });
      expect(prefs).toEqual({ url: expect.stringMatching(/^app:\/\/console\//), contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });

      // The e2e tsconfig has no DOM lib: the page's globals are reached through globalThis.
      const page = await a.page.evaluate(() => {
        const g = globalThis as any;
        return { require: typeof g.require, process: typeof g.process, vc: Object.keys(g.vc).sort(), opened: g.open('https://evil.example/') === null };
      });
      // The surface is the one preload-api.ts builds (invoke, pathForFile, subscribe), taken from it so the two
      // cannot drift: a key more or less in the page is a preload that exposes something else.
      const bridgeKeys = Object.keys(buildConsoleBridge({ invoke: async () => null, on: () => null, removeListener: () => null }, { getPathForFile: () => '' }, [])).sort();
      expect(bridgeKeys).toEqual(['invoke', 'pathForFile', 'subscribe']);
      expect(page).toEqual({ require: 'undefined', process: 'undefined', vc: bridgeKeys, opened: true });
      expect(await a.page.evaluate(() => (globalThis as any).vc.invoke('not-a-channel', {}))).toMatchObject({ ok: false });

      // A navigation attempt is refused: the page stays on the app scheme.
      await a.page.evaluate(() => {
        (globalThis as any).location.href = 'https://evil.example/';
      });
      await expect(a.page.locator('[data-app-state="loaded"]')).toBeVisible();
      expect(a.page.url()).toMatch(/^app:\/\/console\//);
      expect(a.app.windows()).toHaveLength(1);
    } finally {
      await a.close();
    }
  });

  test('a taken port: the window still opens and the menu says why the API is not listening', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const a = await launch(port);
      try {
        const label = await a.app.evaluate(({ Menu }) => {
          const service = Menu.getApplicationMenu()?.items.find((i) => i.label === 'Service');
          return service?.submenu?.items[0]?.label ?? null;
        });
        expect(label).toBe('API not listening: port in use');
        await expect(a.page.getByTestId('setup-email')).toBeVisible();
      } finally {
        await a.close();
      }
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});
