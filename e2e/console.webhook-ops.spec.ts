// Webhook operations in the console (docs/webhooks.md): an endpoint that fails raises an alert on the dashboard
// and the Webhooks page (read on page load), re-enabling offers recovery with a preview count and redelivers the
// missed events, a sample event goes through the signed path, and the rotate dialog hands over both secrets.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkSignatures } from '../src-main/core/webhooks/test-receiver';
import { expect, openConsole, serve, stop, test, type Served } from './fixtures';
import { keyedApi, setUpOrganization } from './scenarios';

interface Got {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A receiver that refuses (500) until told to accept; it records what it accepted. */
async function switchableReceiver(): Promise<{ server: Server; port: number; accept: (v: boolean) => void; accepted: Got[] }> {
  let accepting = false;
  const accepted: Got[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!accepting) return void res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver down');
      accepted.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, accept: (v) => (accepting = v), accepted };
}

test('a failed endpoint raises the alert; re-enable and recover redelivers; samples and rotation', async ({ browser }) => {
  const receiver = await switchableReceiver();
  let served: Served | null = null;
  try {
    served = await serve(['--allow-webhook-host', `127.0.0.1:${receiver.port}`, '--retry-unit-ms', '1']);
    const page = await openConsole(browser, served);
    const { sandboxKey: key } = await setUpOrganization(page);
    const api = keyedApi(served!.apiUrl, key);
    const asyncCheck = async (idem: string) => {
      const r = await api('/verify/account', { method: 'POST', idem, body: { country: 'ET', accountNumber: '1000123456789', bankCode: 'CBETETAA', mode: 'async' } });
      expect(r.status).toBe(202);
      return ((await r.json()) as { id: string }).id;
    };

    const url = `http://127.0.0.1:${receiver.port}/hooks/ops`;
    const created = await api('/client/webhooks', { method: 'POST', body: { url, events: ['verification.completed', 'verification.failed'] } });
    expect(created.status).toBe(201);
    const webhook = (await created.json()) as { id: string; secret: string };
    const v1 = await asyncCheck('ops-e2e-1');
    await expect
      .poll(async () => ((await (await api(`/client/webhooks/${webhook.id}`)).json()) as { status: string }).status, { timeout: 30_000 })
      .toBe('failed');
    // An event while failed is not sent, but counted.
    const v2 = await asyncCheck('ops-e2e-2');

    // The dashboard shows the alert on load (a fresh page, nothing pushed to it).
    await page.reload();
    await page.locator('[data-app-state="loaded"]').waitFor({ timeout: 30_000 });
    const dashAlert = page.getByTestId(`webhook-failure-alert-${webhook.id}`);
    await expect(dashAlert).toBeVisible();
    await expect(dashAlert).toContainText(url);
    await expect(dashAlert.getByTestId('webhook-failure-error')).toHaveText('HTTP 500');
    await expect(dashAlert.getByTestId('webhook-failure-dropped')).toContainText('1 event since then not sent');

    // It links to the webhook; the Webhooks page shows the same alert, with recovery.
    await dashAlert.getByTestId(`webhook-failure-open-${webhook.id}`).click();
    await expect(page.getByTestId('nav-webhooks')).toHaveAttribute('data-active', 'true');
    const alert = page.getByTestId(`webhook-failure-alert-${webhook.id}`);
    await expect(alert).toBeVisible();
    await expect(page.getByTestId(`webhook-status-${webhook.id}`)).toHaveText('failed');

    // Re-enable offers recovery in the same dialog, with the preview count: the failed event and the missed one.
    receiver.accept(true);
    await page.getByTestId(`webhook-reenable-${webhook.id}`).click();
    const modal = page.getByTestId('recover-modal');
    await expect(modal.getByTestId('reenable-only')).toBeVisible();
    await expect(modal.getByTestId('recover-preview')).toHaveAttribute('data-count', '2');
    await modal.getByTestId('recover-submit').click();
    await expect(modal).toBeHidden();
    await expect(alert).toBeHidden();
    await expect(page.getByTestId(`webhook-status-${webhook.id}`)).toHaveText('active');
    await expect.poll(() => receiver.accepted.length, { timeout: 30_000 }).toBe(2);
    const ids = receiver.accepted.map((g) => JSON.parse(g.body.toString('utf8')).verificationId as string).sort();
    expect(ids).toEqual([v1, v2].sort());
    for (const g of receiver.accepted) expect(checkSignatures([webhook.secret], g.headers, g.body, Date.now() / 1000)).toEqual({ x: true, standard: true });
    await page.getByTestId('deliveries-refresh').click();
    await expect(page.getByTestId('deliveries-panel').getByText('recovery', { exact: true })).toHaveCount(2);

    // A sample event through the normal signed path.
    await page.getByTestId(`webhook-menu-${webhook.id}`).click();
    await page.getByTestId(`webhook-trigger-verification.completed-${webhook.id}`).click();
    await expect.poll(() => receiver.accepted.length, { timeout: 30_000 }).toBe(3);
    const sample = receiver.accepted[2]!;
    expect(sample.headers['x-event-type']).toBe('verification.completed');
    expect(checkSignatures([webhook.secret], sample.headers, sample.body, Date.now() / 1000)).toEqual({ x: true, standard: true });

    // Rotation: both secrets to copy, and when the old one stops.
    await page.getByTestId(`webhook-menu-${webhook.id}`).click();
    await page.getByTestId(`webhook-rotate-${webhook.id}`).click();
    await expect(page.getByTestId('rotation-headers').first()).toContainText('X-Signature');
    await page.getByTestId('confirm-rotate').click();
    await expect(page.getByTestId('revealed-previous-secret')).toHaveText(webhook.secret);
    await expect(page.getByTestId('revealed-webhook-secret')).toContainText('whsec_');
    await expect(page.getByTestId('rotation-until')).toContainText('stops being used at');
    await expect(page.getByTestId('copy-both-secrets')).toBeVisible();
    await page.getByTestId('webhook-secret-done').click();
  } finally {
    if (served) await stop(served);
    await new Promise((r) => receiver.server.close(r));
  }
});

