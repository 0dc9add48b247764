// The console's channels answer the same on PostgreSQL as on SQLite: one script of channel calls — keys, checks of
// every kind (sync, async through the queue, live and charged), wallet, prices, usage, webhooks and their filters,
// History search, the dashboard, users (deactivated and back), the audit log and its filters (case ignored),
// routing, settings, configuration export — run against a service on each engine with the same clock, and the
// answers compared after ids, secrets and hashes (random by nature) are numbered in order of appearance. The clock
// stands still, so every list's order rests on its tie-break (SQLite's rowid, PostgreSQL's id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/console/handlers';
import { ManualClock } from '../../../src-main/core/clock';
import { enableLive, startTestService, TEST_PASSWORD, type TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';

let db: TestDatabase;
const services: TestService[] = [];

beforeAll(async () => {
  db = await freshDatabase();
}, 60_000);

afterAll(async () => {
  for (const s of services) await s.stop();
  await db?.drop();
});

/** Public IP literals: the URL rules accept them without DNS; deliveries to them are not awaited here. */
const HOOK = 'https://93.184.216.34/hooks/parity';

type Step = [channel: string, input: object | ((ids: Record<string, string>) => object)];

/** The script: each step's answer is recorded; `ids` collects what later steps refer to. */
const SCRIPT: Step[] = [
  ['app:info', {}],
  ['keys:list', {}],
  ['keys:create', { name: 'Parity key', environment: 'sandbox' }],
  ['wallet:topUp', { amount: 10_000, currency: 'USD' }],
  ['prices:set', { service: 'phone:KE', amount: 20, currency: 'USD' }],
  ['services:enable', { service: 'phone:KE' }],
  ['prices:list', {}],
  ['services:list', {}],
  ['wallet:get', {}],
  ['verify:account', { environment: 'sandbox', request: { country: 'NG', accountNumber: '0123456789', bankCode: '058' } }],
  ['verify:account', { environment: 'sandbox', request: { country: 'NG', accountNumber: '0000000000', bankCode: '058' } }],
  ['verify:account', { environment: 'sandbox', request: { country: 'NG', accountNumber: '0123456789', bankCode: '058', accountName: 'Adaeze Okafor' } }],
  ['verify:account', { environment: 'live', request: { country: 'NG', accountNumber: '0123456789', bankCode: '058' } }],
  ['verify:account', { environment: 'sandbox', request: { country: 'NG', accountNumber: '0123456789', bankCode: '058', mode: 'async' } }],
  ['verify:phone', { environment: 'sandbox', request: { country: 'KE', phoneNumber: '+254712345678' } }],
  ['verify:address', { environment: 'sandbox', request: { country: 'GB', addressLine1: '10 Downing Street', city: 'London', postalCode: 'SW1A 2AA' } }],
  ['wallet:get', {}],
  ['usage:list', { query: {} }],
  ['verify:list', { environment: 'sandbox', query: {} }],
  ['verify:list', { environment: 'sandbox', query: { status: 'failed' } }],
  ['history:search', { environment: 'sandbox', q: '' }],
  ['history:search', { environment: 'sandbox', q: '0123' }],
  ['history:search', { environment: 'sandbox', q: 'ada' }],
  ['history:search', { environment: 'sandbox', q: 'ng 0000' }],
  ['history:search', { environment: 'sandbox', q: 'zzz' }],
  ['history:search', { environment: 'live', q: '0123' }],
  ['webhooks:create', { environment: 'sandbox', request: { url: HOOK, events: ['verification.completed'], description: 'completed only' } }],
  ['webhooks:create', { environment: 'sandbox', request: { url: `${HOOK}/2`, events: ['verification.completed', 'verification.failed'] } }],
  ['webhooks:list', { environment: 'sandbox', query: {} }],
  ['webhooks:list', { environment: 'sandbox', query: { event: 'verification.failed' } }],
  ['webhooks:update', (ids) => ({ environment: 'sandbox', id: ids['webhook'], patch: { status: 'inactive' } })],
  ['webhooks:rotate', (ids) => ({ environment: 'sandbox', id: ids['webhook'] })],
  ['webhooks:list', { environment: 'sandbox', query: { status: 'inactive' } }],
  ['webhooks:deliveries', (ids) => ({ environment: 'sandbox', webhookId: ids['webhook'], query: {} })],
  ['webhooks:alerts', { environment: 'sandbox' }],
  ['keys:revoke', (ids) => ({ id: ids['key'] })],
  ['keys:list', {}],
  ['dashboard:summary', { environment: 'sandbox', since: '2026-11-01' }],
  ['dashboard:summary', { environment: 'live', since: '2026-11-01' }],
  ['users:create', { email: 'Analyst@Parity.test', password: TEST_PASSWORD, role: 'DEVELOPER' }],
  ['users:list', {}],
  ['users:setRole', (ids) => ({ id: ids['user'], role: 'ADMIN' })],
  ['users:deactivate', (ids) => ({ id: ids['user'] })],
  ['users:reactivate', (ids) => ({ id: ids['user'] })],
  ['users:list', {}],
  ['audit:list', {}],
  ['audit:list', { action: 'USER.' }],
  ['audit:list', { actor: 'web CONSOLE' }],
  ['audit:verify', {}],
  ['routing:bic', { environment: 'sandbox', request: { bic: 'DEUTDEFF' } }],
  ['routing:correspondents', { environment: 'sandbox', request: { bic: 'DEUTDEFF' } }],
  ['routing:directories', {}],
  ['settings:get', {}],
  ['config:export', {}],
  ['providers:list', {}],
  ['sandbox:fixtures', {}],
  ['lookup:id', (ids) => ({ id: ids['verification'] })],
  ['history:record', (ids) => ({ environment: 'sandbox', id: ids['verification'] })],
];

/** Runs the script; the answers with every random value numbered by first appearance. */
async function run(ts: TestService): Promise<string[]> {
  await enableLive(ts);
  const ids: Record<string, string> = {};
  const out: string[] = [];
  for (const [channel, input] of SCRIPT) {
    const r = await dispatch(ts.service.handlers, channel, typeof input === 'function' ? input(ids) : input);
    if (r.ok) {
      const v = r.value as Record<string, unknown>;
      if (channel === 'users:create') ids['user'] = String(v['id']);
      if (channel === 'keys:create') ids['key'] = String(v['id']);
      if (channel === 'webhooks:create' && !ids['webhook']) ids['webhook'] = String(v['id']);
      if (channel === 'verify:account' && !ids['verification']) ids['verification'] = String(v['id']);
      // The async check and the address check complete through the queue before the next step reads them.
      if (channel.startsWith('verify:')) await ts.service.worker.drain();
    }
    out.push(`${channel} ${JSON.stringify(r)}`);
  }
  const seen = new Map<string, string>();
  const number = (kind: string) => (m: string) => {
    if (!seen.has(m)) seen.set(m, `${kind}#${[...seen.values()].filter((v) => v.startsWith(`${kind}#`)).length + 1}`);
    return seen.get(m)!;
  };
  return out.map((line) =>
    line
      .replace(/\b(ver|whk|del|evt|key|org|usr|rte|bat|ses|job|led|use|aud|whf|rcv)_[0-9a-f]{24}\b/g, (m) => number(m.slice(0, 3))(m))
      .replace(/whsec_[0-9a-f]{64}/g, number('whsec'))
      .replace(/\bsvc_(sandbox|live)_[A-Za-z0-9_-]+/g, number('apikey'))
      .replace(/\b[0-9a-f]{64}\b/g, number('hash'))
      .replace(/"(dataDir|apiBaseUrl)":"[^"]*"/g, '"$1":"…"')
      .replace(/"secretPrefix":"whsec_[0-9a-f]+"/g, '"secretPrefix":"…"')
      .replaceAll(`:${ts.port}`, ':PORT')
      .replaceAll(`"port":${ts.port}`, '"port":"PORT"'),
  );
}

describe('console channels on both engines', () => {
  it('answer the same script the same way, step by step', async () => {
    const clock = () => new ManualClock();
    const sqlite = await startTestService({ clock: clock(), bootstrap: { email: 'owner@parity.test' } });
    services.push(sqlite);
    const pg = await startTestService({ clock: clock(), bootstrap: { email: 'owner@parity.test' }, databaseUrl: db.url });
    services.push(pg);
    expect(sqlite.databaseUrl).toBeNull();
    const [a, b] = [await run(sqlite), await run(pg)];
    // Not vacuous: every step succeeds (on SQLite, and so on both).
    expect(a.filter((l) => !l.startsWith(`${l.split(' ')[0]} {"ok":true`))).toEqual([]);
    for (let i = 0; i < SCRIPT.length; i++) expect(b[i], `step ${i + 1}: ${SCRIPT[i]![0]}`).toBe(a[i]);
  });
});
