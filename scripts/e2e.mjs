// Runs the Playwright e2e suite against Debian's Chromium. On a fresh Debian/Ubuntu machine run as root it
// installs the `chromium` package first; elsewhere it says what is missing and skips, rather than downloading
// a browser build of its own (never `npx playwright install`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (!existsSync(chromium)) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    console.log('Chromium is missing: installing Debian\'s chromium package (apt-get)…');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    spawnSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
    spawnSync('apt-get', ['install', '-y', '-q', 'chromium'], { stdio: 'inherit', env });
  }
}
if (!existsSync(chromium)) {
  console.log(`e2e: skipped — no Chromium at ${chromium}. Install it (Debian: apt-get install chromium) or set CHROMIUM_PATH.`);
  process.exit(0);
}
if (!existsSync('out/renderer/index.html')) {
  const b = spawnSync(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build'], { stdio: 'inherit' });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
// `--screenshots` (npm run screenshots) refreshes the documented screenshots in docs/screenshots/; an ordinary
// run writes them to the ignored test-results/screenshots/ so that tests never change tracked files.
const args = process.argv.slice(2);
const refresh = args.includes('--screenshots');
const passOn = refresh ? ['--project=chromium', ...args.filter((a) => a !== '--screenshots')] : args;
const r = spawnSync(process.execPath, ['node_modules/@playwright/test/cli.js', 'test', '-c', 'e2e/playwright.config.ts', ...passOn], {
  stdio: 'inherit',
  env: { ...process.env, CHROMIUM_PATH: chromium, ...(refresh ? { VC_SCREENSHOTS_DIR: 'docs/screenshots' } : {}) },
});
process.exit(r.status ?? 1);
