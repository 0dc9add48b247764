// `kill -9` of one instance of a team server mid-flight loses nothing (issue 17; docs/team-server.md, "Claims,
// leases and takeover"). The instance is a real `vconsole serve --database postgres://…` child process with short
// leases (--lease-ms). It takes async verifications and sends their webhooks to a receiver that holds every
// response, then SIGKILLs itself right after committing a claim of jobs (VC_FAULT_POINT=after-claim): it dies
// holding delivery leases (attempts sent, never answered) and job leases (claimed, never run). Two other instances,
// started after its death, take both over once the leases expire: every async verification is settled once and
// delivered, each event by one delivery whose id is the one the dead instance had already sent.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERIFICATION_JOB } from '../../../src-main/core/verification/engine';
import { startTestReceiver, type Reply, type TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { createPgServicePort, type PgServicePort } from '../../../src-main/store/pg/pg-service';
import { api, NG_OK, newKey, startTestService, type TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';
import { killChild, startChild, type ChildService } from '../../reliability/child-service';

/** Verifications submitted one by one before the fatal claim: their webhooks are in flight when the instance dies. */
const BEFORE = 3;
/** Submitted together last: the instance dies at the claim of the first of them. */
const LAST = 6;
const LEASE_MS = 5_000;

let db: TestDatabase;
let receiver: TestReceiver;
let setupDir: string;
let child: ChildService | null = null;
const survivors: TestService[] = [];
const dirs: string[] = [];

/** Until the instance is dead, every response is held (its attempts never learn their outcome). */
let dead = false;
const held: (() => void)[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  receiver = await startTestReceiver({
    responder: () => (dead ? { status: 200, body: 'ok' } : new Promise<Reply>((resolve) => held.push(() => resolve({ status: 200, body: 'ok' })))),
  });
}, 60_000);

afterAll(async () => {
  if (child) await killChild(child);
  for (const s of survivors) await s.stop();
  for (const h of held.splice(0)) h();
  await receiver?.close();
  await db?.drop();
  for (const d of [setupDir, ...dirs]) if (d) rmSync(d, { recursive: true, force: true });
});

/** A data folder for another instance, with the shared secret.key (webhook secrets are sealed with it). */
function instanceDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vc-pg-takeover-'));
  dirs.push(dir);
  copyFileSync(join(setupDir, 'secret.key'), join(dir, 'secret.key'));
  return dir;
}

