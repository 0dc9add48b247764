// Demo data (issue 23, docs/demo.md): a month of believable sandbox activity written through the same core paths
// the API uses, every row of it listed in `demo_records` in the transaction that writes it, so removal is exact.
//
// The loader writes through a second core on the same store (SQLite WAL), opened with a clock it moves itself, so
// the checks carry the times of day of the story. On that connection only, temporary triggers list each inserted
// row of the tables below in demo_records: the listing commits or rolls back with the row, and rows written by the
// running service (another connection) are never listed.
import type { DemoTourTargets } from '../../../src-shared/channels-demo';
import { AppError } from '../../../src-shared/app-error';
import type { Environment } from '../../../src-shared/schemas/common';
import { loadFixtures } from '../../providers/sandbox/fixtures';
import type { Db } from '../../store/database';
import type { SqlQueries } from '../../store/sql-port';
import { appendAudit } from '../audit/audit-log';
import { ManualClock } from '../clock';
import { insertKey } from '../keys/keys-service';
import { firstOrganizationId } from '../orgs/organizations';
import type { Principal } from '../principal';
import type { CoreRuntime } from '../runtime';
import { createManagedUser } from '../settings/users';
import { submitOnce } from '../verification/verification-service';
import type { VerificationKind } from '../verification/types';
import { createWebhook, updateWebhook } from '../webhooks/webhooks-service';
import { retryNow, runScheduledAttempt } from '../webhooks/deliveries';
import { recoverWebhook } from '../webhooks/recovery';
import { startTestReceiver } from '../webhooks/test-receiver';
import { triggerSampleEvent } from '../webhooks/triggers';
import { answerBatch, answerBic, answerRoutingNumber, correspondentsOnce } from '../routing/routing-service';
import { publicRoutingFixtures } from '../sandbox-catalogue';
import type { BatchItem } from '../../../src-shared/schemas/routing';
import { randomBytes } from 'node:crypto';
import { seededRandom } from '../../../src-shared/seeded-random';
import { removeDemoBatchFiles, runDemoBatch } from './demo-batch';
import { DEMO_DAYS_MAX } from '../../../src-shared/channels-demo';

/** Tables whose inserted rows the loader lists, with the SQL expression of their primary key. */
export const DEMO_TABLES: Readonly<Record<string, string>> = {
  verifications: 'NEW.id',
  outbox_events: 'NEW.id',
  jobs: 'NEW.id',
  idempotency_keys: "NEW.scope || char(31) || NEW.idem_key",
  webhooks: 'NEW.id',
  webhook_deliveries: 'NEW.id',
  webhook_attempts: 'CAST(NEW.seq AS TEXT)',
  webhook_failures: 'NEW.id',
  webhook_recoveries: 'NEW.id',
  api_keys: 'NEW.id',
  users: 'NEW.id',
  usage_records: 'NEW.id',
  verification_cache: 'NEW.key',
  routing_checks: 'NEW.id',
  routing_batches: 'NEW.id',
};

export const DEMO_DAYS_DEFAULT = 30;
export { DEMO_DAYS_MAX };

/** A core on the same store whose clock the loader controls (the doors build it with createCore). */
export interface LoaderCore {
  rt: CoreRuntime;
  close(): Promise<void>;
}
export type OpenLoaderCore = (clock: ManualClock, opts: { allowWebhookHosts: string[] }) => LoaderCore | Promise<LoaderCore>;

export interface DemoProgress {
  phase: 'users' | 'keys' | 'webhook' | 'deliveries' | 'batch' | 'checks' | 'done';
  done: number;
  total: number;
  message: string;
}

export interface DemoLoadOptions {
  days?: number;
  /** Seed of the story's randomness (default: random); the same seed and day give the same story. */
  seed?: number;
  /** The day the story ends (default: the real now). */
  endMs?: number;
  onProgress?: (p: DemoProgress) => void;
}

export interface DemoStatus {
  present: boolean;
  records: number;
  byTable: Record<string, number>;
}

/** The story's finished batch CSV (routing_batches; its result files under <dataDir>/batches/<id>/). */
export interface DemoBatchSummary {
  id: string;
  inputName: string;
  rows: number;
  valid: number;
  invalid: number;
}

export interface DemoLoadResult extends DemoStatus {
  checks: number;
  routingChecks: number;
  batch: DemoBatchSummary;
  seed: number;
  ms: number;
}

