// The Audit page (issue 15): changes made in the console appear with their actor and door, the chain verifies, a
// filter narrows the list, and the JSON export verifies offline with `vconsole audit verify --file`.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname as dirOf, join, resolve } from 'node:path';
import { fileURLToPath as toPath } from 'node:url';
import { expect, openConsole, test } from './fixtures';
import { createKey, setUpOrganization } from './scenarios';
import { screenshotsDir } from './screenshots';

const root = resolve(dirOf(toPath(import.meta.url)), '..');
const shots = screenshotsDir();

test('audit: console changes are recorded, filtered, verified and exported', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  // A change through the console: a new API key.
  await createKey(page, 'audited key');

  await page.getByTestId('nav-audit').click();
  await expect(page.getByTestId('audit-verify')).toContainText('The audit trail verifies');
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
  await page.screenshot({ path: resolve(shots, 'audit.png'), fullPage: true });

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export JSON' }).click();
  const file = join(tmpdir(), `audit-${Date.now()}.json`);
  await (await download).saveAs(file);
  const verified = spawnSync(process.execPath, ['bin/vconsole.mjs', 'audit', 'verify', '--file', file], { cwd: root, encoding: 'utf8' });
  expect(verified.status, verified.stdout + verified.stderr).toBe(0);
  expect(verified.stdout).toMatch(/entries verified/);
  writeFileSync(file, '{}');
});
