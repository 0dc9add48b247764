// Routing answers that must not mislead: a batch runs the file that was previewed (editing the path takes the
// preview away), an empty file says so, a check that is refused or fails takes the previous answer off the screen,
// past batches open from the keyboard, and a download keeps its file's letters (ü).
import AxeBuilder from '@axe-core/playwright';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, openConsole, setUpThroughBridge, test } from './fixtures';

async function signedIn(page: Page): Promise<void> {
  await setUpThroughBridge(page);
  await page.getByTestId('nav-routing').click();
}

test('Start runs the previewed file; editing the path clears the preview; an empty file says so; the download keeps its ü', async ({ browser, served }) => {
  // In a context of its own: axe (below) cannot run in the browser's default one.
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(served.consoleUrl);
  await page.locator('[data-app-state="loaded"]').waitFor({ timeout: 30_000 });
  await signedIn(page);
  await page.getByTestId('routing-tab-batch').click();

  const routes = join(served.dataDir, 'name with spaces & ümlaut.csv');
  writeFileSync(routes, 'payee,swift_code\nA,DEUTDEFF\nB,DEUT12FF\n');
  const other = join(served.dataDir, 'other.csv');
  writeFileSync(other, 'from_bic,to_bic,currency\nDEUTDEFF,CHASUS33,USD\n');

  const input = page.getByTestId('batch-path-input');
  await input.fill(routes);
  await page.getByTestId('batch-preview-button').click();
  await expect(page.getByTestId('batch-preview-mapped-bic')).toBeVisible();
  // Another path typed in: the preview (rows and mapping of the first file) goes, and with it the Start button.
  await input.fill(other);
  await expect(page.getByTestId('batch-preview')).toHaveCount(0);
  await expect(page.getByTestId('batch-start')).toHaveCount(0);
  // A path edited while its preview is still on the way: the answer that comes after is of a file the user left, and
  // is not shown (the service's answer is held back here until the path has changed).
  let release: () => void = () => {};
  const released = new Promise<void>((r) => (release = r));
  await page.route(/bridge\/batch(%3A|:)preview/, async (route) => {
    await released;
    await route.continue();
  });
  await input.fill(routes);
  await page.getByTestId('batch-preview-button').click();
  await input.fill(other);
  const answered = page.waitForResponse(/bridge\/batch(%3A|:)preview/);
  release();
  await answered;
  await page.unroute(/bridge\/batch(%3A|:)preview/);
  await expect(page.getByTestId('batch-preview-button')).not.toHaveAttribute('data-loading', 'true');
  await expect(page.getByTestId('batch-preview')).toHaveCount(0);
  await expect(page.getByTestId('batch-start')).toHaveCount(0);
  // Back to the previewed file, previewed again: Start runs exactly that file.
  await input.fill(routes);
  await page.getByTestId('batch-preview-button').click();
  await expect(page.getByTestId('batch-preview-mapped-bic')).toBeVisible();
  await page.getByTestId('batch-start').click();
  const view = page.getByTestId('batch-job-view');
  await expect(view).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(view.getByRole('heading', { level: 4 })).toHaveText('name with spaces & ümlaut.csv');
  await expect(page.getByTestId('batch-count-valid')).toHaveText('1');
  await expect(page.getByTestId('batch-count-invalid')).toHaveText('1');

  const download = page.waitForEvent('download');
  await page.getByTestId('batch-download-all').click();
  expect((await download).suggestedFilename()).toBe('name with spaces & ümlaut-results.csv');

  // An empty file (here only a byte-order mark) is refused with a sentence, not previewed as "first 0 rows".
  await page.getByTestId('batch-new').click();
  const empty = join(served.dataDir, 'empty.csv');
  writeFileSync(empty, '\uFEFF');
  await input.fill(empty);
  await page.getByTestId('batch-preview-button').click();
  await expect(page.getByTestId('batch-path-form')).toContainText('The file is empty: it holds no rows to check.');
  await expect(page.getByTestId('batch-preview')).toHaveCount(0);
  // Dropped (0 bytes): the same sentence, by the file's name at the drop zone, before anything is uploaded.
  const zero = join(served.dataDir, 'zero.csv');
  writeFileSync(zero, '');
  await page.getByTestId('batch-drop-zone').locator('input[type=file]').setInputFiles(zero);
  await expect(page.getByTestId('batch-file-refused')).toHaveText('zero.csv is empty: it holds no rows to check.');
  await expect(page.getByTestId('batch-preview')).toHaveCount(0);

  // The past batches: the row opens from the keyboard (Tab to its button, Enter), and axe finds nothing nested.
  await page.getByTestId('routing-tab-history').click();
  const row = page.locator('[data-testid^="batch-row-"]');
  await expect(row).toHaveCount(1);
  const open = row.getByRole('button', { name: /^Open batch name with spaces & ümlaut\.csv/ });
  await expect(open).toBeVisible();
  const axe = await new AxeBuilder({ page }).include('[data-testid="batch-history-table"]').analyze();
  expect(axe.violations.map((v) => v.id)).toEqual([]);
  await page.getByTestId('batch-history-status').focus();
  for (let i = 0; i < 10 && !(await open.evaluate((el) => el === el.ownerDocument.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(open).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('batch-job-view').getByRole('heading', { level: 4 })).toHaveText('name with spaces & ümlaut.csv');
  await context.close();
});

test('a check that is refused or fails takes the previous answer off the screen, in plain words', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await signedIn(page);
  const bic = page.getByTestId('bic-input');
  const check = page.getByTestId('routing-check-submit');
  const form = page.getByTestId('routing-check-form');

  await bic.fill('DEUT12FF');
  await check.click();
  await expect(page.getByTestId('routing-result-valid')).toHaveText('Not valid');
  // Too long for the service to check: a sentence on the field, not zod's words in a toast, and no old answer.
  await bic.fill('A'.repeat(200));
  await check.click();
  await expect(form).toContainText('A BIC has 8 or 11 characters; this has 200.');
  await expect(page.getByTestId('routing-result')).toHaveCount(0);
  await expect(page.getByTestId('routing-result-empty')).toBeVisible();
  await expect(page.getByText(/Too big/)).toHaveCount(0);

  await bic.fill('DEUTDEFF');
  await check.click();
  await expect(page.getByTestId('routing-result-valid')).toHaveText('Valid');
  // The field emptied: asked to enter a BIC, and the answer for DEUTDEFF is gone.
  await bic.fill('');
  await check.click();
  await expect(form).toContainText('Enter a BIC (8 or 11 characters).');
  await expect(page.getByTestId('routing-result')).toHaveCount(0);

  // A check the service could not run (the network gone): the toast, and no answer left from before.
  await bic.fill('DEUTDEFF');
  await check.click();
  await expect(page.getByTestId('routing-result-valid')).toHaveText('Valid');
  await page.route(/\/bridge\/routing(:|%3A)bic$/, (r) => r.abort('connectionfailed'));
  await bic.fill('CHASUS33');
  await check.click();
  await expect(page.getByText('The check could not run')).toBeVisible();
  await expect(page.getByTestId('routing-result')).toHaveCount(0);

  // A routing number past the bound gets its own sentence.
  await page.getByTestId('routing-check-kind').getByText('ABA routing number').click();
  await page.getByTestId('routing-number-input').fill('0'.repeat(65));
  await check.click();
  await expect(form).toContainText('A routing number has 9 digits; this has 65 characters.');
});
