// Routing › Directory: a failed import says why in the form, whole and next to the Import button, not in a sticky
// toast that covered the button and cut the message off.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';

test('a refused directory import shows its whole message in the form, and Import stays clickable', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await page.setViewportSize({ width: 1400, height: 900 });
  await setUpOrganization(page);
  // No BIC column (a semicolon file is read since 634f53c, so it no longer makes the refusal).
  const file = join(served.dataDir, 'bic-no-column.csv');
  writeFileSync(file, ['code,bank_name,city,country', 'DEUTDEFFXXX,Deutsche Bank,Frankfurt,DE'].join('\n'));
  await page.getByTestId('nav-routing').click();
  await page.getByTestId('routing-tab-directory').click();
  await page.getByTestId('directory-path-input').fill(file);
  await page.getByTestId('directory-kind-select').click();
  await page.getByRole('option', { name: /BIC/ }).first().click();
  await page.getByTestId('directory-import-submit').click();
  const error = page.getByTestId('directory-import-error');
  await expect(error).toContainText('Missing column(s): bic');
  // The whole message is on screen: the alert is not cut off (its text fits its box).
  expect(await error.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  await expect(page.locator('.mantine-Notification-root')).toHaveCount(0);
  // A second try goes through at once (a toast over the button made this click fail as not visible/stable).
  await page.getByTestId('directory-import-submit').click({ timeout: 3000 });
  await expect(error).toContainText('Missing column(s): bic');
});
