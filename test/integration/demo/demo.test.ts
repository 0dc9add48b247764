// Demo data (issue 23): loading writes a month of sandbox activity through the core paths, only in the sandbox,
// every row listed in demo_records — a finished batch CSV with its result files among it; removal deletes exactly
// those rows and the demo batch's files (load then remove leaves every table's row count and the batch folders as
// they were, apart from the audit entries), never a live record nor one a user made (a batch included), also while
// loaded; both actions are in the audit trail, which still verifies. The CLI does the same against a running
// service's store.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/console/handlers';
import { allEntries, verifyStore } from '../../../src-main/core/audit/audit-log';
import { batchJobsFor } from '../../../src-main/core/routing/batch-jobs';
import { setRegistrationResolverForTests } from '../../../src-main/core/webhooks/webhooks-service';
import { api, NG_OK, sqliteOnly, startTestService, type TestService } from '../../helpers/harness';
import { runCli } from '../../reliability/child-service';

let ts: TestService;
let inputs: string;
let origin: string;
let cookie: string;
const seed = Number(process.env['VC_DEMO_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

/** Every file and folder under the batches' result folders and the demo's input folder, relative to the data folder. */
function files(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      out.push(`${relative(ts.dataDir, p)}${e.isDirectory() ? '/' : ''}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(join(ts.dataDir, 'batches'));
  walk(join(ts.dataDir, 'demo'));
  return out.sort();
}

/** A user's own batch CSV, checked to the end through the console channel. */
async function userBatch(name: string, environment: 'sandbox' | 'live'): Promise<{ id: string; resultPath: string }> {
  const path = join(inputs, name);
  writeFileSync(path, ['payee,swift_code', 'Acme,DEUTDEFF', 'Typo,DEUT12FF', 'Other,BARCGB22'].join('\r\n'));
  const started = await call<{ id: string }>('batch:start', { path, environment });
  const job = await batchJobsFor(ts.service.deps, ts.dataDir).wait(ts.org!.organizationId, started.id);
  expect(job.status).toBe('done');
  return { id: job.id, resultPath: job.resultPath! };
}

/** Row counts of every table but the audit trail's own (its entries of the two actions are expected to stay). */
function counts(): Record<string, number> {
  const db = ts.service.deps.db!;
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

const db0 = () => ts.service.deps.db!;
const ids = { liveKey: '', sandboxCheck: '', userWebhook: '', user: '', sandboxBatch: '', liveBatch: '' };

beforeAll(async () => {
  setRegistrationResolverForTests(async () => ['93.184.215.14']);
  ts = await startTestService({ webConsole: true });
  inputs = mkdtempSync(join(tmpdir(), 'vc-demo-inputs-'));
  // A console session of the web console, for the result files' download route.
  origin = `http://127.0.0.1:${ts.port}`;
  const token = new URL(ts.service.consoleUrl()!).hash.replace(/^#token=/, '');
  const session = await fetch(`${ts.url}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ token }) });
  cookie = (session.headers.get('set-cookie') ?? '').split(';')[0]!;
  await session.text();
  // What a user made before the demo: a live key, a sandbox check through the API, a sandbox webhook, a teammate,
  // a sandbox and a live batch CSV.
  ids.liveKey = (await call<{ id: string }>('keys:create', { name: 'production', environment: 'live' })).id;
  const check = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: `user-${seed}`, body: NG_OK });
  expect(check.status).toBe(200);
  ids.sandboxCheck = check.body.id;
  ids.userWebhook = (await call<{ id: string }>('webhooks:create', { environment: 'sandbox', request: { url: 'https://hooks.example.net/mine', events: ['verification.completed'] } })).id;
  ids.user = (await call<{ id: string }>('users:create', { email: 'teammate@example.com', password: 'correct horse battery staple', role: 'DEVELOPER' })).id;
  ids.sandboxBatch = (await userBatch('my-payees.csv', 'sandbox')).id;
  ids.liveBatch = (await userBatch('live-payees.csv', 'live')).id;
}, 60_000);

afterAll(async () => {
  setRegistrationResolverForTests(null);
  await ts?.stop();
  if (inputs) rmSync(inputs, { recursive: true, force: true });
});

// The demo loader works on the SQLite store only (its temporary triggers; it refuses on PostgreSQL).
sqliteOnly.describe('demo data', () => {
  it(`loads a month of sandbox activity and removes exactly it (seed ${seed})`, async () => {
    const before = counts();
    const filesBefore = files();
    expect(filesBefore.filter((f) => f.endsWith('results.csv'))).toHaveLength(2);
    const auditBefore = (await allEntries(ts.service.deps.sql, ts.org!.organizationId)).length;
    expect(await call('demo:status')).toEqual({ present: false, records: 0, byTable: {}, tour: null });

    const loaded = await call<{ checks: number; routingChecks: number; records: number; seed: number; batch: { id: string; rows: number; invalid: number } }>('demo:load', { days: 30 });
    expect(loaded.checks).toBeGreaterThan(300);
    // Payment-routing lookups too, in the sandbox, through the routing core.
    expect(loaded.routingChecks).toBeGreaterThan(0);
    const routingRows = db0().prepare(`SELECT environment FROM routing_checks WHERE id IN (SELECT record_id FROM demo_records WHERE table_name = 'routing_checks')`).all() as { environment: string }[];
    expect(routingRows).toHaveLength(loaded.routingChecks);
    expect(routingRows.every((r) => r.environment === 'sandbox')).toBe(true);
    const db = ts.service.deps.db!;
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
    expect(status.byTable).toMatchObject({ users: 2, api_keys: 2, webhooks: 1, routing_batches: 1 });
    const actions = (await allEntries(ts.service.deps.sql, ts.org!.organizationId)).slice(auditBefore).map((e) => e.action);
    expect(actions.filter((a) => a === 'user.created')).toHaveLength(2);
    expect(actions.filter((a) => a === 'key.created')).toHaveLength(2);
    expect(actions).toContain('webhook.created');
    // The webhook story, through the dispatcher's own attempt code against the loader's receiver: sample events on
    // day one (one retried), a receiver outage that turns the webhook failed, its recovery, one more retried.
    const hookId = (db.prepare(`SELECT record_id FROM demo_records WHERE table_name = 'webhooks'`).get() as { record_id: string }).record_id;
    // The tour's targets are the demo's own, from its marks (found by the late review: the console guessed them by
    // time, and took a failed check of the user's for the demo's).
    const tour = (await call<{ tour: { failedId: string; webhookId: string; deliveryId: string; batchId: string } }>('demo:status')).tour;
    const isDemo = (table: string, id: string) => db.prepare('SELECT 1 FROM demo_records WHERE table_name = ? AND record_id = ?').get(table, id) !== undefined;
    expect(tour.webhookId).toBe(hookId);
    expect(isDemo('verifications', tour.failedId)).toBe(true);
    expect(isDemo('webhook_deliveries', tour.deliveryId)).toBe(true);
    expect(isDemo('routing_batches', tour.batchId)).toBe(true);
    expect((db.prepare('SELECT status FROM verifications WHERE id = ?').get(tour.failedId) as { status: string }).status).toBe('failed');
    const deliveries = db.prepare('SELECT id, status, attempts FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at_ms').all(hookId) as { id: string; status: string; attempts: number }[];
    expect(deliveries).toHaveLength(7);
    expect(deliveries.filter((d) => d.status === 'success' && d.attempts === 2)).toHaveLength(2);
    expect(deliveries.every((d) => d.status === 'success')).toBe(true);
    // Failed, then recovered: five scheduled attempts refused by the stopped receiver, then "Retry now" after the
    // webhook's recovery, which succeeds.
    const recovered = deliveries.filter((d) => d.attempts === 6);
    expect(recovered).toHaveLength(1);
    const log = db.prepare('SELECT attempt, kind, status_code AS code FROM webhook_attempts WHERE delivery_id = ? ORDER BY seq').all(recovered[0]!.id) as { attempt: number; kind: string; code: number }[];
    expect(log.map((a) => `${a.attempt}:${a.kind}:${a.code}`)).toEqual(['1:scheduled:503', '2:scheduled:503', '3:scheduled:503', '4:scheduled:503', '5:scheduled:503', '6:manual:200']);
    // Every attempt row of the story is listed as demo data.
    const attemptRows = (db.prepare('SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?)').get(hookId) as { n: number }).n;
    expect(status.byTable['webhook_attempts']).toBe(attemptRows);
    expect(status.byTable['webhook_deliveries']).toBe(7);
    expect(actions).toEqual(expect.arrayContaining(['webhook.failed', 'webhook.reenabled', 'webhook.recovered']));
    // Left inactive: nothing is sent to the stopped receiver afterwards.
    expect((db.prepare('SELECT status FROM webhooks WHERE id = ?').get(hookId) as { status: string }).status).toBe('inactive');
    expect(actions[actions.length - 1]).toBe('demo.loaded');
    // No webhook was sent a demo event: the user's active sandbox webhook has no delivery.
    expect((db.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?').get(ids.userWebhook) as { n: number }).n).toBe(0);

    // The finished batch CSV: a payouts file checked through the console's batch path, in the sandbox, at a time of
    // the story, its result files in the batch's folder, listed in the console's batch history and downloadable.
    const batchId = (db.prepare(`SELECT record_id FROM demo_records WHERE table_name = 'routing_batches'`).get() as { record_id: string }).record_id;
    expect(batchId).toBe(loaded.batch.id);
    const list = await call<{ id: string; status: string }[]>('batch:list', { limit: 50, offset: 0 });
    const job = await call<{ id: string; environment: string; status: string; inputName: string; rows: number; valid: number; invalid: number; reasons: Record<string, number>; resultPath: string; invalidOnlyPath: string; startedAt: string; finishedAt: string }>('batch:progress', { id: batchId });
    expect(list.map((j) => j.id)).toContain(batchId);
    expect(job).toMatchObject({ environment: 'sandbox', status: 'done', rows: 300, valid: 280, invalid: 20 });
    expect(job.inputName).toMatch(/^supplier-payouts-\d{4}-\d{2}\.csv$/);
    expect(job.reasons).toEqual({ ROUTING_NUMBER_FORMAT: 5, ROUTING_NUMBER_CHECKSUM: 4, BIC_MALFORMED: 4, TEST_NUMBER_NOT_FOUND: 4, AMBIGUOUS_ROW: 2, MISSING_IDENTIFIER: 1 });
    const storyDays = new Set(rows.map((r) => r.created_at.slice(0, 10)));
    expect(storyDays.has(job.startedAt.slice(0, 10))).toBe(true);
    expect(Date.parse(job.finishedAt)).toBeGreaterThan(Date.parse(job.startedAt));
    expect(job.resultPath).toBe(join(ts.dataDir, 'batches', batchId, 'results.csv'));
    expect(readFileSync(job.resultPath, 'utf8').trim().split('\r\n')).toHaveLength(301);
    const invalidRows = await call<{ total: number; headers: string[] }>('batch:results', { id: batchId, invalidOnly: true, offset: 0, limit: 25 });
    expect(invalidRows.total).toBe(20);
    expect(invalidRows.headers).toEqual(expect.arrayContaining(['payee_name', 'bic', 'routing_number', 'valid', 'reasons']));
    const download = await fetch(`${ts.url}/console/batch/${batchId}/download?rows=invalid`, { headers: { cookie, 'sec-fetch-site': 'same-origin' } });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe(readFileSync(job.invalidOnlyPath, 'utf8'));
    expect(files()).toEqual(
      expect.arrayContaining([`batches/${batchId}/results.csv`, `batches/${batchId}/invalid-rows.csv`, expect.stringMatching(new RegExp(`^demo/[0-9a-f]+/${job.inputName.replace(/\./g, '\\.')}$`))]),
    );

    // Loading twice is refused; the story is not doubled.
    const again = await dispatch(ts.service.handlers, 'demo:load', {});
    expect(again.ok).toBe(false);

    // A user works in the sandbox while the demo is loaded: that check and that batch are theirs and survive removal.
    const mine = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: `during-${seed}`, body: NG_OK });
    expect(mine.status).toBe(200);
    const myBatch = await userBatch('during-demo.csv', 'sandbox');

    const removed = await call<{ total: number; removed: Record<string, number>; batchFolders: number }>('demo:remove');
    expect(removed.total).toBe(loaded.records);
    expect(removed.removed['routing_batches']).toBe(1);
    expect(removed.batchFolders).toBe(1);
    expect(await call('demo:status')).toEqual({ present: false, records: 0, byTable: {}, tour: null });
    const after = counts();
    // Everything is as before, plus the user's one check, its idempotency key and their batch.
    expect(after).toEqual({
      ...before,
      verifications: before['verifications']! + 1,
      idempotency_keys: before['idempotency_keys']! + 1,
      routing_batches: before['routing_batches']! + 1,
    });
    // On disk: the demo batch's folder and input file are gone; the user's batches keep their result files.
    const myFolder = `batches/${myBatch.id}/`;
    expect(files().filter((f) => !f.startsWith(myFolder))).toEqual(filesBefore);
    expect(files()).toContain(`${myFolder}results.csv`);
    for (const [table, id] of [
      ['api_keys', ids.liveKey],
      ['verifications', ids.sandboxCheck],
      ['verifications', mine.body.id],
      ['webhooks', ids.userWebhook],
      ['users', ids.user],
      ['routing_batches', ids.sandboxBatch],
      ['routing_batches', ids.liveBatch],
      ['routing_batches', myBatch.id],
    ] as const) {
      expect(db.prepare(`SELECT 1 FROM ${table} WHERE id = ?`).get(id), `${table} ${id}`).toBeTruthy();
    }
    const mineAfter = await fetch(`${ts.url}/console/batch/${myBatch.id}/download`, { headers: { cookie, 'sec-fetch-site': 'same-origin' } });
    expect(mineAfter.status).toBe(200);
    expect(await mineAfter.text()).toBe(readFileSync(myBatch.resultPath, 'utf8'));
    const demoGone = await fetch(`${ts.url}/console/batch/${batchId}/download`, { headers: { cookie, 'sec-fetch-site': 'same-origin' } });
    expect(demoGone.status).toBe(404);
    await demoGone.text();
    const last = (await allEntries(ts.service.deps.sql, ts.org!.organizationId)).at(-1)!;
    expect(last.action).toBe('demo.removed');
    expect(last.door).toBe('console');
    expect((await verifyStore(ts.service.deps.sql)).every((r) => r.ok)).toBe(true);
    // Removing again removes nothing and writes no entry.
    expect((await call<{ total: number }>('demo:remove')).total).toBe(0);
    expect((await allEntries(ts.service.deps.sql, ts.org!.organizationId)).at(-1)!.id).toBe(last.id);
  }, 120_000);

  it('the CLI loads and removes against a running service, with progress lines and --json', async () => {
    const before = counts();
    const filesBefore = files();
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
    expect(progress.filter((p) => p.phase === 'batch').map((p) => p.done)).toEqual([0, 1]);
    expect(files().filter((f) => f.endsWith('.csv')).length).toBe(filesBefore.filter((f) => f.endsWith('.csv')).length + 3);
    // The running service sees the demo data at once (same store).
    expect((await call<{ records: number }>('demo:status')).records).toBe(result.records);
    const bad = await runCli(['demo', 'load', '--days', '0', '--data-dir', ts.dataDir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--days is a whole number from 1 to 90/);
    const remove = await runCli(['demo', 'remove', '--data-dir', ts.dataDir, '--json']);
    expect(remove.code, remove.stderr).toBe(0);
    expect((JSON.parse(remove.stdout) as { total: number }).total).toBe(result.records);
    expect(counts()).toEqual(before);
    expect(files()).toEqual(filesBefore);
    const actions = (await allEntries(ts.service.deps.sql, ts.org!.organizationId)).map((e) => `${e.action}/${e.door}`);
    expect(actions.slice(-2)).toEqual(['demo.loaded/cli', 'demo.removed/cli']);
  }, 180_000);
});