async function until(probe: () => Promise<boolean> | boolean, timeoutMs: number, describe: () => Promise<string> | string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`not reached within ${timeoutMs} ms (a bound, not a measurement): ${await describe()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const verificationOf = (raw: Buffer) => (JSON.parse(raw.toString('utf8')) as { verificationId: string }).verificationId;

describe('kill -9 of one instance on PostgreSQL', () => {
  it('another instance takes over its expired leases: every async verification is delivered, under the delivery id it had sent', async () => {
    const hostPort = `127.0.0.1:${receiver.port}`;
    // The organization and the webhook, made by a first instance that then stops (its secret.key is the shared one).
    const setup = await startTestService({ databaseUrl: db.url, retryUnitMs: 50, allowWebhookHosts: [hostPort] });
    setupDir = setup.dataDir;
    const key = setup.sandboxKey;
    const hook = await api(setup.url, 'POST', '/client/webhooks', { key, body: { url: `${receiver.url}/hook`, events: ['verification.completed'] } });
    expect(hook.status, hook.text).toBe(201);
    receiver.setSecrets([hook.body.secret as string]);
    await setup.stop({ keepDir: true });

    // The instance that will die: its claims (of jobs with at least one job) are counted; the last one kills it.
    child = await startChild(instanceDir(), {
      args: ['--database', db.url, '--lease-ms', String(LEASE_MS), '--retry-unit-ms', '50', '--allow-webhook-host', hostPort],
      env: { VC_FAULT_POINT: 'after-claim', VC_FAULT_AFTER: String(BEFORE + 1) },
    });
    const c = child;
    let exited = false;
    void c.exited.then(() => (exited = true));
    const acked: string[] = [];
    const submit = async () => {
      const idem = newKey();
      for (let attempt = 1; attempt <= 5 && !exited; attempt++) {
        try {
          const r = await api(c.url, 'POST', '/verify/account', { key, idem, body: { ...NG_OK, mode: 'async' } });
          if (r.status === 202) return void acked.push(r.body.id as string);
          // A 5xx (serialization retries spent) is sent again under the same key, as a client does.
          if (r.status < 500) throw new Error(`unexpected ${r.status}: ${r.text}`);
        } catch (e) {
          // The instance died while answering: the request may or may not have been taken (the database says).
          if (exited || (e as Error).message.startsWith('fetch failed')) return;
          throw e;
        }
      }
    };
    for (let i = 0; i < BEFORE; i++) {
      await submit();
      const id = acked[i];
      await until(
        () => exited || receiver.requests.some((r) => verificationOf(r.rawBody) === id),
        30_000,
        () => `the webhook of ${id} to be sent\n${c.output()}`,
      );
    }
    await Promise.all(Array.from({ length: LAST }, () => submit()));
    const end = await Promise.race([c.exited, new Promise<null>((r) => setTimeout(() => r(null), 60_000).unref())]);
    if (end === null) throw new Error(`the instance did not reach its fault point within 60 s (a bound):\n${c.output()}`);
    expect(end.signal).toBe('SIGKILL');
    const killedAt = Date.now();
    const sentBeforeDeath = receiver.requests.length;
    dead = true;
    for (const h of held.splice(0)) h();

    // What the dead instance left: jobs it had claimed and not run, attempts it had sent and never heard back of.
    const sql0 = createPgServicePort(db.url, { listen: false });
    let leasedJobs: string[];
    let inFlight: Map<string, string>;
    let leasedAtDeath: number;
    try {
      leasedJobs = (await sql0.all<{ id: string }>(`SELECT id FROM jobs WHERE kind = ? AND state = 'leased'`, [VERIFICATION_JOB])).map((r) => r.id);
      inFlight = new Map(receiver.requests.slice(0, sentBeforeDeath).map((r) => [String(r.headers['webhook-id']), verificationOf(r.rawBody)]));
      const pending = await sql0.all<{ id: string; leased: number }>(
        `SELECT id, (lease_until_ms IS NOT NULL) AS leased FROM webhook_deliveries WHERE status = 'pending'`,
      );
      leasedAtDeath = pending.filter((d) => d.leased === 1).length;
      // Its fatal claim committed at least one job; every delivery it sent an attempt of is still owed (it never
      // heard back), normally under its lease (unless its own 10 s send timeout ended an attempt first).
      expect(leasedJobs.length).toBeGreaterThanOrEqual(1);
      expect(inFlight.size).toBeGreaterThanOrEqual(1);
      expect(pending.map((d) => d.id)).toEqual(expect.arrayContaining([...inFlight.keys()]));
    } finally {
      await sql0.close();
    }

    // Two other instances (default 60 s leases); neither releases anything at start: they wait for the leases.
    for (let i = 0; i < 2; i++) {
      survivors.push(await startTestService({ databaseUrl: db.url, dataDir: instanceDir(), bootstrap: false, retryUnitMs: 50, allowWebhookHosts: [hostPort] }));
    }
    const sql = survivors[0]!.service.deps.sql;
    const open = () =>
      sql.get<{ pending: number; undispatched: number; undelivered: number; verifications: number; deliveries: number }>(
        `SELECT (SELECT count(*) FROM verifications WHERE status = 'pending') AS pending,
                (SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL) AS undispatched,
                (SELECT count(*) FROM webhook_deliveries WHERE status <> 'success') AS undelivered,
                (SELECT count(*) FROM verifications) AS verifications,
                (SELECT count(*) FROM webhook_deliveries) AS deliveries`,
      );
    await until(
      async () => {
        const o = await open();
        return !!o && o.pending === 0 && o.undispatched === 0 && o.undelivered === 0 && o.deliveries === o.verifications;
      },
      90_000,
      async () => JSON.stringify(await open()),
    );
    const tookMs = Date.now() - killedAt;

    // Every async verification the database holds — each one acknowledged and any the instance took while dying —
    // ended once, with one event, its job done; the jobs the dead instance held were claimed again after it.
    const verifications = await sql.all<{ id: string; status: string }>(`SELECT id, status FROM verifications WHERE mode = 'async'`);
    const ids = verifications.map((v) => v.id);
    expect(ids).toEqual(expect.arrayContaining(acked));
    expect(ids.length).toBeGreaterThanOrEqual(BEFORE);
    expect(verifications.every((v) => v.status === 'success')).toBe(true);
    const events = await sql.all<{ verification_id: string; n: number }>('SELECT verification_id, count(*) AS n FROM outbox_events GROUP BY verification_id');
    expect(events.map((e) => e.verification_id).sort()).toEqual([...ids].sort());
    expect(events.every((e) => e.n === 1)).toBe(true);
    const jobs = await sql.all<{ id: string; state: string; attempts: number }>(`SELECT id, state, attempts FROM jobs WHERE kind = ?`, [VERIFICATION_JOB]);
    expect(jobs.every((j) => j.state === 'done')).toBe(true);
    for (const id of leasedJobs) expect(jobs.find((j) => j.id === id)!.attempts).toBeGreaterThanOrEqual(2);

    // One delivery per event, delivered; every request for a verification carried that delivery's id.
    const deliveries = await sql.all<{ id: string; verification_id: string; sent_headers: string }>('SELECT id, verification_id, sent_headers FROM webhook_deliveries');
    expect(deliveries.map((d) => d.verification_id).sort()).toEqual([...ids].sort());
    for (const d of deliveries) {
      const reqs = receiver.requests.filter((r) => verificationOf(r.rawBody) === d.verification_id);
      expect(reqs.length).toBeGreaterThanOrEqual(1);
      expect(new Set(reqs.map((r) => r.headers['webhook-id']))).toEqual(new Set([d.id]));
      expect(reqs.every((r) => r.xSignatureValid === true && r.standardSignatureValid === true)).toBe(true);
      expect((JSON.parse(d.sent_headers) as Record<string, string>)['webhook-id']).toBe(d.id);
    }
    // Each attempt the dead instance had in flight was made again by a survivor, under the same id, and answered:
    // only a living instance logs an attempt, and the dead one never got an answer.
    for (const [deliveryId, verificationId] of inFlight) {
      expect(deliveries.find((d) => d.id === deliveryId)?.verification_id).toBe(verificationId);
      const logged = await sql.all<{ status_code: number | null }>('SELECT status_code FROM webhook_attempts WHERE delivery_id = ? ORDER BY seq', [deliveryId]);
      expect(logged.map((a) => a.status_code)).toContain(200);
      expect(receiver.requests.slice(sentBeforeDeath).some((r) => r.headers['webhook-id'] === deliveryId)).toBe(true);
    }
    const retries = survivors.map((s) => (s.service.deps.sql as PgServicePort).retries);
    console.log(
      `[takeover] dead instance held ${leasedJobs.length} job lease(s) and ${leasedAtDeath} delivery lease(s), ${inFlight.size} attempt(s) in flight; ${ids.length} async verifications ` +
        `(${acked.length} acknowledged) all delivered ${tookMs} ms after the kill (leases ${LEASE_MS} ms); survivors' serialization retries ${retries.join(' / ')}`,
    );
  }, 240_000);
});
