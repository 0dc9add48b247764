// The dashboard reads what the API did: sandbox checks sent with the key shown at setup appear as counts by status
// and corridor, with the success rate over answered checks and the error rate apart (interface §9 rule 5), and
// each count opens the History list filtered to exactly those checks.
import { resolve } from 'node:path';
import { expect, openConsole, serve, stop, test } from './fixtures';
import { keyedApi, setUpOrganization } from './scenarios';
import { screenshotsDir } from './screenshots';

const shots = screenshotsDir();

// Sandbox fixtures (resources/sandbox/fixtures.json) with a known answer each.
const CHECKS = [
  { country: 'NG', accountNumber: '0123456789', bankCode: '058' }, // success
  { country: 'NG', accountNumber: '0690000031', bankCode: '044' }, // success
  { country: 'NG', accountNumber: '0000000000', bankCode: '058' }, // failed: ACCOUNT_NOT_FOUND
  { country: 'NG', accountNumber: '0999999992', bankCode: '058' }, // error: VERIFICATION_ERROR
  { country: 'ET', accountNumber: '1000123456789', bankCode: 'CBETETAA' }, // success
];

test('dashboard counts API checks and links to the filtered history', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  const { sandboxKey: key } = await setUpOrganization(page);
  await expect(page.getByTestId('dashboard')).toHaveAttribute('data-loaded', 'true');
  await expect(page.getByTestId('dash-empty')).toBeVisible();

  for (const [i, body] of CHECKS.entries()) {
    const res = await fetch(`${served.apiUrl}/verify/account`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Idempotency-Key': `dash-e2e-${i}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
  }

  await page.getByTestId('dash-refresh').click();
  await expect(page.getByTestId('dash-status-success')).toHaveAttribute('data-count', '3');
  await expect(page.getByTestId('dash-status-failed')).toHaveAttribute('data-count', '1');
  await expect(page.getByTestId('dash-status-error')).toHaveAttribute('data-count', '1');
  // 3 of 4 answered; the error is not an answer but 1 of 5 finished checks.
  await expect(page.getByTestId('dash-success-rate')).toHaveText('75 %');
  await expect(page.getByTestId('dash-error-rate')).toHaveText('20 %');
  const ng = page.getByTestId('dash-country-NG');
  await expect(ng).toContainText('4');
  await expect(page.getByTestId('dash-country-ET')).toBeVisible();
  await expect(page.getByTestId('dash-webhooks-empty')).toBeVisible();
  await expect(page.getByTestId('dash-wallet-balance')).toHaveAttribute('data-minor', '0');
  await expect(page.getByTestId('dash-wallet-low')).toBeVisible();
  await page.screenshot({ path: resolve(shots, 'dashboard.png'), fullPage: true });

  // The failed count opens History filtered to failed checks of the period.
  await page.getByTestId('dash-status-failed').click();
  const table = page.getByTestId('history-table');
  await expect(page.getByTestId('history-status')).toHaveValue('failed');
  await expect(table.locator('tr[data-status]')).toHaveCount(1);
  await expect(table.locator('tr[data-status="failed"]')).toHaveCount(1);

  // The corridor row opens History for that country.
  await page.getByTestId('nav-dashboard').click();
  // Dashboard numbers are real links (open in a new tab like any link) to History's address for that filter.
  await expect(ng.getByRole('link', { name: 'NG' })).toHaveAttribute('href', /^#\/history\?country=NG&from=\d{4}-\d{2}-\d{2}$/);
  await ng.getByRole('link', { name: 'NG' }).click();
  await expect(page.getByTestId('history-country')).toHaveValue('NG');
  await expect(table.locator('tr[data-status]')).toHaveCount(4);

  // Opening History from the navigation starts unfiltered again.
  await page.getByTestId('nav-dashboard').click();
  await page.getByTestId('nav-history').click();
  await expect(page.getByTestId('history-country')).toHaveValue('');
  await expect(table.locator('tr[data-status]')).toHaveCount(5);

  // Live has its own numbers: nothing ran there.
  await page.getByTestId('nav-dashboard').click();
  await page.getByTestId('env-switch').getByText('Live').click();
  await page.getByTestId('live-confirm-button').click();
  await expect(page.getByTestId('env-badge')).toHaveText('LIVE');
  await expect(page.getByTestId('dash-empty')).toContainText('No live checks today');
});

test('dashboard: a dropped delivery is labelled dropped, and the counts stay once the webhook is deleted', async ({ browser }) => {
  const served = await serve(['--allow-webhook-host', '127.0.0.1:9', '--retry-unit-ms', '200']);
  try {
    const page = await openConsole(browser, served);
    const { sandboxKey: key } = await setUpOrganization(page);
    const api = keyedApi(served.apiUrl, key);
    // Nothing listens on port 9: every attempt is refused.
    const created = await api('/client/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/hooks', events: ['verification.completed', 'verification.failed'] } });
    expect(created.status).toBe(201);
    const webhook = (await created.json()) as { id: string };
    for (const n of [1, 2, 3]) {
      const r = await api('/verify/account', { method: 'POST', idem: `dash-drop-${n}`, body: { country: 'ET', accountNumber: '1000123456789', bankCode: 'CBETETAA', mode: 'async' } });
      expect(r.status).toBe(202);
    }
    await expect
      .poll(async () => ((await (await api(`/client/webhooks/${webhook.id}`)).json()) as { status: string }).status, { timeout: 60_000 })
      .toBe('failed');

    await page.reload();
    await page.locator('[data-app-state="loaded"]').waitFor({ timeout: 30_000 });
    const tile = page.getByTestId('dash-webhooks');
    await expect(tile.getByTestId('dash-deliveries-failed')).toHaveText('3');
    // The dropped ones say so, with what the endpoint answered, never the drop's own text.
    await expect(tile.getByTestId('dash-failure-dropped').first()).toHaveText('dropped — webhook failed');
    await expect(tile.getByTestId('dash-last-failures')).not.toContainText('retries exhausted on another delivery');
    await expect(tile.getByTestId('dash-last-failures')).toContainText('ECONNREFUSED');

    // Deleted, its deliveries of the period still count.
    expect((await api(`/client/webhooks/${webhook.id}`, { method: 'DELETE' })).status).toBeLessThan(300);
    await page.reload();
    await page.locator('[data-app-state="loaded"]').waitFor({ timeout: 30_000 });
    await expect(tile.getByTestId('dash-deliveries-failed')).toHaveText('3');
    await expect(tile.getByTestId('dash-webhooks-empty')).toHaveCount(0);
    await expect(tile.getByTestId('dash-webhooks-none-left')).toBeVisible();
  } finally {
    await stop(served);
  }
});
