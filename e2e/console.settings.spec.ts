// Settings in the web console: the developer-option warning while `--allow-webhook-host` is in force, the theme,
// a live rate-limit change, a new user, and the configuration export (a JSON file without any secret).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bootstrapOwner, expect, openConsole, serve, stop, test, type Served } from './fixtures';
import { screenshotsDir } from './screenshots';

const shots = screenshotsDir();

let served: Served | null = null;
test.afterEach(async () => {
  if (served) await stop(served);
  served = null;
});

test('settings: dev-option banner, theme, rate limit, users, config export', async ({ browser }) => {
  served = await serve(['--allow-webhook-host', '127.0.0.1:9']);
  // The organization exists before the console opens, so the page starts in the shell, not the setup screen.
  const { sandboxKey: key } = bootstrapOwner(served);

  const page = await openConsole(browser, served);
  await page.getByTestId('nav-settings').click();
  await expect(page.getByTestId('settings-page')).toBeVisible();

  // Developer options: the shell's banner and the page's own warning name the relaxed host.
  await expect(page.getByTestId('app-warning').first()).toContainText('127.0.0.1:9');
  await expect(page.getByTestId('settings-dev-warning')).toBeVisible();
  await expect(page.getByTestId('dev-allow-host')).toHaveText('127.0.0.1:9');
  await expect(page.getByTestId('settings-data-dir')).toHaveText(served.dataDir);

  // Theme: dark, remembered across a reload.
  await page.getByTestId('theme-switch').getByText('Dark').click();
  await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');
  await page.reload();
  await page.locator('[data-app-state="loaded"]').waitFor();
  await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');
  await page.getByTestId('nav-settings').click();

  // Rate limit: applied at once, as the running value shows; the API then answers 429 past it.
  await page.getByTestId('settings-rate-limit').fill('2');
  await page.getByTestId('settings-rate-limit-save').click();
  await expect(page.getByTestId('rate-limit-running')).toHaveText('2/min');
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await fetch(`${served.apiUrl}/verify?limit=1`, { headers: { 'X-API-Key': key } })).status);
  expect(statuses).toEqual([200, 200, 429]);

  // A bad value is refused with its reason, in the page.
  await page.getByTestId('settings-port').fill('70000');
  await page.getByTestId('settings-listener-save').click();
  await expect(page.getByText('A whole number from 1 to 65535.')).toBeVisible();

  // Users: create a developer with a temporary password.
  await page.getByTestId('user-add').click();
  await page.getByTestId('user-email').fill('analyst@acme.test');
  await page.getByTestId('user-password').fill('temporary pass 1');
  await page.getByTestId('user-create-submit').click();
  await expect(page.getByTestId('users-table')).toContainText('analyst@acme.test');
  await expect(page.getByTestId('user-row-analyst@acme.test')).toContainText('DEVELOPER');
  // The same email again is refused in the dialog; closed and reopened, the dialog starts empty, without that alert.
  await page.getByTestId('user-add').click();
  await page.getByTestId('user-email').fill('analyst@acme.test');
  await page.getByTestId('user-password').fill('temporary pass 2');
  await page.getByTestId('user-create-submit').click();
  // Said under the email field, not as a block with a generic hint.
  const addDialog = page.getByRole('dialog', { name: 'Add a user' });
  await expect(addDialog.getByText('A user with this email already exists.')).toBeVisible();
  await expect(page.getByTestId('user-email')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('user-create-error')).toHaveCount(0);
  await addDialog.getByRole('button', { name: 'Cancel' }).click();
  await page.getByTestId('user-add').click();
  await expect(page.getByTestId('user-email')).toHaveValue('');
  await expect(page.getByTestId('user-email')).not.toHaveAttribute('aria-invalid', 'true');
  await expect(addDialog.getByText('A user with this email already exists.')).toHaveCount(0);
  await page.getByRole('dialog', { name: 'Add a user' }).getByRole('button', { name: 'Cancel' }).click();
  // The last owner cannot be deactivated: the error body's message is shown.
  await page.getByTestId('user-actions-owner@acme.test').click();
  await page.getByRole('menuitem', { name: 'Deactivate' }).click();
  await expect(page.getByText(/at least one active owner/).first()).toBeVisible();

  // Export: a JSON file with the format marker and the saved rate limit, and no secret of any kind.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('config-export').click()]);
  const text = readFileSync((await download.path())!, 'utf8');
  const cfg = JSON.parse(text.replace(/^\uFEFF/, '')) as { format: string; version: number; settings: { rateLimitPerMinute?: number } };
  expect(cfg).toMatchObject({ format: 'verification-console-config', version: 1, settings: { rateLimitPerMinute: 2 } });
  expect(text).not.toMatch(/whsec_|svc_(sandbox|live)_|password/i);

  // The screenshot: the page from the top, a valid form and no toasts in the way.
  await page.getByTestId('settings-port').fill('4010');
  await expect(page.getByText('A whole number from 1 to 65535.')).toHaveCount(0);
  await page.locator('.mantine-Notification-root').evaluateAll((nodes) => nodes.forEach((n) => n.remove()));
  await page.setViewportSize({ width: 1280, height: 1100 });
  await page.mouse.wheel(0, -10_000);
  await page.screenshot({ path: resolve(shots, 'settings.png') });
});

test('settings: an empty rate limit is refused in words, not applied as 0 ("no limit")', async ({ browser }) => {
  served = await serve();
  bootstrapOwner(served);
  const page = await openConsole(browser, served);
  await page.getByTestId('nav-settings').click();
  const card = page.getByTestId('rate-limit-card');
  const running = page.getByTestId('rate-limit-running');
  await expect(running).toHaveText(/\/min$/);
  const before = await running.innerText();

  // Number('') is 0, and 0 turns the limit off: a cleared field must not be read that way.
  await page.getByTestId('settings-rate-limit').fill('');
  await page.getByTestId('settings-rate-limit-save').click();
  await expect(card.getByText('Enter a number (0 turns the limit off).')).toBeVisible();
  await expect(page.getByText('Rate limit applied')).toHaveCount(0);
  await expect(running).toHaveText(before);
  // Typing fixes it: the error goes, and an explicit 0 still turns the limit off.
  await page.getByTestId('settings-rate-limit').fill('0');
  await expect(card.getByText('Enter a number (0 turns the limit off).')).toHaveCount(0);
  await page.getByTestId('settings-rate-limit-save').click();
  await expect(running).toHaveText('no limit');
});

test('settings: the configuration import picker can take the same file again', async ({ browser }) => {
  served = await serve();
  bootstrapOwner(served);
  const page = await openConsole(browser, served);
  await page.getByTestId('nav-settings').click();
  // The import picker is cleared after each pick, so the browser offers the same file again (a file fixed on disk
  // and picked again would otherwise raise no change event).
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('config-export').click()]);
  const dir = mkdtempSync(join(tmpdir(), 'vc-e2e-config-'));
  try {
    const file = join(dir, 'config.json');
    writeFileSync(file, readFileSync((await download.path())!));
    const picker = page.getByTestId('config-card').locator('input[type=file]');
    await picker.setInputFiles(file);
    await expect(page.getByTestId('config-preview')).toContainText('Nothing to change');
    await expect(picker).toHaveValue('');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
