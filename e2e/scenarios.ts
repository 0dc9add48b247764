// Scenario steps shared by the Chromium project (headless web console) and the Electron project (the real app):
// each takes a Page and the API base URL, so both doors run exactly the same clicks and assertions.
import type { Page } from '@playwright/test';
import { expect } from '@playwright/test';

export const OWNER = { org: 'Acme Compliance', email: 'owner@acme.test', password: 'correct horse battery' } as const;

export interface ScenarioOptions {
  /** Where to save screenshots (the Chromium project feeds the README); none when absent. */
  shots?: string;
}

const shot = (page: Page, o: ScenarioOptions, name: string) => (o.shots ? page.screenshot({ path: `${o.shots}/${name}` }) : Promise.resolve());

/** First run: the organization and its owner; returns both keys it showed once, then opens the console. */
export async function setUpOrganization(page: Page): Promise<{ sandboxKey: string; liveKey: string }> {
  await page.getByTestId('setup-org').fill(OWNER.org);
  await page.getByTestId('setup-email').fill(OWNER.email);
  await page.getByTestId('setup-password').fill(OWNER.password);
  await page.getByTestId('setup-submit').click();
  await expect(page.getByText(/svc_sandbox_[0-9a-f]{64}/).first()).toBeVisible();
  const sandboxKey = ((await page.getByTestId('setup-key-sandbox').textContent()) ?? '').match(/svc_sandbox_[0-9a-f]{64}/)?.[0] ?? '';
  const liveKey = ((await page.getByTestId('setup-key-live').textContent()) ?? '').match(/svc_live_[0-9a-f]{64}/)?.[0] ?? '';
  await page.getByTestId('setup-continue').click();
  await expect(page.getByTestId('dashboard')).toHaveAttribute('data-loaded', 'true');
  return { sandboxKey, liveKey };
}

/** Keys page: a new key, revealed once; returns it. */
export async function createKey(page: Page, name: string, o: ScenarioOptions = {}): Promise<string> {
  await page.getByTestId('nav-keys').click();
  await page.getByTestId('create-key-button').click();
  await page.getByTestId('key-name-input').fill(name);
  await page.getByTestId('create-key-submit').click();
  const revealed = page.getByTestId('revealed-key');
  await expect(revealed).toContainText(/svc_sandbox_[0-9a-f]{64}/);
  const key = ((await revealed.textContent()) ?? '').match(/svc_sandbox_[0-9a-f]{64}/)![0];
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('keys-table')).toContainText(name);
  await shot(page, o, 'keys.png');
  return key;
}

/** Verify page: an NG account check that succeeds, then a format failure that reads as the interface says. */
export async function runNgCheck(page: Page, o: ScenarioOptions = {}): Promise<void> {
  await page.getByTestId('nav-verify').click();
  await page.getByTestId('verify-country').click();
  await page.getByRole('option', { name: /Nigeria/ }).click();
  await page.getByTestId('verify-account-number').fill('0123456789');
  await page.getByTestId('verify-bank-code').fill('058');
  await page.getByTestId('verify-submit').click();
  const result = page.getByTestId('verification-result');
  await expect(result).toHaveAttribute('data-status', 'success');
  await expect(result).toContainText('ADAEZE OKAFOR');
  await shot(page, o, 'verify.png');

  await page.getByTestId('verify-account-number').fill('12345');
  await page.getByTestId('verify-submit').click();
  await expect(result).toHaveAttribute('data-status', 'failed');
  await expect(result).toContainText('INVALID_ACCOUNT_NUMBER');
}

export async function revokeKey(page: Page, name: string): Promise<void> {
  await page.getByTestId('nav-keys').click();
  const row = page.getByTestId('keys-table').getByRole('row', { name: new RegExp(name) });
  await row.getByRole('button', { name: /revoke/i }).click();
  await page.getByTestId('confirm-revoke').click();
  await expect(row).toContainText(/revoked/i);
}

/** The walking skeleton: set up → key → check → revoke, with the API accepting then refusing the key. */
export async function keysAndCheckScenario(page: Page, apiUrl: string, o: ScenarioOptions = {}): Promise<void> {
  await setUpOrganization(page);
  const key = await createKey(page, 'e2e key', o);

  const ok = await fetch(`${apiUrl}/verify?limit=1`, { headers: { 'X-API-Key': key } });
  expect(ok.status).toBe(200);

  await runNgCheck(page, o);

  await revokeKey(page, 'e2e key');
  const refused = await fetch(`${apiUrl}/verify?limit=1`, { headers: { 'X-API-Key': key } });
  expect(refused.status).toBe(401);
  expect(((await refused.json()) as { code: string }).code).toBe('API_KEY_REVOKED');
}

/** The API as a test calls it beside the console: an API key, a JSON body when given, an Idempotency-Key when named. */
export function keyedApi(apiUrl: string, key: string) {
  return (path: string, init: { method?: string; body?: unknown; idem?: string } = {}) =>
    fetch(`${apiUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'X-API-Key': key, ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.idem ? { 'Idempotency-Key': init.idem } : {}) },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });
}
