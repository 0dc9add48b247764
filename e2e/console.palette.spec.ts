// Keyboard: Ctrl+K opens the palette (environment shown), a page name + Enter opens that page, a sandbox fixture
// runs from it and shows its answer, Alt+digit jumps to a page, `?` lists the shortcuts, "Create API key" opens the
// keys page's dialog, and the palette's environment switch asks before entering live.
import { resolve } from 'node:path';
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';
import { screenshotsDir } from './screenshots';

const shots = screenshotsDir();

test('palette: jump to a page, run a fixture, shortcuts, environment', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);

  // Ctrl+K → "Webhooks" → Enter → the Webhooks page.
  await page.keyboard.press('Control+K');
  const search = page.getByTestId('palette-search');
  await expect(search).toBeFocused();
  await expect(page.getByTestId('palette-env')).toHaveText('SANDBOX');
  await search.fill('Webhooks');
  await page.screenshot({ path: resolve(shots, 'palette.png') });
  await page.keyboard.press('Enter');
  await expect(search).toBeHidden();
  await expect(page.getByRole('heading', { level: 2, name: 'Webhooks' })).toBeVisible();
  await expect(page.getByTestId('nav-webhooks')).toHaveAttribute('data-active', 'true');
  await expect(page).toHaveURL(/#\/webhooks$/);

  // A sandbox fixture from the palette runs in place and shows its known answer.
  await page.keyboard.press('Control+K');
  await search.fill('fixture NG Account not found');
  await page.getByRole('button', { name: /Verify account NG: Account not found/ }).click();
  const modal = page.getByTestId('palette-fixture-modal');
  await expect(modal.getByTestId('verification-result')).toHaveAttribute('data-status', 'failed');
  await expect(modal).toContainText('ACCOUNT_NOT_FOUND');
  await page.keyboard.press('Escape');
  await expect(modal).toBeHidden();

  // Alt+3 is the third page of the navigation (History), which lists the check just run.
  await page.keyboard.press('Alt+Digit3');
  await expect(page.getByTestId('nav-history')).toHaveAttribute('data-active', 'true');
  await expect(page.getByTestId('history-table').locator('tr[data-status="failed"]')).toHaveCount(1);

  // `?` lists the shortcuts, the palette's included. (Shortcuts are ignored while typing in a field, so the focus
  // is put on the page first: a filter field of the page may hold it.)
  await page.getByRole('heading', { level: 2, name: 'History' }).click();
  await page.keyboard.press('Shift+Slash');
  const help = page.getByTestId('shortcuts-modal');
  await expect(help).toContainText('Open the command palette');
  await expect(help).toContainText('Go to History');
  await page.keyboard.press('Escape');

  // "Create API key" opens API keys with the page's own create dialog.
  await page.keyboard.press('Control+K');
  await search.fill('create api key');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('key-name-input')).toBeVisible();
  await expect(page.getByTestId('nav-keys')).toHaveAttribute('data-active', 'true');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('key-name-input')).toBeHidden();

  // Switching to live from the palette asks first.
  await page.keyboard.press('Control+K');
  await search.fill('switch to live');
  await page.keyboard.press('Enter');
  await page.getByTestId('live-confirm-button').click();
  await expect(page.getByTestId('env-badge')).toContainText('LIVE');
  await page.keyboard.press('Control+K');
  await expect(page.getByTestId('palette-env')).toHaveText('LIVE');
});
