// Live updates in the web console (issue 13 §1): nothing needs a click to become true. An async check's result
// replaces "pending" by itself, a delivery appears on an open timeline, and a webhook turning `failed` shows on the
// dashboard — each without a reload, a refresh click or a timer in the page (docs/console-live.md).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, openConsole, serve, stop, test, type Served } from './fixtures';
import { setUpOrganization } from './scenarios';

/** A webhook receiver answering every delivery with `status`. */
async function receiver(status: number): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'receiver down'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

function apiFor(served: Served, key: string) {
  return (path: string, init: { method?: string; body?: unknown; idem?: string } = {}) =>
    fetch(`${served.apiUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'X-API-Key': key, 'content-type': 'application/json', ...(init.idem ? { 'Idempotency-Key': init.idem } : {}) },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });
}

/** An async sandbox check (ET allows async): answered 202 pending, completed by the queue a moment later. */
const ASYNC_ET = { country: 'ET', accountNumber: '1000123456789', bankCode: 'CBETETAA', mode: 'async' } as const;

test('an async check submitted in Verify turns final by itself within 2 s', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  await page.getByTestId('nav-verify').click();
  await page.getByTestId('verify-country').click();
  await page.getByRole('option', { name: /Ethiopia/ }).click();
  await page.getByTestId('verify-account-number').fill(ASYNC_ET.accountNumber);
  await page.getByTestId('verify-bank-code').fill(ASYNC_ET.bankCode);
  await page.getByTestId('verify-async').click();
  // The answer to the submission itself is the pending record (202); anything after it came by a live event.
  const answered = page.waitForResponse((r) => /\/console\/bridge\/verify(:|%3A)account$/.test(r.url()));
  await page.getByTestId('verify-submit').click();
  const body = (await (await answered).json()) as { ok: boolean; value: { status: string } };
  expect(body.value.status).toBe('pending');
  const result = page.getByTestId('verification-result');
  await expect(result).toHaveAttribute('data-status', 'success', { timeout: 2000 });
  await expect(page.getByTestId('poll-result')).toHaveCount(0);
});

test('a delivery appears on an open timeline, and a webhook turning failed shows on the dashboard', async ({ browser }) => {
  const ok = await receiver(200);
  const down = await receiver(500);
  let served: Served | null = null;
  try {
    // Loopback receivers through the URL rules; one "minute" of the retry schedule lasting 1 ms (docs/webhooks.md).
    served = await serve(['--allow-webhook-host', `127.0.0.1:${ok.port}`, '--allow-webhook-host', `127.0.0.1:${down.port}`, '--retry-unit-ms', '1']);
    const page = await openConsole(browser, served);
    const { sandboxKey } = await setUpOrganization(page);
    const api = apiFor(served, sandboxKey);
    const events = ['verification.completed', 'verification.failed'];
    const good = (await (await api('/client/webhooks', { method: 'POST', body: { url: `http://127.0.0.1:${ok.port}/hooks`, events } })).json()) as { id: string };

    // The timeline of the healthy webhook is open and empty; a check sent through the API appears on it.
    await page.getByTestId('nav-webhooks').click();
    await page.getByTestId(`webhook-deliveries-${good.id}`).click();
    await expect(page.getByTestId('deliveries-empty')).toBeVisible();
    const check = await api('/verify/account', { method: 'POST', idem: 'live-e2e-1', body: ASYNC_ET });
    expect(check.status).toBe(202);
    const row = page.getByTestId('deliveries-list').locator('[data-testid^="delivery-row-"]');
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute('data-status', 'success');

    // The dashboard is open; an endpoint that refuses everything uses up its attempts and is disabled.
    await page.getByTestId('nav-dashboard').click();
    await expect(page.getByTestId('dashboard')).toHaveAttribute('data-loaded', 'true');
    await expect(page.getByTestId('dash-endpoints-failed')).toHaveCount(0);
    const bad = (await (await api('/client/webhooks', { method: 'POST', body: { url: `http://127.0.0.1:${down.port}/hooks`, events } })).json()) as { id: string };
    expect((await api('/verify/account', { method: 'POST', idem: 'live-e2e-2', body: ASYNC_ET })).status).toBe(202);
    await expect(page.getByTestId('dash-endpoints-failed')).toHaveAttribute('data-count', '1', { timeout: 30_000 });
    await expect(page.getByTestId('dash-deliveries-failed')).toHaveText('1');
    const webhook = (await (await api(`/client/webhooks/${bad.id}`)).json()) as { status: string };
    expect(webhook.status).toBe('failed');
  } finally {
    if (served) await stop(served);
    ok.server.close();
    down.server.close();
  }
});
