// Two projects: `chromium` drives the headless web console in Debian's Chromium; `electron` drives the real app
// and runs only where an Electron binary exists (skipped with a message otherwise).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  outputDir: '../test-results',
  projects: [
    { name: 'chromium', testMatch: /(console\..*|dns-rebinding)\.spec\.ts/ },
    // Playwright's `_electron` driver against the real app (e2e/electron.spec.ts); shares scenarios.ts with chromium.
    { name: 'electron', testMatch: /electron\.spec\.ts/, timeout: 120_000 },
  ],
});
