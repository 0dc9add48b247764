// History search, the record view's provenance and the palette's id lookup, through the console's channels on a
// real service: identifier prefixes, names compared and returned, country codes and ids; another organization's
// checks are never found; search text is never query syntax.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/console/handlers';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { api, newKey, NG_OK, startTestService, TEST_PASSWORD, type TestService } from '../../helpers/harness';

let ts: TestService;
const ids: Record<string, string> = {};

async function call<T = Record<string, unknown>>(channel: string, input: unknown): Promise<T> {
  const r = await dispatch(ts.service.handlers, channel, input);
  if (!r.ok) throw new Error(`${channel}: ${JSON.stringify(r.error)}`);
  return r.value as T;
}
async function callError(channel: string, input: unknown) {
  const r = await dispatch(ts.service.handlers, channel, input);
  expect(r.ok).toBe(false);
  return (r as { error: { code: string } }).error;
}
const search = async (q: string, extra: Record<string, unknown> = {}) =>
  (await call<{ data: { id: string }[]; pagination: { total: number } }>('history:search', { environment: 'sandbox', q, ...extra })).data.map((r) => r.id);

beforeAll(async () => {
  ts = await startTestService();
  const key = ts.sandboxKey;
  const post = async (path: string, body: unknown) => {
    const r = await api(ts.url, 'POST', path, { key, idem: newKey(), body });
    expect(r.status, r.text).toBe(200);
    return r.body.id as string;
  };
  ids['ng'] = await post('/verify/account', NG_OK); // ADAEZE OKAFOR
  ids['ke'] = await post('/verify/identity', { country: 'KE', idType: 'national_id', idNumber: '12345678' }); // WANJIRU AKINYI KAMAU
  ids['phone'] = await post('/verify/phone', { country: 'GH', phoneNumber: '023 123 4567', networkCode: 'MTN' }); // typed local, shown +233231234567
  ids['ngConsole'] = (await call<{ id: string }>('verify:account', { environment: 'sandbox', request: { country: 'NG', accountNumber: '0690000031', bankCode: '044' } })).id;
  // Another organization's check with the same identifier must never be found.
  const other = await bootstrap(ts.service.deps, { email: `b-${randomUUID().slice(0, 8)}@example.com`, password: TEST_PASSWORD });
  const theirs = await api(ts.url, 'POST', '/verify/account', { key: other.keys.sandbox.key, idem: newKey(), body: NG_OK });
  ids['theirs'] = theirs.body.id;
});
afterAll(async () => {
  await ts.stop();
});

describe('History search', () => {
  it('finds by identifier prefix, separators ignored', async () => {
    expect(await search('01234')).toEqual([ids['ng']]);
    expect(await search('0123-456')).toEqual([ids['ng']]);
    expect(await search('1234')).toEqual([ids['ke']]);
    expect(await search('069')).toEqual([ids['ngConsole']]);
  });

  it('finds a phone number typed locally by its international form, whole or in groups (found by the console review)', async () => {
    expect(await search('+233231234567')).toEqual([ids['phone']]);
    expect(await search('+233 23 123')).toEqual([ids['phone']]);
    expect(await search('+233 231')).toEqual([ids['phone']]);
    expect(await search('00233231')).toEqual([ids['phone']]);
    expect(await search('0231')).toEqual([ids['phone']]);
    // Another market's calling code does not reach it.
    expect(await search('+234231')).toEqual([]);
  });

  it('finds by the names returned and by their start, accents and case ignored', async () => {
    expect(await search('okafor')).toEqual([ids['ng']]);
    expect(await search('Adae')).toEqual([ids['ng']]);
    // An identity check's returned names (split first/middle/last).
    expect(await search('kamau wanj')).toEqual([ids['ke']]);
    expect(await search('Kämau')).toEqual([ids['ke']]);
  });

  it('finds by country code and by id, newest first, combined with filters', async () => {
    expect(await search('ng')).toEqual([ids['ngConsole'], ids['ng']]);
    expect(await search('NG okafor')).toEqual([ids['ng']]);
    expect(await search(ids['ke']!)).toEqual([ids['ke']]);
    expect(await search(ids['ke']!.slice(0, 10))).toContain(ids['ke']);
    expect(await search('ng', { status: 'failed' })).toEqual([]);
    expect(await search('', { country: 'KE' })).toEqual([ids['ke']]);
    expect(await search('nobody-by-this-name')).toEqual([]);
  });

  it("never finds another organization's checks, and treats query syntax as text", async () => {
    for (const q of ['0123456789', 'okafor', ids['theirs']!]) expect(await search(q)).not.toContain(ids['theirs']);
    for (const q of ['"', '*', 'AND', 'OR NOT', '(', 'NEAR(a b)', 'names:x', '^', "'; DROP TABLE verifications; --"]) {
      await expect(search(q)).resolves.toBeInstanceOf(Array);
    }
    expect((await callError('history:search', { environment: 'sandbox', q: 'x'.repeat(201) })).code).toBe('VALIDATION_ERROR');
  });
});

describe('record view and id lookup', () => {
  it('shows the request as submitted and who ran it through which door', async () => {
    const viaApi = await call<{ request: unknown; provenance: unknown; record: { id: string } }>('history:record', { environment: 'sandbox', id: ids['ng'] });
    expect(viaApi.request).toEqual(NG_OK);
    expect(viaApi.provenance).toEqual({ actorType: 'api_key', actorId: ts.org!.keys.sandbox.id, actorLabel: expect.any(String), door: 'api' });
    const viaConsole = await call<{ provenance: unknown }>('history:record', { environment: 'sandbox', id: ids['ngConsole'] });
    expect(viaConsole.provenance).toMatchObject({ actorType: 'owner', actorLabel: ts.email, door: 'console' });
    expect((await callError('history:record', { environment: 'sandbox', id: ids['theirs'] })).code).toBe('NOT_FOUND');
    expect((await callError('history:record', { environment: 'live', id: ids['ng'] })).code).toBe('NOT_FOUND');
  });

  it('keeps provenance out of the public API record', async () => {
    const r = await api(ts.url, 'GET', `/verify/${ids['ng']}`, { key: ts.sandboxKey });
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body)).not.toMatch(/actor|door|provenance/i);
  });

  it('looks up ver_, key_ and whk_ ids of this organization only', async () => {
    expect(await call('lookup:id', { id: ids['ke'] })).toEqual({ kind: 'verification', id: ids['ke'], environment: 'sandbox' });
    expect(await call('lookup:id', { id: ts.org!.keys.live.id })).toEqual({ kind: 'key', id: ts.org!.keys.live.id, environment: 'live' });
    const hook = await api(ts.url, 'POST', '/client/webhooks', { key: ts.sandboxKey, body: { url: 'https://93.184.215.14/hooks', events: ['verification.completed'] } });
    expect(hook.status).toBe(201);
    expect(await call('lookup:id', { id: hook.body.id })).toEqual({ kind: 'webhook', id: hook.body.id, environment: 'sandbox' });
    expect((await callError('lookup:id', { id: ids['theirs'] })).code).toBe('NOT_FOUND');
    expect((await callError('lookup:id', { id: 'del_000000000000' })).code).toBe('NOT_FOUND');
  });
});