test('deleting the selected webhook shows only its success toast, not a failed load of its deliveries', async ({ browser }) => {
  const served = await serve(['--allow-webhook-host', '127.0.0.1:9']);
  try {
    const page = await openConsole(browser, served);
    const { sandboxKey: key } = await setUpOrganization(page);
    const api = keyedApi(served.apiUrl, key);
    // Refused (nothing on port 9): its delivery stays pending, so the delete drops it and the timeline is told.
    const created = await api('/client/webhooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/hooks/del', events: ['verification.completed', 'verification.failed'] } });
    const webhook = (await created.json()) as { id: string };
    const r = await api('/verify/account', { method: 'POST', idem: 'del-e2e-1', body: { country: 'ET', accountNumber: '1000123456789', bankCode: 'CBETETAA', mode: 'async' } });
    expect(r.status).toBe(202);
    await page.goto(`${new URL(page.url()).origin}${new URL(page.url()).pathname}#/webhooks/${webhook.id}`);
    await expect(page.getByTestId('deliveries-list').locator('[data-status="pending"]')).toHaveCount(1, { timeout: 30_000 });

    // The delete's answer is held back a moment, so the live update it causes (its pending delivery dropped)
    // arrives first, as it can on a busy machine.
    await page.route(/\/bridge\/webhooks%3Adelete$/, async (route) => {
      const response = await route.fetch();
      await new Promise((r) => setTimeout(r, 1500));
      await route.fulfill({ response });
    });
    await page.getByTestId(`webhook-menu-${webhook.id}`).click();
    await page.getByTestId(`webhook-delete-${webhook.id}`).click();
    await page.getByTestId('confirm-delete-webhook').click();
    await expect(page.getByText(/Webhook .* deleted\. No further events are sent to it\./)).toBeVisible();
    await expect(page).toHaveURL(/#\/webhooks$/);
    await page.waitForTimeout(1500);
    await expect(page.getByText('Could not load the deliveries')).toHaveCount(0);
    await expect(page.getByText('That webhook is not in this list')).toHaveCount(0);
  } finally {
    await stop(served);
  }
});

