// Batch CSV input rules in the console (issue 18 item 4): a semicolon-separated Latin-1 file is read as detected,
// with notes saying so, and runs; a file with no identifier column says so above the mapping, in the words
// `vconsole batch validate` uses (csv-input.ts), and runs once the column is chosen.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openConsole, setUpThroughBridge, test } from './fixtures';

test('the uploader says how it reads an unusual file, and what to do when no column holds identifiers', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpThroughBridge(page);
  await page.getByTestId('nav-routing').click();
  await page.getByTestId('routing-tab-batch').click();

  const latin = join(served.dataDir, 'lieferanten.csv');
  writeFileSync(latin, Buffer.from('Lieferant;swift_code\nMüller GmbH;DEUTDEFF\nBäckerei;BNPAFRPP\n', 'latin1'));
  await page.getByTestId('batch-drop-zone').locator('input[type=file]').setInputFiles(latin);
  const notes = page.getByTestId('batch-preview-notes');
  await expect(notes).toContainText('Latin-1 (Windows-1252)');
  await expect(notes).toContainText('Separator: semicolon (detected)');
  await expect(page.getByTestId('batch-preview-table')).toContainText('Müller GmbH');
  await expect(page.getByTestId('batch-preview-mapped-bic')).toBeVisible();
  await page.getByTestId('batch-start').click();
  await expect(page.getByTestId('batch-files')).toBeVisible({ timeout: 30_000 });

  await page.getByTestId('batch-new').click();
  const noId = join(served.dataDir, 'payees.csv');
  writeFileSync(noId, 'payee,amount\nAlice,10\nBob,20\n');
  await page.getByTestId('batch-drop-zone').locator('input[type=file]').setInputFiles(noId);
  await expect(page.getByTestId('batch-preview-problem')).toContainText(
    'No column holds BICs, routing numbers or routes (header: "payee", "amount"); choose the column that holds them in the mapping below.',
  );
});
