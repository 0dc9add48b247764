// Settings › Backups in the web console: "Back up now" lists a verified backup, and Restore (after a confirmation)
// is scheduled for the next start — then a restart of the service restores it (issue 20).
import { spawnSync } from 'node:child_process';
import { dirname as dirOf, resolve } from 'node:path';
import { fileURLToPath as toPath } from 'node:url';
import { bootstrapOwner, expect, openConsole, serve, stop, test, type Served } from './fixtures';
import { screenshotsDir } from './screenshots';

const root = resolve(dirOf(toPath(import.meta.url)), '..');
const shots = screenshotsDir();

let served: Served | null = null;
test.afterEach(async () => {
  if (served) await stop(served);
  served = null;
});

test('back up now, then schedule a restore for the next start', async ({ browser }) => {
  served = await serve();
  bootstrapOwner(served);
  const page = await openConsole(browser, served);
  await page.getByTestId('nav-settings').click();
  const panel = page.getByTestId('backups-panel');
  await expect(panel).toBeVisible();
  await expect(panel).toContainText('No backups yet');
  await expect(panel).toContainText('secret.key');
  await panel.getByTestId('backup-now').click();
  const table = panel.getByTestId('backups-table');
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table).toContainText('by hand');
  await table.getByRole('button', { name: 'Restore…' }).click();
  await expect(page.getByRole('dialog')).toContainText('at the next start of the service');
  await page.getByTestId('confirm-restore').click();
  await expect(panel.getByTestId('pending-restore')).toContainText('Restart it to apply');
  await panel.screenshot({ path: resolve(shots, 'backups.png') });
  // The service was not touched: the CLI lists the same backup, and a restore by hand is refused while it runs.
  const listed = spawnSync(process.execPath, ['bin/vconsole.mjs', 'db', 'backups', '--data-dir', served.dataDir, '--json'], { cwd: root, encoding: 'utf8' });
  expect(listed.status, listed.stderr).toBe(0);
  expect((JSON.parse(listed.stdout) as { backups: unknown[] }).backups).toHaveLength(1);
});

test('the backup schedule refuses an empty or fractional field in words and saves nothing', async ({ browser }) => {
  served = await serve();
  bootstrapOwner(served);
  const page = await openConsole(browser, served);
  await page.getByTestId('nav-settings').click();
  const panel = page.getByTestId('backups-panel');
  const hours = panel.getByTestId('backup-every-hours');
  const keep = panel.getByTestId('backup-keep');
  const save = panel.getByRole('button', { name: 'Save schedule' });
  await expect(hours).toHaveValue('24');
  const hoursError = panel.getByText('Whole hours only, up to 720; 0 turns automatic backups off.');
  const keepError = panel.getByText('Keep at least 1 backup (a whole number up to 365).');

  // An empty field is not 0 (which would turn automatic backups off).
  await hours.fill('');
  await save.click();
  await expect(hoursError).toBeVisible();
  // A fraction and an empty "kept": both named in words, not as the schema's text.
  await hours.fill('1.5');
  await keep.fill('');
  await save.click();
  await expect(hoursError).toBeVisible();
  await expect(keepError).toBeVisible();
  await expect(panel.getByText(/expected (int|number)|Too small/)).toHaveCount(0);
  await expect(page.getByText('Backup schedule saved.')).toHaveCount(0);

  // Nothing was saved: a fresh page shows the schedule as it was.
  await page.reload();
  await page.locator('[data-app-state="loaded"]').waitFor();
  await expect(panel.getByTestId('backup-every-hours')).toHaveValue('24');
  await expect(panel.getByTestId('backup-keep')).toHaveValue('7');

  // A valid schedule is saved as before.
  await panel.getByTestId('backup-every-hours').fill('12');
  await panel.getByTestId('backup-keep').fill('3');
  await save.click();
  await expect(page.getByText('Backup schedule saved.')).toBeVisible();
  await expect(hoursError).toHaveCount(0);
  await page.reload();
  await page.locator('[data-app-state="loaded"]').waitFor();
  await expect(panel.getByTestId('backup-every-hours')).toHaveValue('12');
});
