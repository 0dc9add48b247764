// Every screen at 1400×900, 1024×700 and 800×900 (issue 13 §4, §6): no horizontal overflow, nothing in the header
// clipped or wrapped mid-word, the page's primary action visible (in the first screenful at 1400×900, with both
// developer options and a record on screen); an axe-core scan of every screen in the light and the dark theme with
// no serious or critical violation; addresses that survive reload, Back/Forward and a second tab.
// One served instance for the whole file and one browser context per size, so the file stays cheap on a 2-core CI.
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Locator, Page } from '@playwright/test';
import { resolve } from 'node:path';
import { expect, openConsole, serve, stop, test, type Served } from './fixtures';
import { setUpOrganization } from './scenarios';
import { screenshotsDir } from './screenshots';

interface Screen {
  path: string;
  /** The heading the screen shows once it is there. */
  title: string;
  /** The screen's primary action (a test id), when it has one. */
  primary?: string;
  /** What a narrow window must never hide (a table's status). */
  keep?: (page: Page) => Locator;
}

const SCREENS: Screen[] = [
  { path: '/dashboard', title: 'Dashboard', primary: 'dash-refresh' },
  { path: '/verify/account', title: 'Verify', primary: 'verify-submit' },
  { path: '/verify/phone', title: 'Verify', primary: 'phone-submit' },
  { path: '/verify/identity', title: 'Verify', primary: 'identity-submit' },
  { path: '/verify/face', title: 'Verify', primary: 'face-submit' },
  { path: '/verify/address', title: 'Verify', primary: 'address-submit' },
  { path: '/history', title: 'History' },
  { path: '/keys', title: 'API keys', primary: 'create-key-button', keep: (p) => p.locator('[data-testid^="key-row-"]').first().getByText('active', { exact: true }) },
  { path: '/webhooks', title: 'Webhooks', primary: 'create-webhook-button', keep: (p) => p.locator('[data-testid^="webhook-status-"]').first() },
  { path: '/routing/check', title: 'Routing', primary: 'routing-check-submit' },
  { path: '/routing/batch', title: 'Routing' },
  { path: '/routing/history', title: 'Routing' },
  { path: '/routing/directory', title: 'Routing', primary: 'directory-import-submit' },
  { path: '/wallet', title: 'Wallet', primary: 'wallet-topup' },
  { path: '/providers', title: 'Providers', primary: 'provider-add' },
  { path: '/settings', title: 'Settings' },
  { path: '/audit', title: 'Audit' },
];

const SIZES = [
  { width: 1400, height: 900 },
  { width: 1024, height: 700 },
  { width: 800, height: 900 },
] as const;

let served: Served;
let storageState: Awaited<ReturnType<BrowserContext['storageState']>>;
let base: string;
/** A successful check, in History. */
let verificationId: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  // Both developer options on, so their line is on every screen as in the worst case.
  served = await serve(['--allow-webhook-host', '127.0.0.1:9', '--retry-unit-ms', '1000']);
  const page = await openConsole(browser, served);
  const { sandboxKey } = await setUpOrganization(page);
  const api = (path: string, body: unknown, idem?: string) =>
    fetch(`${served.apiUrl}${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': sandboxKey, 'content-type': 'application/json', ...(idem ? { 'Idempotency-Key': idem } : {}) },
      body: JSON.stringify(body),
    });
  // Rows in History and Webhooks, so tables are measured with content.
  const verified = await api('/verify/account', { country: 'NG', accountNumber: '0123456789', bankCode: '058' }, 'layout-1');
  expect(verified.status).toBeLessThan(300);
  verificationId = ((await verified.json()) as { id: string }).id;
  expect((await api('/client/webhooks', { url: 'http://127.0.0.1:9/hooks/layout', events: ['verification.completed'] })).status).toBe(201);
  storageState = await page.context().storageState();
  base = new URL(page.url()).origin + new URL(page.url()).pathname;
  await page.context().close();
});

test.afterAll(async () => {
  if (served) await stop(served);
});

async function contextFor(browser: Browser, size: { width: number; height: number }, scheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const context = await browser.newContext({ viewport: size, storageState });
  await context.addInitScript(`localStorage.setItem('mantine-color-scheme-value', '${scheme}')`);
  return context.newPage();
}

async function open(page: Page, screen: Screen): Promise<void> {
  await page.goto(`${base}#${screen.path}`);
  await page.locator('[data-app-state="loaded"]').waitFor();
  await expect(page.getByRole('heading', { level: 2, name: screen.title })).toBeVisible();
  if (screen.primary) await expect(page.getByTestId(screen.primary)).toBeVisible();
}