export interface DemoRemoveResult {
  removed: Record<string, number>;
  total: number;
  /** Folders of result files deleted with the demo batches (<dataDir>/batches/<id>/). */
  batchFolders: number;
}

export async function demoStatus(q: SqlQueries): Promise<DemoStatus> {
  const rows = await q.all<{ t: string; n: number }>('SELECT table_name AS t, count(*) AS n FROM demo_records GROUP BY table_name ORDER BY table_name');
  const byTable = Object.fromEntries(rows.map((r) => [r.t, r.n]));
  const records = rows.reduce((a, r) => a + r.n, 0);
  return { present: records > 0, records, byTable };
}


/** What the guided tour opens of the demo data (DemoTourSchema), from its marks; null when there is no demo data. */
export async function demoTour(q: SqlQueries): Promise<DemoTourTargets | null> {
  const marked = (table: string) => `SELECT record_id FROM demo_records WHERE table_name = '${table}'`;
  const one = async (sql: string, params: unknown[] = []) => (await q.get<{ id: string }>(sql, params as never))?.id ?? null;
  if ((await q.get('SELECT 1 AS y FROM demo_records LIMIT 1')) === undefined) return null;
  const webhookId = await one(`SELECT id FROM webhooks WHERE id IN (${marked('webhooks')}) AND deleted_at IS NULL ORDER BY created_at LIMIT 1`);
  return {
    failedId: await one(`SELECT id FROM verifications WHERE id IN (${marked('verifications')}) AND environment = 'sandbox' AND status = 'failed' ORDER BY created_at DESC, id DESC LIMIT 1`),
    webhookId,
    deliveryId: webhookId ? await one(`SELECT id FROM webhook_deliveries WHERE webhook_id = ? AND id IN (${marked('webhook_deliveries')}) ORDER BY created_at_ms DESC, id DESC LIMIT 1`, [webhookId]) : null,
    batchId: await one(`SELECT id FROM routing_batches WHERE id IN (${marked('routing_batches')}) AND status = 'done' AND result_path IS NOT NULL ORDER BY started_at DESC LIMIT 1`),
  };
}

interface Pick {
  kind: VerificationKind;
  request: Record<string, unknown>;
  weight: number;
}

/** Fixture outcomes in believable proportions: mostly matches, some refusals, few format errors, rare upstream trouble. */
function weightOf(expected: { status: string; errorCode?: string | undefined }, description: string): number {
  if (expected.status === 'success') return 16;
  if (expected.status === 'error') return expected.errorCode === 'VERIFICATION_TIMEOUT' || expected.errorCode === 'VERIFICATION_UNAVAILABLE' ? 0.6 : 0.25;
  return /format failure/.test(description) ? 1.2 : 3;
}

/** Volume share of each kind (account checks dominate a payouts business). */
const KIND_SHARE: Partial<Record<VerificationKind, number>> = { account: 0.62, phone: 0.22, identity: 0.11, face: 0.05 };

function demoCatalogue(rt: CoreRuntime): Pick[] {
  const fixtures = loadFixtures(rt.deps.config.resourcesDir).filter((f) => f.kind in KIND_SHARE);
  const out: Pick[] = [];
  for (const kind of Object.keys(KIND_SHARE) as VerificationKind[]) {
    const own = fixtures.filter((f) => f.kind === kind);
    const sum = own.reduce((a, f) => a + weightOf(f.expected, f.description), 0);
    for (const f of own) {
      out.push({ kind, request: { ...(f.request as Record<string, unknown>) }, weight: (KIND_SHARE[kind]! * weightOf(f.expected, f.description)) / sum });
    }
  }
  return out;
}

/** The times of the story's checks: weekdays busier than weekends, working hours (08–19 UTC) with a midday peak. */
function checkTimes(days: number, endMs: number, rand: () => number): number[] {
  const dayMs = 86_400_000;
  const lastDay = Math.floor(endMs / dayMs) * dayMs;
  const times: number[] = [];
  for (let d = days - 1; d >= 0; d--) {
    const day = lastDay - d * dayMs;
    const weekday = new Date(day).getUTCDay();
    const weekend = weekday === 0 || weekday === 6;
    const growth = 1 + (days - d) / (days * 2); // a business growing over the month
    const n = Math.round((weekend ? 4 + rand() * 6 : 22 + rand() * 18) * growth);
    for (let i = 0; i < n; i++) {
      // Sum of two uniforms: a triangle around 13:30 between 08:00 and 19:00.
      const hour = 8 + ((rand() + rand()) / 2) * 11;
      const t = day + Math.floor(hour * 3_600_000);
      if (t <= endMs) times.push(t);
    }
  }
  return times.sort((a, b) => a - b);
}

