// First run on a fresh service: the organization and owner, both keys shown once with the warning, a guided first
// check with a sandbox fixture, then the dashboard already counting that check.
import { resolve } from 'node:path';
import { expect, openConsole, test } from './fixtures';
import { screenshotsDir } from './screenshots';

const shots = screenshotsDir();

test('onboarding: set up → both keys once → guided first check → dashboard', async ({ browser, served }) => {
  const page = await openConsole(browser, served);

  // Step 1: the organization and its owner; a bad email is refused on the field before anything is sent.
  await expect(page.getByTestId('setup')).toHaveAttribute('data-step', '0');
  await page.getByTestId('setup-org').fill('Acme Compliance');
  // Empty: asked for, not called invalid.
  await page.getByTestId('setup-submit').click();
  await expect(page.getByText('Enter the owner’s email address.')).toBeVisible();
  await page.getByTestId('setup-email').fill('not-an-email');
  await page.getByTestId('setup-password').fill('correct horse battery');
  await page.getByTestId('setup-submit').click();
  await expect(page.getByText('Enter a valid email address.')).toBeVisible();
  await page.getByTestId('setup-email').fill('owner@acme.test');
  await page.getByTestId('setup-submit').click();

  // Step 2: both keys, in full, once, with copy buttons and the warning.
  await expect(page.getByTestId('setup')).toHaveAttribute('data-step', '1');
  const keys = page.getByTestId('setup-keys');
  await expect(page.getByTestId('setup-key-sandbox')).toHaveText(/^svc_sandbox_[0-9a-f]{64}$/);
  await expect(page.getByTestId('setup-key-live')).toHaveText(/^svc_live_[0-9a-f]{64}$/);
  await expect(keys.getByText('You will not see these again')).toBeVisible();
  await expect(keys.getByRole('button', { name: 'Copy' })).toHaveCount(2);
  const sandboxKey = (await page.getByTestId('setup-key-sandbox').textContent())!;
  await page.screenshot({ path: resolve(shots, 'onboarding-keys.png') });

  // The key shown is a working key.
  const ok = await fetch(`${served.apiUrl}/verify?limit=1`, { headers: { 'X-API-Key': sandboxKey } });
  expect(ok.status).toBe(200);

  // Step 3: the guided check — the preselected fixture is NG's bank-account success case.
  await page.getByTestId('setup-next').click();
  await expect(page.getByTestId('setup')).toHaveAttribute('data-step', '2');
  await expect(page.getByTestId('setup-fixture')).toHaveValue(/account · NG · Active account/);
  await expect(page.getByTestId('setup-fixture-expected')).toHaveText('Expected answer: success');
  await page.getByTestId('setup-run-check').click();
  const result = page.getByTestId('verification-result');
  await expect(result).toHaveAttribute('data-status', 'success');
  await expect(result).toContainText('ADAEZE OKAFOR');
  // The last step gets its check mark once the first check has answered.
  await expect(page.getByTestId('setup')).toHaveAttribute('data-step', '3');
  await expect(page.getByTestId('setup-step-check')).toHaveAttribute('data-completed', 'true');
  await page.screenshot({ path: resolve(shots, 'onboarding-first-check.png') });

  // The dashboard, in sandbox, already counting the guided check.
  await page.getByTestId('setup-done').click();
  await expect(page.getByTestId('dashboard')).toHaveAttribute('data-loaded', 'true');
  await expect(page.getByTestId('env-badge')).toHaveText('SANDBOX');
  await expect(page.getByTestId('dash-status-success')).toHaveAttribute('data-count', '1');
  await expect(page.getByTestId('dash-success-rate')).toHaveText('100 %');

  // The guided check went through the real service: the API lists it under the sandbox key.
  const again = await fetch(`${served.apiUrl}/verify?limit=5`, { headers: { 'X-API-Key': sandboxKey } });
  expect(((await again.json()) as { pagination: { total: number } }).pagination.total).toBe(1);
});
