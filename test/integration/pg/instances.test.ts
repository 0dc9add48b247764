// Three instances of the real service on one PostgreSQL database (docs/team-server.md, "Claims, leases and
// takeover"): async verifications submitted over all three are each settled once, their jobs never run twice at
// the same time on any instances (a job runs again only after its previous run failed and said so), and each event
// is fanned out once and delivered to a real receiver under one delivery id — also when the receiver refuses a
// first attempt and another instance makes the retry.
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestReceiver, type ReceivedRequest, type TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { VERIFICATION_JOB } from '../../../src-main/core/verification/engine';
import type { JobHandler } from '../../../src-main/jobs/worker';
import type { PgServicePort } from '../../../src-main/store/pg/pg-service';
import { api, NG_OK, newKey, startTestService, type TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';

const N = 45;
let db: TestDatabase;
let receiver: TestReceiver;
const instances: TestService[] = [];
/** Runs of the verification job's handler, over all instances (they share this process): now and in all. */
const running = new Map<string, number>();
const runs = new Map<string, number>();
let overlaps = 0;
/** Status codes answered per delivery id, in order. */
const answered = new Map<string, number[]>();
let distinctIds = 0;

beforeAll(async () => {
  db = await freshDatabase();
  // Every fourth delivery (in order of first arrival) is refused once: its retry is due 20 ms later, at whichever
  // instance claims it first.
  receiver = await startTestReceiver({
    responder: (req) => {
      const id = String(req.headers['webhook-id']);
      let codes = answered.get(id);
      if (!codes) {
        codes = [];
        answered.set(id, codes);
        distinctIds += 1;
      }
      const status = codes.length === 0 && distinctIds % 4 === 0 ? 500 : 200;
      codes.push(status);
      return { status, body: status === 200 ? 'ok' : 'try again' };
    },
  });
  const common = { databaseUrl: db.url, retryUnitMs: 20, allowWebhookHosts: [`127.0.0.1:${receiver.port}`] };
  const first = await startTestService(common);
  instances.push(first);
  // The webhook is created (its secret sealed with the first instance's secret.key) before the others start with a
  // copy of that key.
  const hook = await api(first.url, 'POST', '/client/webhooks', { key: first.sandboxKey, body: { url: `${receiver.url}/hook`, events: ['verification.completed'] } });
  expect(hook.status, hook.text).toBe(201);
  receiver.setSecrets([hook.body.secret as string]);
  expect(existsSync(join(first.dataDir, 'secret.key'))).toBe(true);
  for (let i = 0; i < 2; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'vc-pg-instance-'));
    copyFileSync(join(first.dataDir, 'secret.key'), join(dataDir, 'secret.key'));
    instances.push(await startTestService({ ...common, dataDir, bootstrap: false }));
  }
  // A probe around each instance's verification handler: a run that starts while another run of the same
  // verification is in progress, on any instance, is an overlap.
  for (const s of instances) {
    const handlers = (s.service.worker as unknown as { o: { handlers: Record<string, JobHandler> } }).o.handlers;
    const inner = handlers[VERIFICATION_JOB]!;
    handlers[VERIFICATION_JOB] = async (job) => {
      const id = (job.payload as { verificationId: string }).verificationId;
      if ((running.get(id) ?? 0) > 0) overlaps += 1;
      running.set(id, (running.get(id) ?? 0) + 1);
      runs.set(id, (runs.get(id) ?? 0) + 1);
      try {
        await inner(job);
      } finally {
        running.set(id, running.get(id)! - 1);
      }
    };
  }
}, 90_000);

afterAll(async () => {
  for (const s of instances) await s.stop();
  await receiver?.close();
  await db?.drop();
});

/** Resubmissions after a 5xx (a transaction that spent its serialization retries), under the same Idempotency-Key. */
let resubmitted = 0;

/** Submits as a client does: a 5xx is sent again under the same Idempotency-Key (at most 5 times). */
async function submitAsync(base: string, key: string): Promise<{ status: number; text: string; body: any }> {
  const idem = newKey();
  for (let attempt = 1; ; attempt++) {
    const r = await api(base, 'POST', '/verify/account', { key, idem, body: { ...NG_OK, mode: 'async' } });
    if (r.status < 500 || attempt >= 5) return r;
    resubmitted += 1;
  }
}

