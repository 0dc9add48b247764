// Routing answers that must not mislead: a check that is refused or fails takes the previous answer off the screen.
import type { Page } from '@playwright/test';
import { expect, openConsole, test } from './fixtures';

async function signedIn(page: Page): Promise<void> {
  const setup = await page.evaluate(async () => {
    const r = await fetch('bridge/setup:bootstrap', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organizationName: 'Acme Ops', email: 'ops@acme.test', password: 'correct horse battery' }),
    });
    return r.status;
  });
  expect(setup).toBe(200);
  await page.reload();
  await page.locator('[data-app-state="loaded"]').waitFor();
  await page.getByTestId('nav-routing').click();
}

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
