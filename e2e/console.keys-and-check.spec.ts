// The walking skeleton through the web console: set up the organization, create a key (revealed once), run a
// sandbox NG account check and see its result, then revoke the key — and the revoked key is refused by the API.
// The steps live in scenarios.ts so the Electron project runs the very same ones against the real app.
import { expect, openConsole, test } from './fixtures';
import { keysAndCheckScenario } from './scenarios';
import { screenshotsDir } from './screenshots';

const shots = screenshotsDir();

test('set up, create a key, run an NG check, revoke the key', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await keysAndCheckScenario(page, served.apiUrl, { shots });
});

test('a used console link cannot be opened again', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  const second = await browser.newPage();
  await second.goto(served.consoleUrl);
  await expect(second.locator('[data-app-state="error"]')).toBeVisible();
  await expect(second.getByText(/already used/i)).toBeVisible();
  await page.close();
  await second.close();
});
