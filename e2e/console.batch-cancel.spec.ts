// A cancelled batch says what it knows: how many rows it read before it stopped, not "Valid 0 · Invalid 0" under
// "the counts cover the rows checked before that" (the service keeps no valid/invalid counts of a stopped batch).
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';

test('a cancelled batch shows the rows it read, and no valid/invalid verdict', async ({ browser, served }) => {
  test.setTimeout(120_000);
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  // Large enough to be still running when Cancel is clicked.
  const file = join(served.dataDir, 'many.csv');
  const out = createWriteStream(file);
  out.write('payee,swift_code\n');
  for (let i = 0; i < 40; i++) out.write(Array.from({ length: 50_000 }, (_, j) => `payee ${i * 50_000 + j},DEUTDEFF\n`).join(''));
  out.end();
  await once(out, 'finish');

  await page.getByTestId('nav-routing').click();
  await page.getByTestId('routing-tab-batch').click();
  await page.getByTestId('batch-path-input').fill(file);
  await page.getByTestId('batch-preview-button').click();
  await page.getByTestId('batch-start').click();
  await page.getByTestId('batch-cancel').click();
  const view = page.getByTestId('batch-job-view');
  await expect(view).toHaveAttribute('data-status', 'cancelled', { timeout: 30_000 });
  await expect(page.getByTestId('batch-count-valid')).toHaveCount(0);
  await expect(page.getByTestId('batch-count-invalid')).toHaveCount(0);
  await expect(page.getByTestId('batch-count-rows-read')).toBeVisible();
  await expect(page.getByTestId('batch-cancelled-note')).toContainText('Its partial results were discarded');
  await expect(view).not.toContainText('the counts cover the rows checked');
});
