// The guided tour tours the demo data, never the user's own records: with a check and a batch of the user's made
// after the load, its failed record and its "payouts file" are the story's; its drawer steps highlight the drawer
// once it has slid in; and without demo data it opens Settings › Demo data and says so instead of touring.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';

test('without demo data, the palette’s tour offers to load it instead of touring real data', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  await page.keyboard.press('Control+K');
  const search = page.getByTestId('palette-search');
  await search.fill('Take the demo tour');
  await expect(page.getByText('Settings › Demo data loads it')).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#\/settings$/);
  await expect(page.locator('.mantine-Notification-root').filter({ hasText: 'No demo data to tour' })).toContainText('Load demo data');
  await expect(page.getByTestId('demo-panel')).toBeVisible();
  await expect(page.locator('.driver-popover')).toHaveCount(0);
});

test('the tour shows the demo’s records, not the user’s, and highlights a drawer once it is open', async ({ browser, served }) => {
  test.setTimeout(120_000);
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  await page.getByTestId('nav-settings').click();
  const panel = page.getByTestId('demo-panel');
  await panel.getByTestId('demo-load').click();
  await expect(panel.getByTestId('demo-badge')).toBeVisible({ timeout: 30_000 });
  await expect(panel.getByRole('progressbar')).toHaveCount(0, { timeout: 60_000 });

  // The user's own failed check and own batch, both newer than anything of the story.
  await page.getByTestId('nav-verify').click();
  await page.getByTestId('verify-account-number').fill('0000000000');
  await page.getByTestId('verify-bank-code').fill('058');
  await page.getByTestId('verify-submit').click();
  const result = page.getByTestId('verification-result');
  await expect(result).toHaveAttribute('data-status', 'failed');
  const ownId = ((await result.getByTestId('verification-id').textContent()) ?? '').trim();
  expect(ownId).toMatch(/^ver_[A-Za-z0-9_-]+$/);
  const file = join(served.dataDir, 'my-payees.csv');
  writeFileSync(file, ['payee,swift_code', 'a,DEUTDEFF', 'b,DEUT12FF'].join('\n'));
  await page.getByTestId('nav-routing').click();
  await page.getByTestId('routing-tab-batch').click();
  await page.getByTestId('batch-drop-zone').locator('input[type=file]').setInputFiles(file);
  await page.getByTestId('batch-start').click();
  await expect(page.getByTestId('batch-files')).toBeVisible({ timeout: 30_000 });

  await page.getByTestId('nav-settings').click();
  await panel.getByTestId('demo-tour').click();
  const title = page.locator('.driver-popover .driver-popover-title');
  await expect(title).toHaveText('A month at a glance');
  let shown = 'A month at a glance';
  const next = async (text: string) => {
    await expect(async () => {
      if ((await title.textContent()) === shown) await page.keyboard.press('ArrowRight');
      await expect(title).toHaveText(text, { timeout: 6000 });
    }).toPass({ timeout: 25_000 });
    shown = text;
  };
  /** The highlight's cut-out (driver.js's overlay path: its second `M x,y`) against the target's box. */
  const cutoutMatches = async (selector: string) => {
    const d = (await page.locator('.driver-overlay path').getAttribute('d')) ?? '';
    const m = [...d.matchAll(/M(-?[\d.]+),(-?[\d.]+)/g)][1];
    const box = await page.locator(selector).boundingBox();
    expect(m && box).toBeTruthy();
    // driver.js pads the stage by 10 px and starts the path after its 5 px corner; a mid-slide measure was ~500 px off.
    expect(Math.abs(Number(m![1]) - (box!.x - 10))).toBeLessThan(12);
    expect(Math.abs(Number(m![2]) - (box!.y - 10))).toBeLessThan(12);
  };

  await next('A failed check');
  await next('Why it failed, and who ran it');
  await expect(page).toHaveURL(/#\/history\/ver_/);
  expect(page.url()).not.toContain(ownId);
  await cutoutMatches('[data-testid="record-provenance"]');
  await next('Signed webhooks, every attempt');
  await next('Replay to your receiver');
  await cutoutMatches('[data-testid="replay-box"]');
  await next('Batch results');
  await expect(page.getByTestId('batch-job-view').getByRole('heading', { name: /^supplier-payouts-\d{4}-\d{2}\.csv$/ })).toBeVisible();
  await page.keyboard.press('Escape');
});