test('recover on a webhook that never failed: the help asks for a start, no error before input, nothing to redeliver is not offered', async ({ browser }) => {
  const served = await serve(['--allow-webhook-host', '127.0.0.1:9']);
  try {
    const page = await openConsole(browser, served);
    const { sandboxKey: key } = await setUpOrganization(page);
    const created = await fetch(`${served.apiUrl}/client/webhooks`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks/rec', events: ['verification.completed'] }),
    });
    const webhook = (await created.json()) as { id: string };
    await page.getByTestId('nav-webhooks').click();
    await page.getByTestId(`webhook-menu-${webhook.id}`).click();
    await page.getByTestId(`webhook-recover-${webhook.id}`).click();
    const modal = page.getByTestId('recover-modal');
    await expect(modal).toContainText('required: this webhook never failed');
    await page.waitForTimeout(800); // past the preview's debounce and answer
    await expect(modal).not.toContainText('give the start of the period');
    await expect(modal.getByTestId('recover-submit')).toBeDisabled();
    // An invalid start: its error, and nothing to confirm.
    await modal.getByTestId('recover-since').fill('yesterday');
    await expect(modal).toContainText('must be an ISO 8601 date');
    await expect(modal.getByTestId('recover-submit')).toBeDisabled();
    // A valid period with nothing to redeliver: the count is 0 and "Redeliver 0 events" is not offered.
    await modal.getByTestId('recover-since').fill('2026-01-01T00:00:00Z');
    await expect(modal.getByTestId('recover-preview')).toHaveAttribute('data-count', '0');
    await expect(modal.getByTestId('recover-submit')).toBeDisabled();
  } finally {
    await stop(served);
  }
});

test('forward card: an error under the URL goes away once the URL is edited', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  await setUpOrganization(page);
  // The saved setting answers late (held back here): what the user typed meanwhile stays (it was wiped when the
  // answer came, and Save turned off: found by a full e2e run).
  let answer: () => void = () => undefined;
  const held = new Promise<void>((r) => (answer = r));
  const isGetForward = (url: string) => decodeURIComponent(url).endsWith('/bridge/webhooks:getForward');
  await page.route((url) => isGetForward(url.toString()), async (route) => {
    await held;
    await route.continue();
  });
  await page.getByTestId('nav-webhooks').click();
  const input = page.getByTestId('forward-url-input');
  const card = page.getByTestId('forward-card');
  await input.fill('http://example.com/hooks');
  const answered = page.waitForResponse((r) => isGetForward(r.url()));
  answer();
  await answered;
  await expect(input).toHaveValue('http://example.com/hooks');
  await page.getByTestId('forward-save').click();
  await expect(card).toContainText('A local receiver must be on localhost');
  await input.fill('http://localhost:3000/hooks');
  await expect(card).not.toContainText('A local receiver must be on localhost');
});

