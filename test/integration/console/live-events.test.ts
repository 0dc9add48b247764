// The web console's live event stream (GET /console/events): the console session and same-origin rules of the
// bridge, events after the commits that make them true, resume with Last-Event-ID, reset when a resume cannot be
// served, and no event of another organization.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it, describe } from 'vitest';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { getVerification } from '../../../src-main/core/verification/records';
import { api, newKey, NG_OK, startTestService, TEST_PASSWORD, type TestService } from '../../helpers/harness';
import { Stream, type Frame } from '../../helpers/event-stream';


let ts: TestService;
let origin: string;
let cookie: string;

async function open(headers: Record<string, string> = {}, query = ''): Promise<Stream> {
  const abort = new AbortController();
  const res = await fetch(`${ts.url}/console/events${query}`, { headers: { 'sec-fetch-site': 'same-origin', cookie, ...headers }, signal: abort.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return new Stream(res, abort);
}

async function consoleVerify(mode: 'sync' | 'async') {
  const r = await fetch(`${ts.url}/console/bridge/verify:account`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin, cookie },
    body: JSON.stringify({ environment: 'sandbox', request: mode === 'async' ? { ...NG_OK, mode } : NG_OK }),
  });
  const body = (await r.json()) as { ok: boolean; value: { id: string } };
  expect(body, JSON.stringify(body)).toMatchObject({ ok: true });
  return body.value.id;
}

const change = (kind: string, id: string) => (f: Frame) => f.event === 'change' && JSON.parse(f.data).kind === kind && JSON.parse(f.data).ids.verificationId === id;

beforeAll(async () => {
  ts = await startTestService({ webConsole: true });
  origin = `http://127.0.0.1:${ts.port}`;
  const token = new URL(ts.service.consoleUrl()!).hash.replace(/^#token=/, '');
  const s = await fetch(`${ts.url}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ token }) });
  cookie = (s.headers.get('set-cookie') ?? '').split(';')[0]!;
  await s.text();
});
afterAll(async () => {
  await ts.stop();
});

describe('console live events over SSE', () => {
  it('refuses a request without the console session, from another origin, or of unknown origin', async () => {
    const anon = await fetch(`${ts.url}/console/events`, { headers: { 'sec-fetch-site': 'same-origin' } });
    expect(anon.status).toBe(401);
    await anon.text();
    const cross = await fetch(`${ts.url}/console/events`, { headers: { origin: 'http://evil.example', cookie } });
    expect(cross.status).toBe(403);
    await cross.text();
    const crossSite = await fetch(`${ts.url}/console/events`, { headers: { 'sec-fetch-site': 'cross-site', cookie } });
    expect(crossSite.status).toBe(403);
    await crossSite.text();
    const unknown = await fetch(`${ts.url}/console/events`, { headers: { cookie } });
    expect(unknown.status).toBe(403);
    await unknown.text();
    // The page's own origin in an Origin header is accepted too.
    const own = await open({ origin });
    own.close();
  });

  it('announces an async check when it is created and again when it completes, after the commit', async () => {
    const s = await open();
    await s.next((f) => f.event === 'hello', 'hello');
    const id = await consoleVerify('async');
    const created = await s.next(change('verification.created', id), 'created event');
    const updated = await s.next(change('verification.updated', id), 'updated event');
    const ev = JSON.parse(updated.data);
    expect(ev).toMatchObject({ organizationId: ts.org!.organizationId, environment: 'sandbox', kind: 'verification.updated', ids: { verificationId: id } });
    // Ids increase, and what the event announces is already in the store when it arrives.
    const seq = (f: Frame) => Number(f.id!.split('-')[1]);
    expect(seq(updated)).toBeGreaterThan(seq(created));
    expect((await getVerification(ts.service.deps.sql, ts.org!.organizationId, 'sandbox', id))!.status).not.toBe('pending');
    s.close();
  });

  it('resumes with Last-Event-ID: what happened while disconnected is replayed, in order', async () => {
    const s = await open();
    const hello = await s.next((f) => f.event === 'hello', 'hello');
    s.close();
    const missed = [await consoleVerify('sync'), await consoleVerify('sync')];
    // The header, as a browser's EventSource sends it on reconnect.
    const again = await open({ 'last-event-id': hello.id! });
    for (const id of missed) await again.next(change('verification.created', id), `replayed ${id}`);
    const replayed = again.frames.filter((f) => f.event === 'change').map((f) => JSON.parse(f.data).ids.verificationId);
    expect(replayed.filter((v: string) => missed.includes(v))).toEqual(missed);
    expect(again.frames.some((f) => f.event === 'hello' || f.event === 'reset')).toBe(false);
    again.close();
    // The query parameter, for a client that had to start a new EventSource.
    const byQuery = await open({}, `?lastEventId=${encodeURIComponent(hello.id!)}`);
    await byQuery.next(change('verification.created', missed[1]!), 'replayed by query');
    byQuery.close();
  });

  it('sends a reset when the resume point cannot be served (another boot, or malformed)', async () => {
    for (const stale of ['zzzz-5', 'not an id']) {
      const s = await open({ 'last-event-id': stale });
      const reset = await s.next((f) => f.event === 'reset', 'reset');
      expect(reset.id).toMatch(/^[0-9a-z]+-\d+$/);
      s.close();
    }
  });

  it('announces a wallet balance change (organization-wide) and a webhook change', async () => {
    const s = await open();
    await s.next((f) => f.event === 'hello', 'hello');
    const r = await fetch(`${ts.url}/console/bridge/wallet:topUp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, cookie },
      body: JSON.stringify({ amount: 500, currency: 'USD' }),
    });
    expect(((await r.json()) as { ok: boolean }).ok).toBe(true);
    const wallet = await s.next((f) => f.event === 'change' && JSON.parse(f.data).kind === 'wallet.updated', 'wallet event');
    expect(JSON.parse(wallet.data)).toMatchObject({ organizationId: ts.org!.organizationId, environment: null, ids: {} });
    const hook = await api(ts.url, 'POST', '/client/webhooks', { key: ts.sandboxKey, body: { url: 'https://93.184.215.14/hooks', events: ['verification.completed'] } });
    expect(hook.status).toBe(201);
    await s.next((f) => f.event === 'change' && JSON.parse(f.data).kind === 'webhook.updated' && JSON.parse(f.data).ids.webhookId === hook.body.id, 'webhook event');
    s.close();
  });

  it("never sends another organization's events", async () => {
    const other = await bootstrap(ts.service.deps, { email: `b-${randomUUID().slice(0, 8)}@example.com`, password: TEST_PASSWORD });
    const s = await open();
    await s.next((f) => f.event === 'hello', 'hello');
    const theirs = await api(ts.url, 'POST', '/verify/account', { key: other.keys.sandbox.key, idem: newKey(), body: NG_OK });
    expect(theirs.status).toBe(200);
    // Ours comes after theirs: once it has arrived, theirs would have too.
    const ours = await consoleVerify('sync');
    await s.next(change('verification.created', ours), 'our event');
    const orgs = s.frames.filter((f) => f.event === 'change').map((f) => JSON.parse(f.data).organizationId);
    expect(new Set(orgs)).toEqual(new Set([ts.org!.organizationId]));
    expect(s.frames.some((f) => f.data.includes(theirs.body.id))).toBe(false);
    s.close();
  });
});
