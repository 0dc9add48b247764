// Batch CSV from the browser: an analyst picks a routing file, sees the preview and the detected mapping, runs it
// with a progress bar, and downloads the invalid rows with their reasons.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, openConsole, setUpThroughBridge, test } from './fixtures';
import { screenshotsDir } from './screenshots';

const shots = screenshotsDir();

test('pick a CSV, preview it, run the batch and download the invalid rows', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  // Set up through the console's own channel (onboarding has its own spec), then reload into the app.
  await setUpThroughBridge(page);

  const rows = ['payee,swift_code'];
  for (let i = 0; i < 500; i++) rows.push(`payee ${i},${i % 5 === 0 ? 'DEUT12FF' : 'DEUTDEFF'}`);
  const file = join(served.dataDir, 'payees.csv');
  writeFileSync(file, rows.join('\n'));

  await page.getByTestId('nav-routing').click();
  await page.getByTestId('routing-tab-batch').click();
  await page.getByTestId('batch-drop-zone').locator('input[type=file]').setInputFiles(file);
  await expect(page.getByTestId('batch-preview-table')).toContainText('DEUTDEFF');
  await expect(page.getByTestId('batch-preview-mapped-bic')).toBeVisible();
  await page.getByTestId('batch-start').click();
  await expect(page.getByTestId('batch-files')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('batch-reasons')).toContainText('BIC');
  await page.screenshot({ path: resolve(shots, 'batch-results.png'), fullPage: true });

  const download = page.waitForEvent('download');
  await page.getByTestId('batch-download-invalid').click();
  const d = await download;
  expect(d.suggestedFilename()).toBe('payees-invalid-rows.csv');
  const text = readFileSync((await d.path())!, 'utf8');
  const lines = text.trim().split(/\r?\n/);
  expect(lines).toHaveLength(1 + 100);
  expect(lines[1]).toContain('DEUT12FF');
});