// Browser-side checks, as source text: the e2e project is compiled without the DOM library.
/** What in the header is cut off, pushed out of the window or broken over two lines (ellipsis on purpose excepted). */
const HEADER_PROBLEMS = `(() => {
  const header = document.querySelector('header');
  if (!header) return ['no header'];
  const vw = document.documentElement.clientWidth;
  const problems = [];
  const walker = document.createTreeWalker(header, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = (n.textContent || '').trim();
    if (!text) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
    if (rects.length === 0) continue;
    let truncated = false;
    for (let el = n.parentElement; el && el !== header; el = el.parentElement) if (getComputedStyle(el).textOverflow === 'ellipsis') truncated = true;
    if (rects.length > 1 && !truncated) problems.push('"' + text + '" wraps over ' + rects.length + ' lines');
    const r = range.getBoundingClientRect();
    if (r.left < -0.5 || r.right > vw + 0.5) problems.push('"' + text + '" leaves the window (' + Math.round(r.left) + '-' + Math.round(r.right) + ' of ' + vw + ')');
    for (let el = n.parentElement; el && el !== header.parentElement; el = el.parentElement) {
      const cs = getComputedStyle(el);
      if (cs.overflowX === 'visible') continue;
      const box = el.getBoundingClientRect();
      if ((r.right > box.right + 1 || r.left < box.left - 1) && cs.textOverflow !== 'ellipsis') problems.push('"' + text + '" is clipped by <' + el.tagName.toLowerCase() + '>');
    }
  }
  return problems;
})()`;

/** Status badges cut short ("SUCC…"): a badge's label wider than the badge shows. */
const TRUNCATED_BADGES = `Array.from(document.querySelectorAll('main .mantine-Badge-label'))
  .filter((el) => el.getClientRects().length > 0 && el.scrollWidth > el.clientWidth + 1)
  .map((el) => el.textContent)`;

const HORIZONTAL_OVERFLOW = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';

function headerProblems(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(HEADER_PROBLEMS);
}

function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate<number>(HORIZONTAL_OVERFLOW);
}

