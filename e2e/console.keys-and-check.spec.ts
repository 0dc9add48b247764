// The walking skeleton through the web console: set up the organization, create a key (revealed once), run a
// sandbox NG account check and see its result, then revoke the key — and the revoked key is refused by the API.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, openConsole, test } from './fixtures';
import { fileURLToPath as toPath } from 'node:url';
import { dirname as dirOf } from 'node:path';

const here = dirOf(toPath(import.meta.url));

const shots = resolve(here, '..', 'docs', 'screenshots');

test('set up, create a key, run an NG check, revoke the key', async ({ browser, served }) => {
  mkdirSync(shots, { recursive: true });
  const page = await openConsole(browser, served);

  // First run: the organization and its owner.
  await page.getByTestId('setup-org').fill('Acme Compliance');
  await page.getByTestId('setup-email').fill('owner@acme.test');
  await page.getByTestId('setup-password').fill('correct horse battery');
  await page.getByTestId('setup-submit').click();
  await expect(page.getByText(/svc_sandbox_[0-9a-f]{64}/).first()).toBeVisible();
  await page.getByTestId('setup-continue').click();

  // A new key, shown once.
  await page.getByTestId('nav-keys').click();
  await page.getByTestId('create-key-button').click();
  await page.getByTestId('key-name-input').fill('e2e key');
  await page.getByTestId('create-key-submit').click();
  const revealed = page.getByTestId('revealed-key');
  await expect(revealed).toContainText(/svc_sandbox_[0-9a-f]{64}/);
  const key = ((await revealed.textContent()) ?? '').match(/svc_sandbox_[0-9a-f]{64}/)![0];
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('keys-table')).toContainText('e2e key');
  await page.screenshot({ path: resolve(shots, 'keys.png') });

  // The key works against the API.
  const ok = await fetch(`${served.apiUrl}/verify?limit=1`, { headers: { 'X-API-Key': key } });
  expect(ok.status).toBe(200);

  // An NG check from the console.
  await page.getByTestId('nav-verify').click();
  await page.getByTestId('verify-country').click();
  await page.getByRole('option', { name: /Nigeria/ }).click();
  await page.getByTestId('verify-account-number').fill('0123456789');
  await page.getByTestId('verify-bank-code').fill('058');
  await page.getByTestId('verify-submit').click();
  const result = page.getByTestId('verification-result');
  await expect(result).toHaveAttribute('data-status', 'success');
  await expect(result).toContainText('ADAEZE OKAFOR');
  await page.screenshot({ path: resolve(shots, 'verify.png') });

  // A format failure reads as the interface says: failed + INVALID_ACCOUNT_NUMBER.
  await page.getByTestId('verify-account-number').fill('12345');
  await page.getByTestId('verify-submit').click();
  await expect(result).toHaveAttribute('data-status', 'failed');
  await expect(result).toContainText('INVALID_ACCOUNT_NUMBER');

  // Revoke the key; the API refuses it at once.
  await page.getByTestId('nav-keys').click();
  const row = page.getByTestId('keys-table').getByRole('row', { name: /e2e key/ });
  await row.getByRole('button', { name: /revoke/i }).click();
  await page.getByTestId('confirm-revoke').click();
  await expect(row).toContainText(/revoked/i);
  const refused = await fetch(`${served.apiUrl}/verify?limit=1`, { headers: { 'X-API-Key': key } });
  expect(refused.status).toBe(401);
  expect(((await refused.json()) as { code: string }).code).toBe('API_KEY_REVOKED');
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
