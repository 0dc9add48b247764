// Providers in live: the upstream simulator started through the real CLI, a `generic` provider for account:NG added
// on the Providers page (its credential never shown back), probed, then a live NG check in Verify answered by the
// simulator (`source: live`, price beside the button) and the same check again answered from the cache; a live
// batch's preview then says its routing checks are not charged. A private HTTPS upstream (the simulator with
// --tls) is trusted through a CA certificate loaded from a file: shown as its subject, then probed over TLS.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';
import { screenshotsDir } from './screenshots';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shots = screenshotsDir();
// Any non-empty token works with the simulator unless --api-key pins one; pinning it proves the credential is sent.
const SIM_KEY = 'sim-e2e-credential-7351';

/** `vconsole simulator --port 0`: its URL is the first line it prints, then (--tls) its certificate (docs/simulator.md). */
async function startSimulator(tls = false): Promise<{ url: string; proc: ChildProcess; ca: string | null }> {
  const args = ['bin/vconsole.mjs', 'simulator', '--port', '0', '--api-key', SIM_KEY, ...(tls ? ['--tls'] : [])];
  const proc = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let ca: string | null = null;
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`simulator did not start:\n${out}`)), 30_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      const pem = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(out);
      if (m?.[1] && (!tls || pem)) {
        ca = pem?.[0] ?? null;
        clearTimeout(timer);
        res(m[1]);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => rej(new Error(`simulator exited with ${code}:\n${out}`)));
  });
  return { url, proc, ca };
}

async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

