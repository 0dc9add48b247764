// Find anything, and see what was compared (issue 13 §3): History's search box finds checks by identifier prefix,
// returned name and id on the server; a record shows the request as submitted and who ran it through which door;
// the palette opens a `ver_…` id; identity checks show their returned names in the list; an address set while History
// is shown opens it with that address's filters.
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';

test('search History by identifier, name and id; the record shows its provenance; the palette opens an id', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  const { sandboxKey } = await setUpOrganization(page);
  const post = async (path: string, body: unknown, idem: string) => {
    const r = await fetch(`${served.apiUrl}${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': sandboxKey, 'content-type': 'application/json', 'Idempotency-Key': idem },
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(200);
    return ((await r.json()) as { id: string }).id;
  };
  const ng = await post('/verify/account', { country: 'NG', accountNumber: '0123456789', bankCode: '058' }, 'search-1');
  const ke = await post('/verify/identity', { country: 'KE', idType: 'national_id', idNumber: '12345678' }, 'search-2');
  await post('/verify/account', { country: 'NG', accountNumber: '0690000031', bankCode: '044' }, 'search-3');

  await page.getByTestId('nav-history').click();
  const rows = page.getByTestId('history-table').locator('tr[data-status]');
  await expect(rows).toHaveCount(3);
  // An identity check's returned names, not "—".
  await expect(page.getByTestId(`history-row-${ke}`)).toContainText('WANJIRU AKINYI KAMAU');

  const box = page.getByTestId('history-search');
  await box.fill('0123-45');
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`history-row-${ng}`)).toBeVisible();
  await box.fill('kamau');
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`history-row-${ke}`)).toBeVisible();
  // The search is in the address: a reload (or a copied link) shows the same list, with the box filled.
  await expect(page).toHaveURL(/#\/history\?q=kamau$/);
  await page.reload();
  await expect(page.getByTestId('history-search')).toHaveValue('kamau');
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`history-row-${ke}`)).toBeVisible();
  await box.fill(ng);
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`history-row-${ng}`)).toBeVisible();
  await box.fill('nobody');
  await expect(rows).toHaveCount(0);
  await expect(page.getByText(/Nothing in sandbox matches “nobody”/)).toBeVisible();
  await page.getByTestId('history-filters').getByRole('button', { name: 'Clear' }).click();
  await expect(box).toHaveValue('');
  await expect(rows).toHaveCount(3);
  // An address set while History is shown (a link, an address typed) opens it with that address's filters, and Back
  // returns to the filters before (a walk of the console found the page ignoring such an address).
  await page.evaluate(`location.hash = '#/history?q=kamau'`);
  await expect(box).toHaveValue('kamau');
  await expect(rows).toHaveCount(1);
  await page.evaluate(`location.hash = '#/history?q=0690'`);
  await expect(box).toHaveValue('0690');
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`history-row-${ke}`)).toBeHidden();
  await page.goBack();
  await expect(box).toHaveValue('kamau');
  await expect(page.getByTestId(`history-row-${ke}`)).toBeVisible();
  await page.getByTestId('history-filters').getByRole('button', { name: 'Clear' }).click();
  await expect(rows).toHaveCount(3);

  // The record: the request as submitted, the API key that ran it, through the API door.
  await page.getByTestId(`history-row-${ng}`).click();
  const drawer = page.getByTestId('verification-drawer');
  await expect(drawer.getByTestId('record-provenance')).toHaveAttribute('data-door', 'api');
  await expect(drawer.getByTestId('record-provenance')).toHaveAttribute('data-actor', 'api_key');
  await expect(drawer.getByTestId('record-door')).toHaveText('API');
  await expect(drawer.getByTestId('record-request')).toContainText('"accountNumber": "0123456789"');
  await page.keyboard.press('Escape');
  await expect(drawer.getByTestId('record-provenance')).toBeHidden();

  // The palette opens a verification by its id, from any page.
  await page.getByTestId('nav-dashboard').click();
  await page.keyboard.press('Control+K');
  await page.getByTestId('palette-search').fill(ke);
  await page.getByRole('button', { name: /Open this verification, delivery, webhook or key/ }).click();
  await expect(page.getByTestId('nav-history')).toHaveAttribute('data-active', 'true');
  await expect(drawer.getByTestId('record-request')).toContainText('"idNumber": "12345678"');
  await expect(drawer.getByTestId('verification-result')).toContainText(ke);
});

test('a History row opens at its own address, keeping the filters: reload, Back, one drawer', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  const { sandboxKey } = await setUpOrganization(page);
  const post = async (body: unknown, idem: string) => {
    const r = await fetch(`${served.apiUrl}/verify/account`, {
      method: 'POST',
      headers: { 'X-API-Key': sandboxKey, 'content-type': 'application/json', 'Idempotency-Key': idem },
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(200);
    return ((await r.json()) as { id: string }).id;
  };
  const ng = await post({ country: 'NG', accountNumber: '0123456789', bankCode: '058' }, 'row-1');
  await post({ country: 'NG', accountNumber: '0690000031', bankCode: '044' }, 'row-2');

  await page.getByTestId('nav-history').click();
  const rows = page.getByTestId('history-table').locator('tr[data-status]');
  await expect(rows).toHaveCount(2);
  await page.getByTestId('history-search').fill('0123');
  await expect(rows).toHaveCount(1);
  await expect(page).toHaveURL(/#\/history\?q=0123$/);

  // A click on the row: the record's address, with the list's filters, and one drawer (there were two: the page's own,
  // which never changed the address, and the route's).
  await page.getByTestId(`history-row-${ng}`).getByText('0123456789').click();
  await expect(page).toHaveURL(new RegExp(`#/history/${ng}\\?q=0123$`));
  const drawer = page.getByTestId('verification-drawer');
  await expect(drawer.getByTestId('verification-result')).toContainText(ng);
  await expect(page.locator('.mantine-Drawer-content')).toHaveCount(1);
  // A reload keeps the record and the list under it.
  await page.reload();
  await expect(drawer.getByTestId('verification-result')).toContainText(ng);
  await expect(page.getByTestId('history-search')).toHaveValue('0123');
  // Back closes the drawer and stays on the filtered list.
  await page.goBack();
  await expect(page).toHaveURL(/#\/history\?q=0123$/);
  await expect(drawer.getByTestId('verification-result')).toBeHidden();
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId('history-search')).toHaveValue('0123');
});

test('History rows can be reached and opened from the keyboard', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  const { sandboxKey } = await setUpOrganization(page);
  for (const [accountNumber, idem] of [['0123456789', 'kb-1'], ['0690000031', 'kb-2']] as const) {
    const r = await fetch(`${served.apiUrl}/verify/account`, {
      method: 'POST',
      headers: { 'X-API-Key': sandboxKey, 'content-type': 'application/json', 'Idempotency-Key': idem },
      body: JSON.stringify({ country: 'NG', accountNumber, bankCode: '058' }),
    });
    expect(r.status).toBe(200);
  }
  await page.getByTestId('nav-history').click();
  const rows = page.getByTestId('history-table').locator('tr[data-status]');
  await expect(rows).toHaveCount(2);
  const other = ((await rows.first().getAttribute('data-testid')) ?? '').replace('history-row-', '');
  const drawer = page.getByTestId('verification-drawer');
  // The keyboard: Tab from the search box reaches the row's link (before the pager), and Enter opens the record.
  await page.getByTestId('history-search').focus();
  const link = page.getByTestId(`history-open-${other}`);
  await expect(link).toHaveAttribute('href', new RegExp(`#/history/${other}$`));
  let reached = false;
  for (let i = 0; i < 15 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await link.evaluate((el) => el === el.ownerDocument.activeElement);
  }
  expect(reached).toBe(true);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`#/history/${other}$`));
  await expect(drawer.getByTestId('verification-result')).toContainText(other);
  // Esc closes it and returns to the list's address.
  await page.keyboard.press('Escape');
  await expect(drawer.getByTestId('verification-result')).toBeHidden();
  await expect(page).toHaveURL(/#\/history$/);
  // A reversed date range says so, under To and in the empty table, instead of "widen or clear".
  await page.getByTestId('history-from').fill('2026-11-24');
  await page.getByTestId('history-to').fill('2026-11-23');
  await expect(page.getByTestId('history-filters')).toContainText('Before From: no day is in this range');
  await expect(page.getByTestId('history-table')).toContainText('To is before From');
});