function choose(picks: Pick[], rand: () => number): Pick {
  let r = rand();
  for (const p of picks) {
    r -= p.weight;
    if (r <= 0) return p;
  }
  return picks[picks.length - 1]!;
}

/** A routing lookup through the routing core, as the /verifications/* routes make it. */
async function routingCheck(rt: CoreRuntime, p: Principal, kind: string, request: unknown): Promise<void> {
  const r = request as Record<string, unknown>;
  if (kind === 'bic') await answerBic(rt.deps, p, { bic: String(r['bic']) });
  else if (kind === 'routing-codes') await answerRoutingNumber(rt.deps, p, { routingNumber: String(r['routingNumber']) });
  else if (kind === 'correspondents') {
    await correspondentsOnce(rt.deps, p, { bic: String(r['bic']), ...(typeof r['currency'] === 'string' ? { currency: r['currency'] } : {}) });
  } else if (kind === 'batch') await answerBatch(rt.deps, p, { items: r['items'] as BatchItem[] });
}

/**
 * Deliveries the loader's connection writes to another webhook than the demo's are not the story: a recovery fans
 * out every undispatched event first (recovery.ts), which may include a user's event of that instant. Those stay
 * unlisted and unheld, so the service's dispatcher delivers them as usual.
 */
const DEMO_HOOK = `NEW.webhook_id IN (SELECT record_id FROM main.demo_records WHERE table_name = 'webhooks')`;

// SQLite engine only: TEMP triggers on the loader's own connection (what it writes through its port runs on it).
function installTagTriggers(db: Db, holdUntilMs: number): void {
  for (const [table, key] of Object.entries(DEMO_TABLES)) {
    db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS demo_tag_${table} AFTER INSERT ON main.${table}${table === 'webhook_deliveries' ? ` WHEN ${DEMO_HOOK}` : ''}
      BEGIN INSERT OR IGNORE INTO main.demo_records (table_name, record_id) VALUES ('${table}', ${key}); END;`);
  }
  // Demo events are history, not news: they are marked dispatched as they are written, so no webhook (a user's
  // sandbox endpoint above all) is ever sent a demo event by the running dispatcher.
  db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS demo_quiet_events AFTER INSERT ON main.outbox_events
    BEGIN UPDATE main.outbox_events SET dispatched_at = NEW.created_at WHERE id = NEW.id; END;`);
  // The demo's deliveries are attempted by the loader, at the story's times, to its own receiver: they stay leased
  // (in real time) whenever pending, so the running service's dispatcher never claims one.
  const hold = Math.floor(holdUntilMs);
  db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS demo_hold_deliveries_ins AFTER INSERT ON main.webhook_deliveries WHEN ${DEMO_HOOK}
    BEGIN UPDATE main.webhook_deliveries SET lease_until_ms = ${hold} WHERE id = NEW.id; END;`);
  db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS demo_hold_deliveries_upd AFTER UPDATE OF lease_until_ms ON main.webhook_deliveries
    WHEN NEW.status = 'pending' AND NEW.lease_until_ms IS NULL AND ${DEMO_HOOK}
    BEGIN UPDATE main.webhook_deliveries SET lease_until_ms = ${hold} WHERE id = NEW.id; END;`);
}

// SQLite engine only (see installTagTriggers).
function dropTagTriggers(db: Db): void {
  for (const table of Object.keys(DEMO_TABLES)) db.exec(`DROP TRIGGER IF EXISTS temp.demo_tag_${table}`);
  db.exec('DROP TRIGGER IF EXISTS temp.demo_quiet_events');
  db.exec('DROP TRIGGER IF EXISTS temp.demo_hold_deliveries_ins');
  db.exec('DROP TRIGGER IF EXISTS temp.demo_hold_deliveries_upd');
}

const DEMO_USERS = [
  { email: 'amara.demo@example.com', role: 'ADMIN' as const },
  { email: 'tomas.demo@example.com', role: 'DEVELOPER' as const },
];

/**
 * Loads about `days` days of sandbox activity for the installation's organization: two users, two sandbox keys,
 * an (inactive) webhook, and checks across corridors and kinds. Refused when demo data is already present.
 */
