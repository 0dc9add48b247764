// The Audit page (issue 15): changes made in the console appear with their actor and door, the chain verifies, a
// filter narrows the list, and the JSON export verifies offline with `vconsole audit verify --file`.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname as dirOf, join, resolve } from 'node:path';
import { fileURLToPath as toPath } from 'node:url';
import { expect, openConsole, test } from './fixtures';
import { createKey, setUpOrganization } from './scenarios';
import { lookScreenshotsDir } from './screenshots';

const root = resolve(dirOf(toPath(import.meta.url)), '..');
// audit.png is not in the docs: the page's shots are to look at (lookScreenshotsDir), never refreshed into docs/.
const shots = lookScreenshotsDir();

test('audit: console changes are recorded, filtered, verified and exported', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  // A change through the console: a new API key.
  await createKey(page, 'audited key');

  await page.getByTestId('nav-audit').click();
  await expect(page.getByTestId('audit-verify')).toContainText('The audit trail verifies');
  // The chain is checked once per visit; Verify again checks it anew: a change made meanwhile in a second tab counts.
  const verified = Number(/(\d+) entries/.exec((await page.getByTestId('audit-verify').textContent()) ?? '')?.[1]);
  // (A change the page did not make: the console's own bridge, called as the page calls it.)
  const made = await page.evaluate(
    `fetch('bridge/keys%3Acreate', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'second key', environment: 'sandbox' }) }).then((r) => r.status)`,
  );
  expect(made).toBe(200);
  await expect(page.getByTestId('audit-verify')).toContainText(`${verified} entries, unbroken`);
  await page.getByTestId('audit-verify-again').click();
  await expect(page.getByTestId('audit-verify')).toContainText(`${verified + 1} entries, unbroken`);
  const table = page.getByTestId('audit-table');
  await expect(table).toContainText('key.created');
  await expect(table).toContainText('audited key');
  await expect(table).toContainText('console');
  // Each entry links to what it changed: the key's entry opens the API keys page.
  await table.getByRole('row', { name: /audited key/ }).getByRole('link').click();
  await expect(page.getByTestId('keys-table')).toContainText('audited key');
  await page.goBack();
  await expect(page.getByTestId('audit-table')).toBeVisible();
  await page.getByLabel('Action').fill('organization.');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table).toContainText('organization.created');
  // A reversed range is named under To and not applied (it could only list nothing).
  await page.getByTestId('audit-from').fill('2026-11-24');
  await page.getByTestId('audit-to').fill('2026-11-23');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByText('Before From: no day is in this range')).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(2);
  await page.getByTestId('audit-from').fill('');
  await page.getByTestId('audit-to').fill('');
  await page.screenshot({ path: resolve(shots, 'audit.png'), fullPage: true });
  // The page as a person sees it: three widths, light and dark (into the screenshots folder, not compared).
  for (const scheme of ['light', 'dark'] as const) {
    await page.evaluate(`localStorage.setItem('mantine-color-scheme-value', '${scheme}')`);
    for (const width of [800, 1024, 1400]) {
      await page.setViewportSize({ width, height: 900 });
      await page.reload();
      await expect(page.getByTestId('audit-verify')).toContainText('The audit trail verifies');
      await page.screenshot({ path: resolve(shots, `audit-${scheme}-${width}.png`), fullPage: true });
    }
  }
  await page.evaluate(`localStorage.setItem('mantine-color-scheme-value', 'light')`);

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export JSON' }).click();
  const file = join(tmpdir(), `audit-${Date.now()}.json`);
  await (await download).saveAs(file);
  const offline = spawnSync(process.execPath, ['bin/vconsole.mjs', 'audit', 'verify', '--file', file], { cwd: root, encoding: 'utf8' });
  rmSync(file, { force: true });
  expect(offline.status, offline.stdout + offline.stderr).toBe(0);
  expect(offline.stdout).toMatch(/entries verified/);
  // The CSV, streamed by the web door like the JSON: a spreadsheet's byte order mark, then the header and the entries.
  // While the file is on its way the button shows it is busy and the other waits (held here until looked at).
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/console/audit/export?*', async (route) => {
    await held;
    await route.continue();
  });
  const csvDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  await expect(page.getByTestId('audit-export-csv')).toHaveAttribute('data-loading', 'true');
  await expect(page.getByTestId('audit-export-json')).toBeDisabled();
  release();
  const csv = await csvDownload;
  await expect(page.getByTestId('audit-export-csv')).not.toHaveAttribute('data-loading', 'true');
  await expect(page.getByTestId('audit-export-json')).toBeEnabled();
  await page.unroute('**/console/audit/export?*');
  expect(csv.suggestedFilename()).toMatch(/^audit-.*\.csv$/);
  const csvFile = join(tmpdir(), `audit-${Date.now()}.csv`);
  await csv.saveAs(csvFile);
  const text = readFileSync(csvFile, 'utf8');
  rmSync(csvFile, { force: true });
  expect(text.startsWith('\uFEFFseq,id,at,actor_type')).toBe(true);
  expect(text).toContain('key.created');
});

test('audit retention: the Audit page sets it (owners), refusing what the service would', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  await page.getByTestId('nav-audit').click();
  await expect(page.getByTestId('audit-verify')).toContainText('older than 400 days');
  const days = page.getByTestId('audit-retention-days');
  await days.fill('20');
  await page.getByTestId('audit-retention-save').click();
  await expect(page.getByTestId('audit-retention')).toContainText('A whole number of days from 30 to 3650.');
  await days.fill('90');
  await page.getByTestId('audit-retention-save').click();
  await expect(page.getByText('Audit entries are now kept 90 days.')).toBeVisible();
  await expect(page.getByTestId('audit-verify')).toContainText('older than 90 days');
});