test('opening and closing a record keeps the list on its page; History in the menu starts it over at the first', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  const { sandboxKey } = await setUpOrganization(page);
  // 21 checks: a second page of one (20 a page), the oldest.
  const ids: string[] = [];
  for (let i = 0; i < 21; i++) {
    const r = await fetch(`${served.apiUrl}/verify/account`, {
      method: 'POST',
      headers: { 'X-API-Key': sandboxKey, 'content-type': 'application/json', 'Idempotency-Key': `page-${i}` },
      body: JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058' }),
    });
    expect(r.status).toBe(200);
    ids.push(((await r.json()) as { id: string }).id);
  }
  const oldest = ids[0]!;
  await page.getByTestId('nav-history').click();
  const table = page.getByTestId('history-table');
  const rows = table.locator('tr[data-status]');
  await expect(rows).toHaveCount(20);
  await table.getByRole('button', { name: '2', exact: true }).click();
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`history-row-${oldest}`)).toBeVisible();

  // A record opened from page 2 and closed again: still page 2 under it.
  await page.getByTestId(`history-row-${oldest}`).getByText('0123456789').click();
  // The list's page is in the address (docs/dashboard.md "Addresses"), the record's too.
  await expect(page).toHaveURL(new RegExp(`#/history/${oldest}\\?page=2$`));
  await page.goBack();
  await expect(page).toHaveURL(/#\/history\?page=2$/);
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId(`history-row-${oldest}`)).toBeVisible();

  // History in the menu: the list from its first page.
  await page.getByTestId('nav-history').click();
  await expect(rows).toHaveCount(20);
  await expect(page.getByTestId(`history-row-${oldest}`)).toHaveCount(0);
});