export async function loadDemo(rt: CoreRuntime, openCore: OpenLoaderCore, opts: DemoLoadOptions = {}): Promise<DemoLoadResult> {
  const started = Date.now();
  const days = opts.days ?? DEMO_DAYS_DEFAULT;
  if (!Number.isInteger(days) || days < 1 || days > DEMO_DAYS_MAX) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'days', message: `days is a whole number from 1 to ${DEMO_DAYS_MAX}` }] });
  }
  const organizationId = await firstOrganizationId(rt.deps);
  if (!organizationId) throw new AppError('FORBIDDEN', { message: 'Set up the organization first.' });
  if ((await demoStatus(rt.deps.sql)).present) {
    throw new AppError('VALIDATION_ERROR', {
      message: 'Demo data is already loaded. Remove it first (vconsole demo remove, or Settings › Demo data).',
      details: [{ field: 'demo', message: 'demo data is already loaded: remove it first' }],
    });
  }
  const seed = opts.seed ?? randomBytes(4).readUInt32LE(0);
  const rand = seededRandom(seed);
  const endMs = opts.endMs ?? Date.now();
  const times = checkTimes(days, endMs, rand);
  const startMs = (times[0] ?? endMs) - 3_600_000;
  const clock = new ManualClock(startMs);
  const report = opts.onProgress ?? (() => {});
  const run = async (): Promise<{ checks: number; routingChecks: number; batch: DemoBatchSummary }> => {
    // The demo's webhook receiver: answers 503 while `down`, else 200 (a 503 now and then on a first attempt).
    let down = false;
    let flaky = false;
    const receiver = await startTestReceiver({
      responder: () => {
        if (down || flaky) {
          flaky = false;
          return { status: 503, body: 'receiver busy' };
        }
        return { status: 200, body: 'ok' };
      },
    });
    const receiverHost = `127.0.0.1:${receiver.port}`;
    let loader: LoaderCore;
    try {
      loader = await openCore(clock, { allowWebhookHosts: [receiverHost] });
    } catch (err) {
      await receiver.close();
      throw err;
    }
    const { db, sql } = loader.rt.deps;
    // SQLite engine only: the demo is a desktop story (a team server on PostgreSQL has no demo data).
    if (!db) throw new AppError('VALIDATION_ERROR', { message: 'Demo data is for the desktop store; this service stores its data in PostgreSQL.' });
    installTagTriggers(db, Date.now() + 3_600_000);
    try {
      const sandbox: Principal = { kind: 'console', organizationId, environment: 'sandbox' as Environment, role: 'OWNER' };
      report({ phase: 'users', done: 0, total: DEMO_USERS.length, message: 'Adding two team members' });
      for (const [i, u] of DEMO_USERS.entries()) {
        if (await sql.get('SELECT 1 FROM users WHERE email = ?', [u.email])) continue;
        await createManagedUser(loader.rt.deps, sandbox, { email: u.email, role: u.role, password: randomBytes(18).toString('base64url') });
        report({ phase: 'users', done: i + 1, total: DEMO_USERS.length, message: `Added ${u.email} (${u.role})` });
      }
      report({ phase: 'keys', done: 0, total: 2, message: 'Creating sandbox keys' });
      await insertKey(loader.rt.deps, organizationId, 'Demo checkout (sandbox)', 'sandbox');
      await insertKey(loader.rt.deps, organizationId, 'Demo payouts (sandbox)', 'sandbox');
      report({ phase: 'keys', done: 2, total: 2, message: 'Created two sandbox keys' });
      report({ phase: 'webhook', done: 0, total: 1, message: 'Registering a webhook' });
      const hook = await createWebhook(loader.rt, sandbox, {
        url: `http://${receiverHost}/demo/verifications`,
        events: ['verification.completed', 'verification.failed'],
        description: 'Demo receiver (the loader ran it while loading; inactive since)',
      });
      report({ phase: 'webhook', done: 1, total: 1, message: 'Registered the demo webhook' });
      /** One sample event to the demo webhook, attempted at the story's times until it succeeds or fails. */
      const deliver = async (event: 'verification.completed' | 'verification.failed'): Promise<string[]> => {
        const t = await triggerSampleEvent(loader.rt, sandbox, event, hook.id);
        for (const { deliveryId } of t.deliveries) {
          for (let i = 0; i < 6; i++) {
            await runScheduledAttempt(loader.rt, deliveryId);
            const row = (await sql.get<{ status: string; next: number | null }>('SELECT status, next_attempt_at_ms AS next FROM webhook_deliveries WHERE id = ?', [deliveryId]))!;
            if (row.status !== 'pending' || row.next === null) break;
            clock.set(Math.max(clock.now(), row.next));
          }
        }
        return t.deliveries.map((d) => d.deliveryId);
      };
      const deliveryDays = [times[0] ?? startMs, times[Math.floor(times.length / 3)] ?? startMs, times[Math.floor((times.length * 2) / 3)] ?? startMs];
      // Day one: the integration is tested with sample events, one retried after a 503.
      clock.set(deliveryDays[0]! - 30 * 60_000);
      report({ phase: 'deliveries', done: 0, total: 3, message: 'Testing the webhook with sample events' });
      for (const [i, e] of (['verification.completed', 'verification.failed', 'verification.completed', 'verification.completed'] as const).entries()) {
        flaky = i === 1;
        clock.advance(2 * 60_000);
        await deliver(e);
      }
      // A third into the month: the receiver is down, five attempts fail, the webhook turns failed...
      clock.set(deliveryDays[1]!);
      down = true;
      report({ phase: 'deliveries', done: 1, total: 3, message: 'The receiver goes down: the webhook fails' });
      const failed = await deliver('verification.completed');
      down = false;
      // ...and is recovered an hour later (re-enabled), its failed delivery sent again with "Retry now" (a manual
      // attempt, which succeeds: failed, then recovered), then tested again (one more retried delivery).
      clock.advance(60 * 60_000);
      await recoverWebhook(loader.rt, sandbox, hook.id, {}, 'demo', { allowNothing: true });
      clock.advance(3 * 60_000);
      for (const id of failed) await retryNow(loader.rt, sandbox, id);
      report({ phase: 'deliveries', done: 2, total: 3, message: 'The webhook is recovered and its failed delivery sent again' });
      clock.advance(5 * 60_000);
      flaky = true;
      await deliver('verification.completed');
      clock.set(deliveryDays[2]!);
      await deliver('verification.failed');
      report({ phase: 'deliveries', done: 3, total: 3, message: 'Webhook deliveries done' });
      // Late in the month, a supplier-payouts file is checked as a batch CSV (a few invalid rows), to completion.
      report({ phase: 'batch', done: 0, total: 1, message: 'Checking a payouts file as a batch CSV' });
      clock.set((times[Math.floor(times.length * 0.85)] ?? endMs) - 20 * 60_000);
      const job = await runDemoBatch(loader.rt, sandbox, clock, seededRandom(seed ^ 0x0ba7c5), endMs);
      const batch: DemoBatchSummary = { id: job.id, inputName: job.inputName, rows: job.rows, valid: job.valid, invalid: job.invalid };
      report({ phase: 'batch', done: 1, total: 1, message: `Checked ${batch.inputName}: ${batch.rows} rows, ${batch.invalid} invalid` });
      const picks = demoCatalogue(loader.rt);
      const routing = publicRoutingFixtures();
      let routingChecks = 0;
      const every = Math.max(1, Math.floor(times.length / 20));
      for (const [i, t] of times.entries()) {
        clock.set(t);
        const p = choose(picks, rand);
        await submitOnce(loader.rt.verification, sandbox, p.kind, p.request);
        // About one payment-routing lookup for every eight checks, a minute or two later.
        if (rand() < 0.12 && routing.length > 0) {
          clock.advance(30_000 + Math.floor(rand() * 90_000));
          const f = routing[Math.floor(rand() * routing.length)]!;
          await routingCheck(loader.rt, sandbox, f.kind, f.request);
          routingChecks += 1;
        }
        if ((i + 1) % every === 0 || i + 1 === times.length) {
          report({ phase: 'checks', done: i + 1, total: times.length, message: `${i + 1} of ${times.length} checks` });
        }
      }
      // The receiver stops with the load: the webhook is left inactive, so nothing is ever sent to it again.
      clock.set(Math.max(clock.now(), endMs));
      await updateWebhook(loader.rt, sandbox, hook.id, { status: 'inactive' });
      return { checks: times.length, routingChecks, batch };
    } finally {
      dropTagTriggers(db);
      await loader.close();
      await receiver.close();
    }
  };
  const { checks, routingChecks, batch } = await run();
  const status = await demoStatus(rt.deps.sql);
  await rt.deps.sql.transaction((tx) =>
    appendAudit({ ...rt.deps, sql: tx }, organizationId, {
      action: 'demo.loaded',
      target: { type: 'demoData', id: null },
      detail: { days, checks, routingChecks, batchRows: batch.rows, records: status.records, seed },
    }),
  );
  report({
    phase: 'done',
    done: checks,
    total: checks,
    message: `Loaded ${checks} checks, ${routingChecks} routing lookups and a ${batch.rows}-row batch CSV over ${days} days (${status.records} demo records)`,
  });
  return { ...status, checks, routingChecks, batch, seed, ms: Date.now() - started };
}

