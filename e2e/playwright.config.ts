// Two projects: `chromium` drives the headless web console in Debian's Chromium; `electron` drives the real app
// and runs only where an Electron binary exists (skipped with a message otherwise).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  // One retry on CI, reported as flaky by the list reporter: a loaded 2-core runner should not sink a submission on a
  // single timing hiccup, and a test that fails twice still fails.
  retries: process.env['CI'] ? 1 : 0,
  reporter: [['list']],
  outputDir: '../test-results',
  projects: [
    { name: 'chromium', testMatch: /(console\..*|dns-rebinding)\.spec\.ts/ },
    // Playwright's `_electron` driver against the real app (e2e/electron.spec.ts); shares scenarios.ts with chromium.
    { name: 'electron', testMatch: /electron\.spec\.ts/, timeout: 120_000 },
  ],
});
