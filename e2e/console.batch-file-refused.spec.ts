// The batch uploader refuses a file that is clearly not text (3 MB of random bytes named .png was read as
// "Latin-1, separator: semicolon" and offered a mapping), and says an empty file is empty once, by the file's name.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';

test('a binary file and an empty file are refused at the drop zone, each in one message', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  await page.getByTestId('nav-routing').click();
  await page.getByTestId('routing-tab-batch').click();
  const input = page.getByTestId('batch-drop-zone').locator('input[type=file]');

  const photo = join(served.dataDir, 'photo.png');
  writeFileSync(photo, randomBytes(3 * 1024 * 1024));
  await input.setInputFiles(photo);
  const refused = page.getByTestId('batch-file-refused');
  await expect(refused).toContainText('photo.png holds binary data');
  await expect(refused).toContainText('not a CSV file');
  await expect(page.getByTestId('batch-preview')).toHaveCount(0);

  const empty = join(served.dataDir, 'empty.csv');
  writeFileSync(empty, '');
  await input.setInputFiles(empty);
  await expect(refused).toContainText('empty.csv is empty');
  await expect(page.getByText(/is empty/)).toHaveCount(1);
  await expect(page.getByText(/path: /)).toHaveCount(0);
  await expect(page.locator('.mantine-Notification-root')).toHaveCount(0);
});