for (const size of SIZES) {
  test(`every screen holds at ${size.width}×${size.height}`, async ({ browser }) => {
    const page = await contextFor(browser, size);
    try {
      for (const screen of SCREENS) {
        await open(page, screen);
        const where = `${screen.path} at ${size.width}×${size.height}`;
        expect(await horizontalOverflow(page), `horizontal overflow on ${where}`).toBeLessThanOrEqual(0);
        expect(await headerProblems(page), `header on ${where}`).toEqual([]);
        expect(await page.evaluate<string[]>(TRUNCATED_BADGES), `badges cut short on ${where}`).toEqual([]);
        if (screen.keep) await expect(screen.keep(page), `status kept on ${where}`).toBeVisible();
        if (screen.primary) {
          const primary = page.getByTestId(screen.primary);
          if (size.width === 1400) await expect(primary, `primary action in the first screenful on ${where}`).toBeInViewport();
          else {
            await primary.scrollIntoViewIfNeeded();
            await expect(primary, `primary action reachable on ${where}`).toBeInViewport();
          }
        }
      }
      if (size.width === 1400) {
        // The tallest form with every option on, in live (its warning line, the price under the button) and with an
        // error under every field: its primary action is still in the first screenful.
        await open(page, SCREENS[1]!);
        await page.getByTestId('env-switch').getByText('Live').click();
        await page.getByTestId('live-confirm-button').click();
        await expect(page.getByTestId('live-banner')).toBeVisible();
        await page.getByTestId('verify-country').click();
        await page.getByRole('option', { name: /China/ }).click();
        await page.getByTestId('verify-holder-type').getByText('Business').click();
        await expect(page.getByTestId('verify-identifier-value')).toBeVisible();
        await page.getByTestId('verify-submit').click();
        await expect(page.getByText('Business account number is required.')).toBeVisible();
        await page.evaluate('window.scrollTo(0, 0)');
        await expect(page.getByTestId('verify-submit'), 'primary action with every option active at 1400×900').toBeInViewport();
        await page.screenshot({ path: resolve(screenshotsDir(), 'layout-1400-live-form.png') });
        expect(await headerProblems(page)).toEqual([]);
      }
      // Below 1100 px the navigation sits behind the burger, and a page picked there closes it again.
      const burger = page.getByTestId('nav-burger');
      if (size.width < 1100) {
        await expect(page.getByTestId('nav-history')).not.toBeInViewport();
        await burger.click();
        await page.getByTestId('nav-history').click();
        await expect(page).toHaveURL(/#\/history$/);
        await expect(page.getByTestId('nav-history')).not.toBeInViewport();
        await page.screenshot({ path: resolve(screenshotsDir(), `layout-${size.width}.png`) });
      } else {
        await expect(burger).toHaveCount(0);
        await expect(page.getByTestId('nav-history')).toBeInViewport();
      }
    } finally {
      await page.context().close();
    }
  });
}

for (const scheme of ['light', 'dark'] as const) {
  test(`axe: no serious or critical violation on any screen (${scheme})`, async ({ browser }) => {
    const page = await contextFor(browser, { width: 1400, height: 900 }, scheme);
    try {
      const found: string[] = [];
      for (const screen of SCREENS) {
        await open(page, screen);
        await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', scheme);
        const result = await new AxeBuilder({ page }).analyze();
        for (const v of result.violations) {
          if (v.impact !== 'serious' && v.impact !== 'critical') continue;
          found.push(`${screen.path}: ${v.id} (${v.impact}) — ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
        }
      }
      expect(found).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
}

/** axe's serious and critical violations on the page as it is, each with where it was found. */
async function seriousViolations(page: Page, where: string): Promise<string[]> {
  // A drawer sliding in or a dialog fading in is scanned once it is still (colours mid-fade are not the page's).
  await expect.poll(() => page.evaluate<boolean>(`document.getAnimations().every((a) => a.playState !== 'running')`)).toBe(true);
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${where}: ${v.id} (${v.impact}) — ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

// What the screens above do not show: a verification's answer (its status colours: green-9 under white text was
// 4.4:1), a drawer and a dialog (their × had no name).
for (const scheme of ['light', 'dark'] as const) {
  test(`axe: a success result, a drawer and a dialog (${scheme})`, async ({ browser }) => {
    const page = await contextFor(browser, { width: 1400, height: 900 }, scheme);
    try {
      const found: string[] = [];
      await open(page, { path: '/verify/account', title: 'Verify', primary: 'verify-submit' });
      await page.getByTestId('verify-account-number').fill('0123456789');
      await page.getByTestId('verify-bank-code').fill('058');
      await page.getByTestId('verify-submit').click();
      await expect(page.getByTestId('verification-result')).toHaveAttribute('data-status', 'success');
      // The page at rest, then with its filled button hovered (Mantine's hover from shade 9 was shade 8: 3.7:1).
      await page.mouse.move(0, 0);
      found.push(...(await seriousViolations(page, 'a success result on Verify')));
      await page.getByTestId('verify-submit').hover();
      found.push(...(await seriousViolations(page, 'Verify with its button hovered')));
      await page.mouse.move(0, 0);
      // A drawer: the record in History (a success result too).
      await open(page, { path: `/history/${verificationId}`, title: 'History' });
      const drawer = page.getByTestId('verification-drawer');
      await expect(drawer.getByTestId('verification-result')).toHaveAttribute('data-status', 'success');
      await expect(drawer.getByRole('button', { name: 'Close' })).toBeVisible();
      found.push(...(await seriousViolations(page, 'the History drawer')));
      // A dialog: a new webhook.
      await open(page, { path: '/webhooks', title: 'Webhooks', primary: 'create-webhook-button' });
      await page.getByTestId('create-webhook-button').click();
      const dialog = page.getByRole('dialog');
      await expect(dialog.getByRole('button', { name: 'Close' })).toBeVisible();
      await page.mouse.move(0, 0);
      found.push(...(await seriousViolations(page, 'the new-webhook dialog')));
      expect(found).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
}

test('addresses: reload, Back/Forward, a second tab and an unknown address', async ({ browser }) => {
  const page = await contextFor(browser, { width: 1400, height: 900 });
  try {
    await open(page, SCREENS[0]!);
    // The navigation is made of real links, so the web console opens them in new tabs like any link.
    await expect(page.getByTestId('nav-history')).toHaveAttribute('href', '#/history');
    await page.getByTestId('nav-verify').click();
    await expect(page).toHaveURL(/#\/verify\/account$/);
    await page.getByTestId('verify-tab-phone').click();
    await expect(page).toHaveURL(/#\/verify\/phone$/);
    await page.getByTestId('nav-routing').click();
    await page.getByTestId('routing-tab-directory').click();
    await expect(page).toHaveURL(/#\/routing\/directory$/);

    await page.goBack();
    await expect(page).toHaveURL(/#\/routing\/check$/);
    await expect(page.getByTestId('routing-tab-check')).toHaveAttribute('aria-selected', 'true');
    await page.goBack();
    await expect(page.getByTestId('verify-tab-phone')).toHaveAttribute('aria-selected', 'true');
    await page.goForward();
    await expect(page.getByTestId('routing-tab-check')).toHaveAttribute('aria-selected', 'true');

    // A filtered History survives a reload; a record has its own address, opened in a second tab.
    await page.goto(`${base}#/history?status=success&country=NG`);
    await page.reload();
    await page.locator('[data-app-state="loaded"]').waitFor();
    await expect(page.getByTestId('history-status')).toHaveValue('success');
    await expect(page.getByTestId('history-country')).toHaveValue('NG');
    const row = page.locator('[data-testid^="history-row-ver_"]').first();
    const id = ((await row.getAttribute('data-testid')) ?? '').replace('history-row-', '');
    expect(id).toMatch(/^ver_/);
    const second = await page.context().newPage();
    await second.goto(`${base}#/history/${id}`);
    await second.locator('[data-app-state="loaded"]').waitFor();
    await expect(second.getByRole('dialog')).toContainText(id);
    await second.keyboard.press('Escape');
    await expect(second).toHaveURL(/#\/history$/);

    // Keyboard only: Tab reaches the navigation, Enter follows it, and Tab reaches the page's primary action.
    await open(page, SCREENS[0]!);
    await page.locator('body').focus();
    const tabTo = async (testId: string) => {
      const seen: string[] = [];
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab');
        const now = await page.evaluate<string>("(() => { const a = document.activeElement; return a ? (a.getAttribute('data-testid') || a.tagName + ':' + (a.textContent || '').slice(0, 20)) : 'none'; })()");
        if (now === testId) return;
        seen.push(now);
      }
      throw new Error(`${testId} is not reachable with Tab; focus went through ${seen.join(' → ')}`);
    };
    await tabTo('nav-webhooks');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/#\/webhooks$/);
    await expect(page.getByRole('heading', { level: 2, name: 'Webhooks' })).toBeVisible();
    await tabTo('create-webhook-button');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('dialog')).toBeVisible();
    // The URL help names the host this run allows (--allow-webhook-host 127.0.0.1:9), not a blanket "refused".
    await expect(page.getByRole('dialog')).toContainText('except 127.0.0.1:9: allowed for this run');
    await page.keyboard.press('Escape');

    await page.goto(`${base}#/no-such-screen`);
    await expect(page.getByTestId('not-found')).toContainText('/no-such-screen');
  } finally {
    await page.context().close();
  }
});
