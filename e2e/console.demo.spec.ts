// Demo data (issue 23) in the web console: Settings › Demo data loads a month of sandbox activity, the card shows the
// "demo data" badge, the dashboard is populated (screenshots at three sizes), the tour's batch step opens the story's
// finished batch CSV (its results download), and Remove takes the dashboard and the batch history back to empty.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';
import { screenshotsDir } from './screenshots';

const shots = screenshotsDir();
const SIZES = [
  { name: 'wide', width: 1440, height: 900 },
  { name: 'laptop', width: 1024, height: 768 },
  { name: 'narrow', width: 800, height: 900 },
] as const;

test('load demo data, see the populated dashboard, remove it', async ({ browser, served }) => {
  test.setTimeout(120_000);
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  await expect(page.getByTestId('dashboard')).toHaveAttribute('data-loaded', 'true');
  await expect(page.getByTestId('dash-empty')).toBeVisible();

  await page.getByTestId('nav-settings').click();
  const panel = page.getByTestId('demo-panel');
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId('demo-badge')).toHaveCount(0);
  await expect(panel.getByTestId('demo-remove')).toBeDisabled();
  await panel.getByTestId('demo-load').click();
  // The badge shows from the first committed record; the load is over when the progress bar goes away.
  await expect(panel.getByTestId('demo-badge')).toBeVisible({ timeout: 30_000 });
  await expect(panel.getByRole('progressbar')).toHaveCount(0, { timeout: 60_000 });
  await expect(panel.getByTestId('demo-status')).toContainText('demo records');
  await expect(panel.getByTestId('demo-load')).toBeDisabled();
  await panel.screenshot({ path: resolve(shots, 'demo-panel.png') });

  await page.getByTestId('nav-dashboard').click();
  // The story's month (its "today" has no checks before 08:00 UTC).
  await page.getByTestId('dash-period').getByText('Last 30 days').click();
  await expect(page).toHaveURL(/#\/dashboard\?period=30d/);
  await expect(page.getByTestId('dashboard')).toHaveAttribute('data-loaded', 'true');
  await expect(page.getByTestId('dash-empty')).toHaveCount(0);
  // Every page carries the mark while demo data is there.
  await expect(page.getByTestId('demo-mark')).toBeVisible();
  const success = Number(await page.getByTestId('dash-status-success').getAttribute('data-count'));
  expect(success).toBeGreaterThan(0);
  for (const s of SIZES) {
    await page.setViewportSize({ width: s.width, height: s.height });
    await expect(page.getByTestId('dashboard')).toBeVisible();
    await page.screenshot({ path: resolve(shots, `demo-dashboard-${s.name}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });

  // The guided tour: keyboard-driven over the real screens, skippable.
  await page.getByTestId('nav-settings').click();
  await panel.getByTestId('demo-tour').click();
  const popover = page.locator('.driver-popover');
  const title = popover.locator('.driver-popover-title');
  await expect(title).toHaveText('A month at a glance');
  await expect(page).toHaveURL(/#\/dashboard\?period=30d/);
  const steps: [string, RegExp][] = [
    ['A failed check', /#\/history\?status=failed/],
    ['Why it failed, and who ran it', /#\/history\/ver_/],
    ['Signed webhooks, every attempt', /#\/webhooks\/whk_/],
    ['Replay to your receiver', /#\/webhooks\/whk_[^/]+\/deliveries\/del_/],
    ['Batch results', /#\/routing\/batch\/bat_/],
    ['Everything from the keyboard', /#\/routing\/batch\/bat_/],
  ];
  let shown = 'A month at a glance';
  for (const [text, url] of steps) {
    // As a person does: press → and, if the tour is still on the same step (a key pressed while a screen was
    // re-rendering can be lost), press again. Never a second press once the step has moved, so no step is skipped.
    await expect(async () => {
      if ((await title.textContent()) === shown) await page.keyboard.press('ArrowRight');
      await expect(title).toHaveText(text, { timeout: 6000 }); // longer than the tour's own wait for a screen (5 s)
    }).toPass({ timeout: 25_000 });
    shown = text;
    await expect(page).toHaveURL(url);
    if (text === 'Batch results') {
      // The story's finished batch, not an empty history: the payouts file's counts and reasons, the step pointing
      // at the reasons.
      const job = page.getByTestId('batch-job-view');
      await expect(job).toHaveAttribute('data-status', 'done');
      await expect(job.getByRole('heading', { name: /^supplier-payouts-\d{4}-\d{2}\.csv$/ })).toBeVisible();
      await expect(page.getByTestId('batch-count-rows')).toHaveText('300');
      await expect(page.getByTestId('batch-count-invalid')).toHaveText('20');
      await expect(page.getByTestId('batch-reasons')).toHaveClass(/driver-active-element/);
      await page.screenshot({ path: resolve(shots, 'demo-tour-batch.png') });
    }
  }
  await page.screenshot({ path: resolve(shots, 'demo-tour.png') });
  await page.keyboard.press('ArrowLeft');
  await expect(title).toHaveText('Batch results');
  await page.keyboard.press('Escape');
  await expect(popover).toHaveCount(0);

  // The batch's result files are there to download, as any batch's.
  await expect(page.getByTestId('batch-results-table')).toContainText('payee_name');
  const download = page.waitForEvent('download');
  await page.getByTestId('batch-download-invalid').click();
  const d = await download;
  expect(d.suggestedFilename()).toMatch(/^supplier-payouts-\d{4}-\d{2}-invalid-rows\.csv$/);
  const lines = readFileSync((await d.path())!, 'utf8').trim().split(/\r?\n/);
  expect(lines).toHaveLength(1 + 20);
  expect(lines.slice(1).every((l) => l.includes(',false,'))).toBe(true);

  await page.getByTestId('nav-settings').click();
  await panel.getByTestId('demo-remove').click();
  await expect(panel.getByTestId('demo-badge')).toHaveCount(0);
  await expect(page.getByTestId('demo-mark')).toHaveCount(0);
  await page.getByTestId('nav-dashboard').click();
  await page.getByTestId('dash-period').getByText('Last 30 days').click();
  await expect(page).toHaveURL(/#\/dashboard\?period=30d/);
  await expect(page.getByTestId('dashboard')).toHaveAttribute('data-loaded', 'true');
  await expect(page.getByTestId('dash-empty')).toBeVisible();
  // The demo batch went with the rest.
  await page.getByTestId('nav-routing').click();
  await page.getByTestId('routing-tab-history').click();
  await expect(page.getByTestId('batch-history-empty')).toBeVisible();
});

test('first run: load demo data from the last setup step and open a populated dashboard', async ({ browser, served }) => {
  test.setTimeout(120_000);
  const page = await openConsole(browser, served);
  await page.getByTestId('setup-org').fill('Demo Co');
  await page.getByTestId('setup-email').fill('presenter@demo.test');
  await page.getByTestId('setup-password').fill('correct horse battery');
  await page.getByTestId('setup-submit').click();
  await page.getByTestId('setup-next').click();
  const offer = page.getByTestId('demo-offer');
  await expect(offer).toBeVisible();
  await offer.getByTestId('demo-offer-load').click();
  await expect(offer.getByTestId('demo-offer-done')).toContainText('sandbox checks', { timeout: 60_000 });
  await page.getByTestId('setup-done').click();
  // It opens on the story's month.
  await expect(page).toHaveURL(/#\/dashboard\?period=30d/);
  await expect(page.getByTestId('dashboard')).toHaveAttribute('data-loaded', 'true');
  await expect(page.getByTestId('dash-empty')).toHaveCount(0);
  expect(Number(await page.getByTestId('dash-status-success').getAttribute('data-count'))).toBeGreaterThan(0);
  await page.getByTestId('nav-settings').click();
  await expect(page.getByTestId('demo-badge')).toBeVisible();
});

test('an empty "Days" field is refused at the field, not sent as 0 days', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  await page.getByTestId('nav-settings').click();
  const panel = page.getByTestId('demo-panel');
  await panel.getByTestId('demo-days').fill('');
  await panel.getByTestId('demo-load').click();
  await expect(panel.getByText('Enter a whole number of days from 1 to 90.')).toBeVisible();
  await expect(panel.getByRole('alert')).toHaveCount(0);
  await expect(panel.getByTestId('demo-badge')).toHaveCount(0);
  await expect(panel.getByTestId('demo-load')).toBeEnabled();
});
