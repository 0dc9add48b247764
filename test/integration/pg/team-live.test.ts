// A team server: two instances of the real service on one PostgreSQL database (docs/team-server.md, "Live events
// and settings across instances"). A console connected to one instance sees the changes made through the other; a
// setting saved through one is in effect on the other; an instance whose LISTEN connection was cut tells its
// consoles to fetch afresh (a reset) once it listens again, and events flow again.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getVerification } from '../../../src-main/core/verification/records';
import { api, newKey, NG_OK, type TestService } from '../../helpers/harness';
import { Stream, type Frame } from '../../helpers/event-stream';
import { startInstances } from '../../helpers/team-instances';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';


/** A web console session on one instance (its one-time link). */
interface Console {
  ts: TestService;
  origin: string;
  cookie: string;
}

async function openConsole(ts: TestService): Promise<Console> {
  const origin = `http://127.0.0.1:${ts.port}`;
  const token = new URL(ts.service.consoleUrl()!).hash.replace(/^#token=/, '');
  const s = await fetch(`${ts.url}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ token }) });
  const text = await s.text();
  expect(s.status, text).toBe(200);
  return { ts, origin, cookie: (s.headers.get('set-cookie') ?? '').split(';')[0]! };
}

async function call<T>(c: Console, channel: string, input: unknown): Promise<T> {
  const r = await fetch(`${c.ts.url}/console/bridge/${channel}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: c.origin, cookie: c.cookie }, body: JSON.stringify(input) });
  const body = (await r.json()) as { ok: boolean; value: T };
  expect(body, JSON.stringify(body)).toMatchObject({ ok: true });
  return body.value;
}

async function stream(c: Console): Promise<Stream> {
  const abort = new AbortController();
  const res = await fetch(`${c.ts.url}/console/events`, { headers: { 'sec-fetch-site': 'same-origin', cookie: c.cookie }, signal: abort.signal });
  expect(res.status).toBe(200);
  const s = new Stream(res, abort);
  await s.next((f) => f.event === 'hello', 'hello');
  return s;
}

/** Polls until `read()` gives `want`, for a few seconds at most ("eventually", never "within N ms"). */
async function eventually<T>(read: () => Promise<T>, want: T, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  let last: T = await read();
  while (last !== want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    last = await read();
  }
  expect(last, what).toBe(want);
}

const change = (kind: string, id: string) => (f: Frame) => f.event === 'change' && JSON.parse(f.data).kind === kind && JSON.parse(f.data).ids.verificationId === id;

let db: TestDatabase;
let a: TestService;
let b: TestService;
let consoleA: Console;
let consoleB: Console;

beforeAll(async () => {
  db = await freshDatabase();
  // Every instance has its own data folder and the same data box key (webhook secrets are sealed with it).
  [a, b] = (await startInstances(db.url, 2, { webConsole: true })) as [TestService, TestService];
  consoleA = await openConsole(a);
  consoleB = await openConsole(b);
}, 60_000);

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await db?.drop();
});

describe('two instances on one PostgreSQL database', () => {
  it("a console stream on B receives the change event of a verification made through A's API, once it can be read", async () => {
    const s = await stream(consoleB);
    const r = await api(a.url, 'POST', '/verify/account', { key: a.sandboxKey, idem: newKey(), body: NG_OK });
    expect(r.status, r.text).toBe(200);
    const created = await s.next(change('verification.created', r.body.id), 'the created event on B');
    expect(JSON.parse(created.data)).toMatchObject({ organizationId: a.org!.organizationId, environment: 'sandbox', kind: 'verification.created', ids: { verificationId: r.body.id } });
    // The event is sent at the commit: what it announces can be read through B when it arrives.
    expect(await getVerification(b.service.deps.sql, a.org!.organizationId, 'sandbox', r.body.id)).toMatchObject({ id: r.body.id });
    s.close();
  });

  it("a wallet top-up through A's console reaches a console on B (organization-wide), and B's changes reach A", async () => {
    const onB = await stream(consoleB);
    const onA = await stream(consoleA);
    await call(consoleA, 'wallet:topUp', { amount: 500, currency: 'USD' });
    const wallet = await onB.next((f) => f.event === 'change' && JSON.parse(f.data).kind === 'wallet.updated', 'the wallet event on B');
    expect(JSON.parse(wallet.data)).toMatchObject({ organizationId: a.org!.organizationId, environment: null, ids: {} });
    const viaB = await call<{ id: string }>(consoleB, 'verify:account', { environment: 'sandbox', request: NG_OK });
    await onA.next(change('verification.created', viaB.id), 'the event of a check made through B, on A');
    onA.close();
    onB.close();
  });

  it('a rate limit saved through A is in effect on B', async () => {
    const running = async () => (await call<{ running: { rateLimitPerMinute: number } }>(consoleB, 'settings:get', {})).running.rateLimitPerMinute;
    expect(await running()).not.toBe(3);
    await call(consoleA, 'settings:update', { rateLimitPerMinute: 3 });
    await eventually(running, 3, "B's rate limit");
    // In effect on B's door: within one window (a minute, begun at most once during these requests) of B's own
    // count, a key is refused after three requests.
    const statuses: number[] = [];
    for (let i = 0; i < 7 && !statuses.includes(429); i++) statuses.push((await api(b.url, 'GET', '/client/webhooks', { key: a.liveKey })).status);
    expect(statuses).toContain(429);
    await call(consoleA, 'settings:update', { rateLimitPerMinute: 6000 });
    await eventually(running, 6000, "B's rate limit, back");
  });

  it('an instance whose LISTEN connection was cut sends its consoles a reset once it listens again, then events again', async () => {
    const s = await stream(consoleB);
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE '% listen'");
      expect(cut.rowCount).toBe(2);
    } finally {
      await admin.end();
    }
    await s.next((f) => f.event === 'reset', 'a reset on B');
    const r = await api(a.url, 'POST', '/verify/account', { key: a.sandboxKey, idem: newKey(), body: NG_OK });
    expect(r.status, r.text).toBe(200);
    await s.next(change('verification.created', r.body.id), 'the created event on B after the reset');
    s.close();
  });
});
