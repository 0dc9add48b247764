// History at 1400 px: one very long identifier (an address of hundreds of characters) is cut with an ellipsis and
// its whole value is in the cell's title, so the Name and Error columns stay on screen for every row.
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';

test('a long identifier is cut, and Name and Error stay on screen', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await page.setViewportSize({ width: 1400, height: 900 });
  await setUpOrganization(page);
  await page.getByTestId('nav-verify').click();
  await page.getByTestId('verify-tab-address').click();
  await page.getByTestId('address-line1').fill('A'.repeat(200));
  await page.getByTestId('address-line2').fill('B'.repeat(200));
  await page.getByTestId('address-city').fill('Lagos');
  await page.getByTestId('address-submit').click();
  await expect(page.getByTestId('verification-result')).toBeVisible();

  await page.getByTestId('nav-history').click();
  await expect(page.locator('tr[data-testid^="history-row-"]')).toHaveCount(1);
  const error = await page.getByRole('columnheader', { name: 'Error' }).boundingBox();
  expect(error).toBeTruthy();
  expect(error!.x + error!.width).toBeLessThanOrEqual(1400);
  await expect(page.getByTestId('history-identifier').first()).toHaveAttribute('title', /A{200}/);
});
