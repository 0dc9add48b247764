// The same scenario against the real Electron app, wherever an Electron binary exists.
import { _electron as electron, test, expect } from '@playwright/test';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath as toPath } from 'node:url';
import { dirname as dirOf } from 'node:path';

const here = dirOf(toPath(import.meta.url));

const require = createRequire(import.meta.url);
function electronPath(): string | null {
  try {
    const p = require('electron') as unknown;
    return typeof p === 'string' && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

test('the Electron app opens the console', async () => {
  const bin = electronPath();
  test.skip(!bin, 'No Electron binary on this machine (it cannot be downloaded here); the chromium project covers the console.');
  const app = await electron.launch({
    executablePath: bin!,
    args: [resolve(here, '..')],
    env: { ...process.env, VCONSOLE_DATA_DIR: mkdtempSync(join(tmpdir(), 'vc-electron-')), VCONSOLE_PORT: '0' },
  });
  const win = await app.firstWindow();
  await win.locator('[data-app-state="loaded"]').waitFor();
  await expect(win.getByTestId('setup-email')).toBeVisible();
  await app.close();
});
