// Live updates survive a dropped event stream (issue 13 §1): while the console is offline (a laptop asleep, a
// network change) checks keep arriving through the API; back online, the stream resumes from the last event id it
// saw and the missed events are applied — the History list shows the checks without a reload or a click.
import { expect, openConsole, test } from './fixtures';
import { setUpOrganization } from './scenarios';

const CHECK = { country: 'NG', accountNumber: '0123456789', bankCode: '058' } as const;

test('events sent while the stream was cut are applied once it is restored', async ({ browser, served }) => {
  const page = await openConsole(browser, served);
  const { sandboxKey } = await setUpOrganization(page);
  const check = (idem: string) =>
    fetch(`${served.apiUrl}/verify/account`, {
      method: 'POST',
      headers: { 'X-API-Key': sandboxKey, 'content-type': 'application/json', 'Idempotency-Key': idem },
      body: JSON.stringify(CHECK),
    }).then((r) => expect(r.status).toBe(200));

  await page.getByTestId('nav-history').click();
  const rows = page.getByTestId('history-table').locator('tr[data-status]');
  await expect(rows).toHaveCount(0);
  // The stream is up: a check shows by itself.
  await check('resume-1');
  await expect(rows).toHaveCount(1);

  // Cut: the page goes offline, its event stream is dropped and nothing can reach the service.
  const reopened = page.waitForRequest((r) => r.url().includes('/console/events') && r.url().includes('lastEventId='));
  await page.context().setOffline(true);
  await check('resume-2');
  await check('resume-3');
  // Nothing of the two checks reached the page while it was cut off.
  await expect(rows).toHaveCount(1);

  // Restored: the stream resumes from the last id seen, and the missed events refresh the list.
  await page.context().setOffline(false);
  await reopened;
  await expect(rows).toHaveCount(3);
  await expect(rows.filter({ hasText: '0123456789' })).toHaveCount(3);
});
