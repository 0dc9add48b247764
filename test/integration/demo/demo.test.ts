// Demo data (issue 23): loading writes a month of sandbox activity through the core paths, only in the sandbox,
// every row listed in demo_records; removal deletes exactly those rows (load then remove leaves every table's row
// count as it was, apart from the audit entries), never a live record nor one a user made, also while loaded;
// both actions are in the audit trail, which still verifies. The CLI does the same against a running service's store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/console/handlers';
import { allEntries, verifyStore } from '../../../src-main/core/audit/audit-log';
import { setRegistrationResolverForTests } from '../../../src-main/core/webhooks/webhooks-service';
import { api, NG_OK, startTestService, type TestService } from '../../helpers/harness';
import { runCli } from '../../reliability/child-service';

let ts: TestService;
const seed = Number(process.env['VC_DEMO_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

/** Row counts of every table but the audit trail's own (its entries of the two actions are expected to stay). */
function counts(): Record<string, number> {
  const db = ts.service.deps.db;
  const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'verification_search%'`).all() as { name: string }[])
    .map((t) => t.name)
    .filter((n) => n !== 'audit_events');
  return Object.fromEntries(tables.map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]));
}

async function call<T = any>(channel: string, input: unknown = {}): Promise<T> {
  const r = await dispatch(ts.service.handlers, channel, input);
  if (!r.ok) throw new Error(`${channel}: ${JSON.stringify(r.error)}`);
  return r.value as T;
}

const db0 = () => ts.service.deps.db;
const ids = { liveKey: '', sandboxCheck: '', userWebhook: '', user: '' };

beforeAll(async () => {
  setRegistrationResolverForTests(async () => ['93.184.215.14']);
  ts = await startTestService();
  // What a user made before the demo: a live key, a sandbox check through the API, a sandbox webhook, a teammate.
  ids.liveKey = (await call<{ id: string }>('keys:create', { name: 'production', environment: 'live' })).id;
  const check = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: `user-${seed}`, body: NG_OK });
  expect(check.status).toBe(200);
  ids.sandboxCheck = check.body.id;
  ids.userWebhook = (await call<{ id: string }>('webhooks:create', { environment: 'sandbox', request: { url: 'https://hooks.example.net/mine', events: ['verification.completed'] } })).id;
  ids.user = (await call<{ id: string }>('users:create', { email: 'teammate@example.com', password: 'correct horse battery staple', role: 'DEVELOPER' })).id;
}, 60_000);

afterAll(async () => {
  setRegistrationResolverForTests(null);
  await ts?.stop();
});

describe('demo data', () => {
  it(`loads a month of sandbox activity and removes exactly it (seed ${seed})`, async () => {
    const before = counts();
    const auditBefore = allEntries(ts.service.deps.db, ts.org!.organizationId).length;
    expect(await call('demo:status')).toEqual({ present: false, records: 0, byTable: {} });

    const loaded = await call<{ checks: number; routingChecks: number; records: number; seed: number }>('demo:load', { days: 30 });
    expect(loaded.checks).toBeGreaterThan(300);
    // Payment-routing lookups too, in the sandbox, through the routing core.
    expect(loaded.routingChecks).toBeGreaterThan(0);
    const routingRows = db0().prepare(`SELECT environment FROM routing_checks WHERE id IN (SELECT record_id FROM demo_records WHERE table_name = 'routing_checks')`).all() as { environment: string }[];
    expect(routingRows).toHaveLength(loaded.routingChecks);
    expect(routingRows.every((r) => r.environment === 'sandbox')).toBe(true);
    const db = ts.service.deps.db;
    const demoIds = (db.prepare(`SELECT record_id FROM demo_records WHERE table_name = 'verifications'`).all() as { record_id: string }[]).map((r) => r.record_id);
    expect(demoIds).toHaveLength(loaded.checks);
    const rows = db
      .prepare(`SELECT kind, status, environment, country, created_at FROM verifications WHERE id IN (SELECT record_id FROM demo_records WHERE table_name = 'verifications')`)
      .all() as { kind: string; status: string; environment: string; country: string; created_at: string }[];
    // Sandbox only; several kinds, corridors and outcomes; mostly successes; spread over the month's working hours.
    expect(new Set(rows.map((r) => r.environment))).toEqual(new Set(['sandbox']));
    expect(new Set(rows.map((r) => r.kind))).toEqual(new Set(['account', 'phone', 'identity', 'face']));
    expect(new Set(rows.map((r) => r.country)).size).toBeGreaterThanOrEqual(8);
    const success = rows.filter((r) => r.status === 'success').length;
    expect(success / rows.length).toBeGreaterThan(0.5);
    expect(rows.some((r) => r.status === 'failed')).toBe(true);
    expect(new Set(rows.map((r) => r.created_at.slice(0, 10))).size).toBeGreaterThanOrEqual(28);
    for (const r of rows) {
      const h = Number(r.created_at.slice(11, 13));
      expect(h >= 8 && h < 19, `check at ${r.created_at}`).toBe(true);
    }
    // Users, keys and the webhook were made through the core: each has its audit entry.
    const status = await call<{ present: boolean; byTable: Record<string, number> }>('demo:status');
    expect(status.present).toBe(true);
    expect(status.byTable).toMatchObject({ users: 2, api_keys: 2, webhooks: 1 });
    const actions = allEntries(db, ts.org!.organizationId).slice(auditBefore).map((e) => e.action);
    expect(actions.filter((a) => a === 'user.created')).toHaveLength(2);
    expect(actions.filter((a) => a === 'key.created')).toHaveLength(2);
    expect(actions).toContain('webhook.created');
    // The webhook story, through the dispatcher's own attempt code against the loader's receiver: sample events on
    // day one (one retried), a receiver outage that turns the webhook failed, its recovery, one more retried.
    const hookId = (db.prepare(`SELECT record_id FROM demo_records WHERE table_name = 'webhooks'`).get() as { record_id: string }).record_id;
    const deliveries = db.prepare('SELECT status, attempts FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at_ms').all(hookId) as { status: string; attempts: number }[];
    expect(deliveries.filter((d) => d.status === 'success' && d.attempts === 2)).toHaveLength(2);
    expect(deliveries.filter((d) => d.status === 'failed')).toEqual([{ status: 'failed', attempts: 5 }]);
    expect(deliveries.every((d) => d.status !== 'pending')).toBe(true);
    expect(actions).toEqual(expect.arrayContaining(['webhook.failed', 'webhook.reenabled', 'webhook.recovered']));
    // Left inactive: nothing is sent to the stopped receiver afterwards.
    expect((db.prepare('SELECT status FROM webhooks WHERE id = ?').get(hookId) as { status: string }).status).toBe('inactive');
    expect(actions[actions.length - 1]).toBe('demo.loaded');
    // No webhook was sent a demo event: the user's active sandbox webhook has no delivery.
    expect((db.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?').get(ids.userWebhook) as { n: number }).n).toBe(0);

    // Loading twice is refused; the story is not doubled.
    const again = await dispatch(ts.service.handlers, 'demo:load', {});
    expect(again.ok).toBe(false);

    // A user works in the sandbox while the demo is loaded: that check is theirs and survives removal.
    const mine = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: `during-${seed}`, body: NG_OK });
    expect(mine.status).toBe(200);

    const removed = await call<{ total: number; removed: Record<string, number> }>('demo:remove');
    expect(removed.total).toBe(loaded.records);
    expect(await call('demo:status')).toEqual({ present: false, records: 0, byTable: {} });
    const after = counts();
    // Everything is as before, plus the user's one check and its idempotency key.
    expect(after).toEqual({ ...before, verifications: before['verifications']! + 1, idempotency_keys: before['idempotency_keys']! + 1 });
    for (const [table, id] of [['api_keys', ids.liveKey], ['verifications', ids.sandboxCheck], ['verifications', mine.body.id], ['webhooks', ids.userWebhook], ['users', ids.user]] as const) {
      expect(db.prepare(`SELECT 1 FROM ${table} WHERE id = ?`).get(id), `${table} ${id}`).toBeTruthy();
    }
    const last = allEntries(db, ts.org!.organizationId).at(-1)!;
    expect(last.action).toBe('demo.removed');
    expect(last.door).toBe('console');
    expect(verifyStore(db).every((r) => r.ok)).toBe(true);
    // Removing again removes nothing and writes no entry.
    expect((await call<{ total: number }>('demo:remove')).total).toBe(0);
    expect(allEntries(db, ts.org!.organizationId).at(-1)!.id).toBe(last.id);
  }, 120_000);

  it('the CLI loads and removes against a running service, with progress lines and --json', async () => {
    const before = counts();
    const load = await runCli(['demo', 'load', '--days', '3', '--seed', String(seed), '--data-dir', ts.dataDir, '--json']);
    expect(load.code, load.stderr).toBe(0);
    const result = JSON.parse(load.stdout) as { checks: number; records: number; seed: number };
    expect(result.seed).toBe(seed);
    const progress = load.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { phase: string; done: number; total: number });
    expect(progress.at(-1)).toMatchObject({ phase: 'done', done: result.checks });
    expect(progress.some((p) => p.phase === 'checks')).toBe(true);
    // The running service sees the demo data at once (same store).
    expect((await call<{ records: number }>('demo:status')).records).toBe(result.records);
    const bad = await runCli(['demo', 'load', '--days', '0', '--data-dir', ts.dataDir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--days is a whole number from 1 to 90/);
    const remove = await runCli(['demo', 'remove', '--data-dir', ts.dataDir, '--json']);
    expect(remove.code, remove.stderr).toBe(0);
    expect((JSON.parse(remove.stdout) as { total: number }).total).toBe(result.records);
    expect(counts()).toEqual(before);
    const actions = allEntries(ts.service.deps.db, ts.org!.organizationId).map((e) => `${e.action}/${e.door}`);
    expect(actions.slice(-2)).toEqual(['demo.loaded/cli', 'demo.removed/cli']);
  }, 180_000);
});