async function until(probe: () => Promise<boolean> | boolean, timeoutMs: number, describe: () => Promise<string> | string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`not reached within ${timeoutMs} ms (a bound, not a measurement): ${await describe()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('three instances on one PostgreSQL database', () => {
  it('processes every async verification submitted over them once and delivers it under one delivery id', async () => {
    const key = instances[0]!.sandboxKey;
    const sql = instances[0]!.service.deps.sql;
    const retriesBefore = instances.map((s) => (s.service.deps.sql as PgServicePort).retries);
    // Submitted round-robin over the three instances, nine at a time.
    const ids: string[] = [];
    for (let batch = 0; batch < N; batch += 9) {
      const answers = await Promise.all(
        Array.from({ length: 9 }, (_, j) => submitAsync(instances[(batch + j) % 3]!.url, key)),
      );
      for (const r of answers) {
        expect(r.status, r.text).toBe(202);
        ids.push(r.body.id as string);
      }
    }
    expect(new Set(ids).size).toBe(N);
    const open = () =>
      sql.get<{ pending: number; undelivered: number }>(
        `SELECT (SELECT count(*) FROM verifications WHERE status = 'pending') AS pending,
                (SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL)
                + (SELECT count(*) FROM webhook_deliveries WHERE status <> 'success') AS undelivered`,
      );
    await until(
      async () => {
        const o = await open();
        return o?.pending === 0 && o.undelivered === 0 && (await sql.get<{ n: number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'success'"))?.n === N;
      },
      60_000,
      async () => JSON.stringify(await open()),
    );

    // Each verification ended once: success, one event, its job done.
    const verifications = await sql.all<{ id: string; status: string }>(`SELECT id, status FROM verifications WHERE mode = 'async' ORDER BY id`);
    expect(verifications.map((v) => v.id)).toEqual([...ids].sort());
    expect(verifications.every((v) => v.status === 'success')).toBe(true);
    // Never two runs of one verification at once, on any instances; every claim of a job ran its handler once; a
    // job claimed more than once was released by its failed run (retry, with the error recorded), never taken
    // while another instance held it (leases of 60 s do not expire here).
    expect(overlaps).toBe(0);
    const jobs = await sql.all<{ id: string; state: string; attempts: number; last_error: string | null }>(
      `SELECT id, state, attempts, last_error FROM jobs WHERE kind = ? ORDER BY id`,
      [VERIFICATION_JOB],
    );
    expect(jobs.map((j) => j.id)).toEqual(ids.map((id) => `job_${id}`).sort());
    for (const j of jobs) {
      expect(j.state).toBe('done');
      expect(runs.get(j.id.slice('job_'.length))).toBe(j.attempts);
      if (j.attempts > 1) expect(j.last_error).not.toBeNull();
    }
    const rerun = jobs.filter((j) => j.attempts > 1);
    const events = await sql.all<{ verification_id: string; n: number }>('SELECT verification_id, count(*) AS n FROM outbox_events GROUP BY verification_id');
    expect(events).toHaveLength(N);
    expect(events.every((e) => e.n === 1)).toBe(true);

    // One delivery per event, delivered; every request the receiver got for it carried its id, and every one of
    // them is in its attempt log (each POST logged once, by the instance that made it).
    const deliveries = await sql.all<{ id: string; verification_id: string; status: string; attempts: number; logged: number }>(
      `SELECT d.id, d.verification_id, d.status, d.attempts, (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id) AS logged
       FROM webhook_deliveries d`,
    );
    expect(deliveries).toHaveLength(N);
    const byVerification = new Map<string, ReceivedRequest[]>();
    for (const req of receiver.requests) {
      const v = (JSON.parse(req.rawBody.toString('utf8')) as { verificationId: string }).verificationId;
      byVerification.set(v, [...(byVerification.get(v) ?? []), req]);
      expect(req.xSignatureValid).toBe(true);
      expect(req.standardSignatureValid).toBe(true);
    }
    let refusedThenRetried = 0;
    for (const d of deliveries) {
      const reqs = byVerification.get(d.verification_id) ?? [];
      expect(new Set(reqs.map((r) => r.headers['webhook-id']))).toEqual(new Set([d.id]));
      const codes = answered.get(d.id)!;
      expect(reqs).toHaveLength(codes.length);
      expect(d.logged).toBe(codes.length);
      expect(d.status).toBe('success');
      expect(codes.at(-1)).toBe(200);
      if (codes[0] === 500) {
        refusedThenRetried += 1;
        expect(codes).toEqual([500, 200]);
        expect(d.attempts).toBe(2);
      } else expect(codes).toEqual([200]);
    }
    expect(refusedThenRetried).toBe(Math.floor(N / 4));
    const retries = instances.map((s, k) => (s.service.deps.sql as PgServicePort).retries - retriesBefore[k]!);
    console.log(
      `[instances] ${N} async verifications over 3 instances; ${refusedThenRetried} deliveries retried after a 500; serialization retries per instance: ${retries.join(' / ')}; ` +
        `jobs run again after a failed run: ${rerun.length} (${[...new Set(rerun.map((j) => j.last_error))].join('; ')}); submissions sent again after a 5xx: ${resubmitted}`,
    );
  });
});
