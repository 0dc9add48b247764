// Where the e2e suite writes its screenshots. A test run never touches tracked files: by default they go to the
// ignored test-results/screenshots/; `npm run screenshots` runs the suite with VC_SCREENSHOTS_DIR=docs/screenshots
// to refresh the ones the README and docs show.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The screenshot folder, created on first use. */
export function screenshotsDir(): string {
  const dir = resolve(root, process.env['VC_SCREENSHOTS_DIR'] ?? 'test-results/screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Screenshots taken to be looked at, not documented (a page at several widths and in both schemes): always the
 * ignored folder, so `npm run screenshots` does not add them to docs/screenshots.
 */
export function lookScreenshotsDir(): string {
  const dir = resolve(root, 'test-results/screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}