test('a dropped delivery that Retry now delivers reads delivered, in the drawer and under the success filter', async ({ browser }) => {
  const receiver = await switchableReceiver();
  const served = await serve(['--allow-webhook-host', `127.0.0.1:${receiver.port}`, '--retry-unit-ms', '200']);
  try {
    const page = await openConsole(browser, served);
    const { sandboxKey: key } = await setUpOrganization(page);
    const api = keyedApi(served.apiUrl, key);
    const created = await api('/client/webhooks', { method: 'POST', body: { url: `http://127.0.0.1:${receiver.port}/hooks/drop`, events: ['verification.completed', 'verification.failed'] } });
    const webhook = (await created.json()) as { id: string };
    for (const n of [1, 2, 3]) {
      const r = await api('/verify/account', { method: 'POST', idem: `drop-retry-${n}`, body: { country: 'ET', accountNumber: '1000123456789', bankCode: 'CBETETAA', mode: 'async' } });
      expect(r.status).toBe(202);
    }
    await expect
      .poll(async () => ((await (await api(`/client/webhooks/${webhook.id}`)).json()) as { status: string }).status, { timeout: 60_000 })
      .toBe('failed');
    const list = (await (await api(`/client/webhooks/${webhook.id}/deliveries?limit=100`)).json()) as { data: { id: string; dropReason: string | null }[] };
    const dropped = list.data.find((d) => d.dropReason === 'webhook_failed');
    expect(dropped).toBeTruthy();
    receiver.accept(true);

    const base = `${new URL(page.url()).origin}${new URL(page.url()).pathname}`;
    await page.goto(`${base}#/webhooks/${webhook.id}/deliveries/${dropped!.id}?deliveries=failed`);
    const drawer = page.getByTestId('delivery-drawer');
    await expect(drawer.getByTestId('delivery-status')).toHaveText('dropped — webhook failed');
    await drawer.getByTestId('retry-now').click();
    await expect(drawer.getByTestId('retry-not-needed')).toBeVisible();
    await expect(drawer.getByTestId('delivery-status')).toHaveText('success');
    await expect(drawer).not.toContainText('of 5 attempts');

    await page.goto(`${base}#/webhooks/${webhook.id}?deliveries=success`);
    await expect(page.getByTestId(`delivery-row-${dropped!.id}`)).toBeVisible();
    await expect(page.getByTestId(`delivery-dropped-${dropped!.id}`)).toHaveCount(0);
  } finally {
    await stop(served);
    await new Promise((r) => receiver.server.close(r));
  }
});

test('the webhook list keeps its page in the address: reload, a selection and Back return to it', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  const { sandboxKey: key } = await setUpOrganization(page);
  const api = keyedApi(served.apiUrl, key);
  // 22 webhooks: two pages of 20.
  for (let i = 0; i < 22; i++) {
    const r = await api('/client/webhooks', { method: 'POST', body: { url: `https://hooks.example.com/page/${i}`, events: ['verification.completed'] } });
    expect(r.status).toBe(201);
  }
  await page.getByTestId('nav-webhooks').click();
  const statuses = page.locator('[data-testid^="webhook-status-"]');
  await expect(statuses).toHaveCount(20);
  await page.getByRole('button', { name: '2', exact: true }).click();
  await expect(page).toHaveURL(/#\/webhooks\?page=2$/);
  await expect(statuses).toHaveCount(2);
  const second = ((await statuses.first().getAttribute('data-testid')) ?? '').replace('webhook-status-', '');
  // Reload: still page 2.
  await page.reload();
  await expect(statuses).toHaveCount(2);
  await expect(page.getByTestId(`webhook-status-${second}`)).toBeVisible();
  // A webhook of page 2 selected keeps the page beside it; Back returns to the list's page 2.
  await page.getByTestId(`webhook-status-${second}`).click();
  await expect(page).toHaveURL(new RegExp(`#/webhooks/${second}\\?page=2$`));
  await expect(statuses).toHaveCount(2);
  await page.goBack();
  await expect(page).toHaveURL(/#\/webhooks\?page=2$/);
  await expect(statuses).toHaveCount(2);
  // A link that names no page (the dashboard's, the palette's) opens the page that holds the webhook, its row marked.
  await page.goto(`${new URL(page.url()).origin}${new URL(page.url()).pathname}#/webhooks/${second}`);
  await expect(page).toHaveURL(new RegExp(`#/webhooks/${second}\\?page=2$`));
  await expect(statuses).toHaveCount(2);
  await expect(page.getByTestId(`webhook-status-${second}`)).toBeVisible();
});
