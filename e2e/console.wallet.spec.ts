// Wallet in live: the switch asks before entering live, a top-up updates the balance, a live check sent with the live
// key appears as a usage charge, and the usage list exports as a CSV download.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';
import { screenshotsDir } from './screenshots';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shots = screenshotsDir();

/** The owner's billing set-up through the real CLI on the same data folder (the console's own panels have their own tests). */
function cli(dataDir: string, ...args: string[]): void {
  const r = spawnSync(process.execPath, ['bin/vconsole.mjs', ...args, '--data-dir', dataDir], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`vconsole ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
}

test('wallet: top up in live, a live check is charged, usage exports as CSV', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  const { liveKey: liveKey } = await setUpOrganization(page);
  cli(served.dataDir, 'services', 'enable', 'account:NG');
  cli(served.dataDir, 'prices', 'set', 'account:NG', '1.50', '--currency', 'USD');
  // Live checks need a configured provider (docs/providers.md); the stand-in answers like the sandbox, billed.
  cli(served.dataDir, 'providers', 'set', 'stand-in', '--adapter', 'stand-in', '--route', 'account:NG');

  // Live asks first; staying in sandbox changes nothing.
  await page.getByTestId('env-switch').getByText('Live').click();
  await expect(page.getByTestId('live-confirm-button')).toBeVisible();
  await page.getByTestId('live-cancel').click();
  await expect(page.getByTestId('env-badge')).toHaveText('SANDBOX');
  await page.getByTestId('env-switch').getByText('Live').click();
  await page.getByTestId('live-confirm-button').click();
  await expect(page.getByTestId('env-badge')).toContainText('LIVE');
  await expect(page.getByTestId('env-frame')).toHaveAttribute('data-environment', 'live');

  await page.getByTestId('nav-wallet').click();
  const balance = page.getByTestId('wallet-balance');
  await expect(balance).toHaveAttribute('data-minor', '0');
  await expect(page.getByTestId('wallet-low-balance')).toBeVisible();
  await expect(page.getByTestId('usage-export')).toBeDisabled();

  // Top up 50.00 USD.
  await page.getByTestId('wallet-topup').click();
  await page.getByTestId('topup-amount').fill('50');
  await page.getByTestId('topup-currency').fill('USD');
  await page.getByTestId('topup-submit').click();
  await expect(balance).toHaveAttribute('data-minor', '5000');
  await expect(page.getByTestId('wallet-low-balance')).toHaveCount(0);

  // A live check with the live key is charged 1.50 before the provider is asked.
  const res = await fetch(`${served.apiUrl}/verify/account`, {
    method: 'POST',
    headers: { 'X-API-Key': liveKey, 'Idempotency-Key': 'wallet-e2e-1', 'content-type': 'application/json' },
    body: JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058' }),
  });
  expect(res.status).toBe(200);
  const verification = (await res.json()) as { id: string; status: string };
  expect(verification.status).toBe('success');

  // The page's own Refresh (the first) reloads the wallet and the usage list.
  await page.getByTestId('wallet-page').getByRole('button', { name: 'Refresh' }).first().click();
  await expect(balance).toHaveAttribute('data-minor', '4850');
  const usage = page.getByTestId('usage-panel');
  await expect(usage.locator('tr[data-kind="charge"]')).toHaveCount(1);
  await expect(usage).toContainText('account:NG');
  await page.screenshot({ path: resolve(shots, 'wallet.png'), fullPage: true });

  // The export is a real download holding the charge.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('usage-export').click()]);
  expect(download.suggestedFilename()).toMatch(/^usage-.*\.csv$/);
  const csv = readFileSync((await download.path())!, 'utf8');
  expect(csv).toContain(verification.id);
  expect(csv).toContain('account:NG');

  // The dashboard shows the same wallet.
  await page.getByTestId('nav-dashboard').click();
  await expect(page.getByTestId('dash-wallet-balance')).toHaveAttribute('data-minor', '4850');
  await expect(page.getByTestId('dash-status-success')).toHaveAttribute('data-count', '1');
});