/** Rows that hang off demo rows without being listed themselves (e.g. written by the running service). */
const DEPENDENTS: { table: string; where: string }[] = [
  {
    table: 'webhook_attempts',
    where: `delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id IN (SELECT record_id FROM demo_records WHERE table_name = 'webhooks')
              OR event_id IN (SELECT record_id FROM demo_records WHERE table_name = 'outbox_events')
              OR verification_id IN (SELECT record_id FROM demo_records WHERE table_name = 'verifications'))`,
  },
  { table: 'webhook_failures', where: `webhook_id IN (SELECT record_id FROM demo_records WHERE table_name = 'webhooks')` },
  { table: 'webhook_recoveries', where: `webhook_id IN (SELECT record_id FROM demo_records WHERE table_name = 'webhooks')` },
  {
    table: 'webhook_deliveries',
    where: `webhook_id IN (SELECT record_id FROM demo_records WHERE table_name = 'webhooks')
              OR event_id IN (SELECT record_id FROM demo_records WHERE table_name = 'outbox_events')
              OR verification_id IN (SELECT record_id FROM demo_records WHERE table_name = 'verifications')`,
  },
  { table: 'refresh_tokens', where: `session_id IN (SELECT id FROM sessions WHERE user_id IN (SELECT record_id FROM demo_records WHERE table_name = 'users'))` },
  { table: 'sessions', where: `user_id IN (SELECT record_id FROM demo_records WHERE table_name = 'users')` },
];

