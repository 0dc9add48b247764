// History keeps its page in the address, as the Webhooks list does (page 3 → reload showed page 1), and its
// controls show the filters of a hand-typed address (`#/history?type=phone` was applied while Type said "Any").
import { expect, openConsole, setUpThroughBridge, test } from './fixtures';

test('History’s page and hand-typed filters live in the address and show in the controls', async ({ browser, served }) => {
  test.setTimeout(90_000);
  const page = await openConsole(browser, served);
  await setUpThroughBridge(page);
  const loaded = await page.evaluate(async () => {
    const r = await fetch('bridge/demo:load', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ days: 7 }) });
    return r.status;
  });
  expect(loaded).toBe(200);

  await page.getByTestId('nav-history').click();
  const table = page.getByTestId('history-table');
  await expect(table.locator('tbody tr[data-testid]').first()).toBeVisible();
  const firstOnPage1 = await table.locator('tbody tr[data-testid]').first().getAttribute('data-testid');
  await table.getByRole('button', { name: '3', exact: true }).click();
  await expect(page).toHaveURL(/#\/history\?page=3$/);
  // Page 3's rows, not page 1's still on screen while it loads.
  await expect(table.locator('tbody tr[data-testid]').first()).not.toHaveAttribute('data-testid', firstOnPage1!);
  const firstOnPage3 = await table.locator('tbody tr[data-testid]').first().getAttribute('data-testid');
  await page.reload();
  await expect(page).toHaveURL(/#\/history\?page=3$/);
  await expect(table.getByRole('button', { name: '3', exact: true })).toHaveAttribute('data-active', 'true');
  await expect(table.locator('tbody tr[data-testid]').first()).toHaveAttribute('data-testid', firstOnPage3!);

  // A filter typed into the address shows in its control.
  await page.goto(page.url().replace(/#.*$/, '#/history?type=phone&country=ng'));
  await expect(page.getByTestId('history-type')).toHaveValue('phone');
  await expect(page.getByTestId('history-country')).toHaveValue('NG');
  await expect(page.getByTestId('history-filters').getByRole('button', { name: /clear/i })).toBeVisible();
});
