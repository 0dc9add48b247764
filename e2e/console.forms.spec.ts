// Forms that catch typos and words that are true (issue 13 §5): required fields and format problems in the form's
// own words before anything is sent, a non-image selfie refused by its content, sizes below 1 KB in bytes, one
// routing verdict, sandbox answers called fixture answers, a refused live check shown where the answer would be,
// and its error toast gone once the next check succeeds; a webhook refused for its URL says so under the field, with
// no toasts piling up, and the same failure twice is one toast.
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

test('verify forms speak the form’s words and refuse typos before sending', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  await page.getByTestId('nav-verify').click();

  // Empty: "<label> is required.", never the API's JSON-named message.
  await page.getByTestId('verify-submit').click();
  const form = page.locator('form').filter({ has: page.getByTestId('verify-account-number') });
  await expect(form).toContainText('Account number (NUBAN) is required.');
  await expect(form).not.toContainText('accountNumber (');
  await expect(page.getByTestId('verification-placeholder')).toBeVisible();

  // A letter in a NUBAN says "digits only" and names it, as soon as the field is left.
  await page.getByTestId('verify-account-number').fill('01234S6789');
  await page.getByTestId('verify-account-number').press('Tab');
  await expect(page.getByTestId('format-warning')).toContainText('takes digits only: “S” is not a digit');

  // The fixture picker: searchable, grouped by country with the form's first, showing the request it fills, and
  // saying what it set.
  await page.getByTestId('fixture-menu').click();
  await page.getByTestId('fixture-menu').fill('not found');
  const option = page.getByRole('option', { name: /NG · Account not found/ });
  await expect(option).toContainText('accountNumber 0000000000');
  await expect(page.getByText('account · NG (the form’s country)')).toBeVisible();
  await option.click();
  await expect(page.getByTestId('verify-account-number')).toHaveValue('0000000000');
  await expect(page.locator('.mantine-Notification-root').filter({ hasText: 'Form filled from' })).toContainText('bankCode 058');

  // A sandbox answer is a fixture's, not a provider's.
  await page.getByTestId('verify-account-number').fill('0123456789');
  await page.getByTestId('verify-bank-code').fill('058');
  await page.getByTestId('verify-submit').click();
  await expect(page.getByTestId('verification-result')).toHaveAttribute('data-status', 'success');
  await expect(page.getByTestId('result-source')).toHaveText('sandbox fixture answer (no provider called)');

  // The other forms speak the same words ("Phone number is required.", not "phoneNumber is required."), and their
  // inputs stop at the service's limits, so its length errors never reach a form.
  await page.getByTestId('verify-tab-phone').click();
  await page.getByTestId('phone-submit').click();
  const phoneForm = page.locator('form').filter({ has: page.getByTestId('phone-number') });
  await expect(phoneForm).toContainText('Phone number is required.');
  await expect(phoneForm).not.toContainText('phoneNumber');
  await page.getByTestId('phone-number').fill('1'.repeat(60));
  await expect(page.getByTestId('phone-number')).toHaveValue('1'.repeat(32));
  await page.getByTestId('verify-tab-identity').click();
  await page.getByTestId('identity-submit').click();
  await expect(page.locator('form').filter({ has: page.getByTestId('identity-number') })).toContainText('Document number is required.');

  // Face: a file named .png that is not an image is refused by its content; a tiny image reads in bytes.
  await page.getByTestId('verify-tab-face').click();
  const file = page.locator('input[type="file"]');
  await file.setInputFiles({ name: 'selfie.png', mimeType: 'image/png', buffer: Buffer.from('%PDF-1.7 this is a document, not a photo') });
  await expect(page.getByTestId('face-image-error')).toContainText('selfie.png is not a JPEG or PNG image');
  const tiny = Buffer.concat([Buffer.from(PNG_SIGNATURE), Buffer.alloc(92)]);
  await file.setInputFiles({ name: 'tiny.png', mimeType: 'image/png', buffer: tiny });
  await expect(page.getByTestId('face-file-name')).toHaveText('tiny.png · 100 bytes');
  await expect(page.getByTestId('face-image-error')).toHaveCount(0);

  // A live check the service refuses shows in the result panel, not only in a toast…
  await page.getByTestId('verify-tab-account').click();
  await page.getByTestId('env-switch').getByText('Live').click();
  await page.getByTestId('live-confirm-button').click();
  await expect(page.getByTestId('env-badge')).toHaveText('LIVE');
  // In live the fixture picker is there but disabled, and says why.
  await expect(page.getByTestId('fixture-menu')).toBeDisabled();
  await expect(page.getByTestId('fixture-menu')).toHaveAttribute('placeholder', 'Fixtures: sandbox only');
  await page.getByTestId('verify-account-number').fill('0123456789');
  await page.getByTestId('verify-bank-code').fill('058');
  await page.getByTestId('verify-submit').click();
  await expect(page.getByTestId('verification-refused')).toContainText('nothing was recorded or charged');
  const toast = page.locator('.mantine-Notification-root').filter({ hasText: 'Verification was not accepted' });
  await expect(toast).toBeVisible();

  // …and its toast goes away when the next attempt succeeds.
  await page.getByTestId('env-switch').getByText('Sandbox').click();
  await expect(page.getByTestId('env-badge')).toHaveText('SANDBOX');
  await page.getByTestId('verify-account-number').fill('0123456789');
  await page.getByTestId('verify-bank-code').fill('058');
  await page.getByTestId('verify-submit').click();
  await expect(page.getByTestId('verification-result')).toHaveAttribute('data-status', 'success');
  await expect(toast).toHaveCount(0);
});