function cli(dataDir: string, ...args: string[]): string {
  const r = spawnSync(process.execPath, ['bin/vconsole.mjs', ...args, '--data-dir', dataDir], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`vconsole ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

test('providers: a generic route to the simulator answers live NG checks, then the cache does', async ({ browser, served }) => {
  const sim = await startSimulator();
  try {
    const page = await openConsole(browser, served);
    await setUpOrganization(page);
    // Billing set-up through the real CLI (the wallet page has its own test).
    cli(served.dataDir, 'services', 'enable', 'account:NG');
    cli(served.dataDir, 'prices', 'set', 'account:NG', '1.50', '--currency', 'USD');
    cli(served.dataDir, 'wallet', 'topup', '10.00', '--currency', 'USD');

    // Providers: none yet, so live would be refused.
    await page.getByTestId('nav-providers').click();
    await expect(page.getByTestId('env-badge')).toHaveText('SANDBOX');
    await expect(page.getByTestId('providers-empty')).toBeVisible();

    await page.getByTestId('provider-add').click();
    // Refusals of fields the form shows are said under them, not in a block at the bottom.
    await page.getByTestId('provider-id').fill('Bad Id!');
    await page.getByTestId('provider-base-url').fill('http://upstream.example.com');
    await page.getByTestId('provider-save').click();
    await expect(page.getByTestId('provider-id')).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByTestId('provider-base-url')).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByText(/^The base URL must be https:\/\//)).toBeVisible();
    await expect(page.getByTestId('providers-error')).toHaveCount(0);
    await page.getByTestId('provider-id').fill('sim');
    await expect(page.getByTestId('provider-adapter')).toHaveValue('generic');
    await page.getByTestId('provider-base-url').fill(sim.url);
    await page.getByTestId('provider-secret').fill(SIM_KEY);
    await page.getByTestId('provider-routes').fill('account:NG');
    await page.getByTestId('provider-routes').press('Enter');
    await page.getByTestId('provider-save').click();

    const row = page.getByTestId('provider-row-sim');
    await expect(row).toContainText('account:NG');
    await expect(row).toContainText('generic');
    // Write-only: the row shows the last four characters only, and the page never holds the credential.
    await expect(page.getByTestId('provider-credential-sim')).toHaveText('••••7351');
    expect(await page.content()).not.toContain(SIM_KEY);
    // Editing starts with an empty credential field (empty keeps the stored one).
    await page.getByTestId('provider-edit-sim').click();
    await expect(page.getByTestId('provider-secret')).toHaveValue('');
    await expect(page.getByText('Configured (••••7351). Leave empty to keep it.')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('provider-secret')).toBeHidden();

    // The health probe reaches the simulator with the credential (401 would read "credentials refused").
    await page.getByTestId('provider-test-sim').click();
    await expect(page.getByTestId('provider-probe-sim')).toBeVisible();
    await expect(page.getByTestId('provider-probe-sim')).not.toContainText(/refused|fail/i);
    await expect(page.getByTestId('provider-circuit-sim')).toHaveText('closed');

    // A private HTTPS upstream: its CA certificate loaded from a file, shown back as subject + fingerprint only,
    // and the probe gets through TLS with it.
    const tlsSim = await startSimulator(true);
    try {
      const caFile = join(mkdtempSync(join(tmpdir(), 'vc-e2e-ca-')), 'upstream-ca.pem');
      writeFileSync(caFile, tlsSim.ca!);
      await page.getByTestId('provider-add').click();
      await page.getByTestId('provider-id').fill('private');
      await page.getByTestId('provider-base-url').fill(tlsSim.url);
      await page.getByTestId('provider-secret').fill(SIM_KEY);
      await page.getByTestId('provider-routes').fill('account:GH');
      await page.getByTestId('provider-routes').press('Enter');
      const chooser = page.waitForEvent('filechooser');
      await page.getByTestId('provider-ca-file').click();
      await (await chooser).setFiles(caFile);
      await expect(page.getByTestId('provider-ca')).toHaveValue(/BEGIN CERTIFICATE/);
      // The picker is cleared after the pick, so the same file (fixed on disk) can be loaded again.
      await expect(page.locator('input[type=file][accept*=".pem"]')).toHaveValue('');
      await page.getByTestId('provider-save').click();
      await expect(page.getByTestId('provider-ca-private')).toContainText('CN=vconsole simulator (test only)');
      expect(await page.content()).not.toContain('BEGIN CERTIFICATE');
      await page.getByTestId('provider-test-private').click();
      await expect(page.getByTestId('provider-probe-private')).toContainText('reachable');
      await page.getByTestId('provider-remove-private').click();
      await expect(page.getByTestId('provider-row-private')).toHaveCount(0);
    } finally {
      await stopProcess(tlsSim.proc);
    }
    await page.screenshot({ path: resolve(shots, 'providers.png'), fullPage: true });

    // Live asks first.
    await page.getByTestId('env-switch').getByText('Live').click();
    await page.getByTestId('live-confirm-button').click();
    await expect(page.getByTestId('env-badge')).toHaveText('LIVE');

    // Verify in live: the price of account:NG sits beside the button before anything is sent.
    await page.getByTestId('nav-verify').click();
    await page.getByTestId('verify-country').click();
    await page.getByRole('option', { name: /Nigeria/ }).click();
    const price = page.getByTestId('live-price');
    await expect(price).toHaveAttribute('data-minor', '150');
    await expect(price).toHaveAttribute('data-state', 'ok');
    await expect(price).toContainText('account:NG');
    await page.getByTestId('verify-account-number').fill('0123456789');
    await page.getByTestId('verify-bank-code').fill('058');
    await page.getByTestId('verify-submit').click();
    const result = page.getByTestId('verification-result');
    await expect(result).toHaveAttribute('data-status', 'success');
    // The simulator's seeded holder (docs/simulator.md), not the sandbox fixture's name: a real upstream answered.
    await expect(page.getByTestId('result-account-name')).toHaveText(/Adaeze Nwosu/i);
    await expect(page.getByTestId('result-source')).toHaveAttribute('data-source', 'live');
    await expect(page.getByTestId('served-from-cache')).toHaveCount(0);
    await expect(result).toContainText(/1\.50/);

    // The same question again inside the TTL: answered from the cache, billed like any answer.
    await page.getByTestId('verify-submit').click();
    await expect(page.getByTestId('result-source')).toHaveAttribute('data-source', 'cache');
    await expect(page.getByTestId('served-from-cache')).toBeVisible();
    await expect(result).toHaveAttribute('data-status', 'success');

    // Exactly one upstream check ran; the wallet paid for two answers.
    const requests = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as { requests: { path: string }[] };
    expect(requests.requests.filter((r) => r.path.startsWith('/v1/checks/account'))).toHaveLength(1);
    expect(cli(served.dataDir, 'wallet', 'show')).toMatch(/7\.00/);

    // A live batch's preview says what it costs before it starts: routing rows are not charged.
    await page.getByTestId('nav-routing').click();
    await expect(page.getByTestId('env-badge')).toHaveText('LIVE');
    await page.getByTestId('routing-tab-batch').click();
    await page.getByTestId('batch-path-input').fill(resolve(root, 'resources', 'routing', 'sample-bic-directory.csv'));
    await page.getByTestId('batch-preview-button').click();
    const cost = page.getByTestId('batch-cost');
    await expect(cost).toHaveAttribute('data-billed', 'false');
    await expect(cost).toContainText('Routing checks in a batch are not charged');
    await cost.getByTestId('price-list-link').click();
    await expect(page.getByTestId('nav-wallet')).toHaveAttribute('data-active', 'true');
  } finally {
    await stopProcess(sim.proc);
  }
});

test('providers: a cache TTL of 1.5, -5 or nothing is refused under the field, not saved as 15, 5 or 0', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  await page.getByTestId('nav-providers').click();
  const phone = page.getByTestId('cache-ttl-phone');
  const account = page.getByTestId('cache-ttl-account');
  await expect(phone).toHaveValue('86400');
  for (const [field, typed] of [
    [phone, '1.5'],
    [account, '-5'],
    [phone, ''],
  ] as const) {
    await field.fill(typed);
    await field.blur();
    await expect(page.getByText(/A whole number of seconds from 0 \(off\)|Enter a number of seconds/)).toBeVisible();
    await field.fill('86400');
    await field.blur();
  }
  // A valid change is saved and confirmed.
  await phone.fill('120');
  await phone.blur();
  await expect(page.getByText('phone answers are now cached for 120 s.')).toBeVisible();
  await page.reload();
  await page.locator('[data-app-state="loaded"]').waitFor({ timeout: 30_000 });
  await expect(page.getByTestId('cache-ttl-phone')).toHaveValue('120');
  await expect(page.getByTestId('cache-ttl-account')).toHaveValue('86400');
});