/** Deletion order of the listed tables (children before parents). */
const REMOVE_ORDER = ['routing_batches', 'routing_checks', 'webhook_attempts', 'webhook_failures', 'webhook_recoveries', 'webhook_deliveries', 'webhooks', 'jobs', 'idempotency_keys', 'outbox_events', 'usage_records', 'verification_cache', 'verifications', 'api_keys', 'users'];

/**
 * Removes exactly the listed demo rows and the rows that depend on them, in one transaction with its
 * `demo.removed` audit entry; then, once that has committed, the files of the removed demo batches (their result
 * folders and the input files the loader wrote). Audit entries and ledger entries stay (append-only).
 */
export async function removeDemo(rt: CoreRuntime): Promise<DemoRemoveResult> {
  const organizationId = await firstOrganizationId(rt.deps);
  let batches: { id: string; inputPath: string }[] = [];
  const result = await rt.deps.sql.transaction(async (tx): Promise<Omit<DemoRemoveResult, 'batchFolders'>> => {
    // The demo batches' files are deleted once their rows are gone for good (after the commit, below).
    batches = await tx.all<{ id: string; inputPath: string }>(
      `SELECT id, input_path AS "inputPath" FROM routing_batches WHERE id IN (SELECT record_id FROM demo_records WHERE table_name = 'routing_batches')`,
    );
    const removed: Record<string, number> = {};
    const add = (t: string, n: number) => {
      if (n > 0) removed[t] = (removed[t] ?? 0) + n;
    };
    for (const d of DEPENDENTS) add(d.table, (await tx.run(`DELETE FROM ${d.table} WHERE ${d.where}`)).changes);
    for (const table of REMOVE_ORDER) {
      const key = DEMO_TABLES[table]!.replace(/NEW\./g, '');
      add(table, (await tx.run(`DELETE FROM ${table} WHERE ${key} IN (SELECT record_id FROM demo_records WHERE table_name = ?)`, [table])).changes);
    }
    await tx.run('DELETE FROM demo_records');
    const total = Object.values(removed).reduce((a, n) => a + n, 0);
    if (organizationId && total > 0) {
      await appendAudit({ ...rt.deps, sql: tx }, organizationId, { action: 'demo.removed', target: { type: 'demoData', id: null }, detail: { removed, total } });
    }
    return { removed, total };
  });
  return { ...result, batchFolders: removeDemoBatchFiles(rt.info().dataDir, batches) };
}
