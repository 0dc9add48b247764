// Demo data (issue 23) in the web console: Settings › Demo data loads a month of sandbox activity, the card shows the
// "demo data" badge, the dashboard is populated (screenshots at three sizes), and Remove takes the dashboard back to
// empty.
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
    ['Batch results', /#\/routing\/history/],
    ['Everything from the keyboard', /#\/routing\/history/],
  ];
  for (const [text, url] of steps) {
    await page.keyboard.press('ArrowRight');
    await expect(title).toHaveText(text);
    await expect(page).toHaveURL(url);
  }
  await page.screenshot({ path: resolve(shots, 'demo-tour.png') });
  await page.keyboard.press('ArrowLeft');
  await expect(title).toHaveText('Batch results');
  await page.keyboard.press('Escape');
  await expect(popover).toHaveCount(0);

  await page.getByTestId('nav-settings').click();
  await panel.getByTestId('demo-remove').click();
  await expect(panel.getByTestId('demo-badge')).toHaveCount(0);
  await expect(page.getByTestId('demo-mark')).toHaveCount(0);
  await page.getByTestId('nav-dashboard').click();
  await expect(page.getByTestId('dashboard')).toHaveAttribute('data-loaded', 'true');
  await expect(page.getByTestId('dash-empty')).toBeVisible();
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
  await expect(page.getByTestId('dashboard')).toHaveAttribute('data-loaded', 'true');
  await expect(page.getByTestId('dash-empty')).toHaveCount(0);
  expect(Number(await page.getByTestId('dash-status-success').getAttribute('data-count'))).toBeGreaterThan(0);
  await page.getByTestId('nav-settings').click();
  await expect(page.getByTestId('demo-badge')).toBeVisible();
});