test('a routing check shows one verdict, and an unknown BIC is never a primary office', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  await page.goto(`${new URL(page.url()).origin}${new URL(page.url()).pathname}#/routing/check`);
  await page.getByTestId('bic-input').fill('ZZZZZZ22');
  await page.getByTestId('routing-check-submit').click();
  const verdict = page.getByTestId('routing-result-valid');
  await expect(verdict).toHaveAttribute('data-valid', 'false');
  await expect(verdict).not.toHaveText(/success/i);
  await expect(page.getByText('Primary office: yes')).toHaveCount(0);
  await expect(page.getByText('Primary office: n/a')).toBeVisible();
});

test('a refused webhook shows its reason under the field, with no toast piling up over the dialog', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  await page.getByTestId('nav-webhooks').click();
  await page.getByTestId('create-webhook-button').click();
  const form = page.getByTestId('webhook-form');
  const url = page.getByTestId('webhook-url-input');
  const toasts = page.locator('.mantine-Notification-root');
  // The service refuses a plain-HTTP URL; each attempt is a call that answers before the next one.
  for (let i = 0; i < 3; i++) {
    await url.fill(`http://example.com/hooks/${i}`);
    const answered = page.waitForResponse((r) => r.url().includes('bridge/webhooks%3Acreate'));
    await page.getByTestId('webhook-submit').click();
    expect((await answered).status()).toBeLessThan(500);
    await expect(form.locator('.mantine-TextInput-error')).toBeVisible();
  }
  // The field says it; no toast repeats it (each refusal added one, until they covered the submit button). Counted
  // now, not waited for: the toasts of the first two refusals would still be there (they close after 8 s).
  await expect(form.locator('.mantine-TextInput-error')).toContainText(/https/i);
  expect(await toasts.filter({ hasText: 'Could not create the webhook' }).count()).toBe(0);
  await expect(page.getByTestId('webhook-submit')).toBeVisible();
  await page.keyboard.press('Escape');

  // The same failure again replaces its toast instead of adding one: an address naming a webhook that is not there,
  // opened twice.
  const notThere = toasts.filter({ hasText: 'That webhook is not in this list' });
  await page.evaluate(`location.hash = '#/webhooks/whk_00000000000000000000dead'`);
  await expect(notThere).toHaveCount(1);
  await page.evaluate(`location.hash = '#/webhooks'`);
  await expect(page).toHaveURL(/#\/webhooks$/);
  // The second time: once the lookup has answered, the one toast is still the only one (it was two, for the 8 s of
  // the first one's life).
  const looked = page.waitForResponse((r) => r.url().includes('bridge/webhooks%3Alist'));
  await page.evaluate(`location.hash = '#/webhooks/whk_00000000000000000000dead'`);
  await (await looked).finished();
  await expect(notThere).toHaveCount(1, { timeout: 2000 });
});
