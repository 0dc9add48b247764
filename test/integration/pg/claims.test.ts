// Claims on PostgreSQL (docs/team-server.md, "Claims, leases and takeover"): jobs, outbox events and webhook
// deliveries taken by several instances (one PgServicePort each, as `serve` has) at once. A claim passes over rows
// another instance's claim holds (FOR UPDATE SKIP LOCKED) instead of waiting for them; racing claims take every due
// row exactly once; an expired lease is claimed again by any instance, under a new token (the old holder can no
// longer complete) and, for a delivery, under the same delivery id. The clock is an explicit time: no waiting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger, type CoreDeps } from '../../../src-main/core/context';
import { claimDue, claimDueAttempts, fanOut, type EndpointCap } from '../../../src-main/core/webhooks/deliveries';
import { ManualClock } from '../../../src-main/core/clock';
import { claim, complete, enqueue, retry, type Job } from '../../../src-main/jobs/queue';
import { migratePostgres } from '../../../src-main/store/pg/migrate';
import { createPgServicePort, type PgServicePort } from '../../../src-main/store/pg/pg-service';
import { TEST_CONFIG } from '../../helpers/core-deps';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';

let db: TestDatabase;
const ports: PgServicePort[] = [];
const T0 = Date.parse('2026-12-01T09:00:00.000Z');

beforeAll(async () => {
  db = await freshDatabase();
  const setup = createPgServicePort(db.url, { listen: false });
  await migratePostgres(setup);
  await setup.close();
}, 60_000);

afterAll(async () => {
  for (const p of ports) await p.close();
  await db?.drop();
});

function instance(): PgServicePort {
  const p = createPgServicePort(db.url, { max: 6, listen: false });
  ports.push(p);
  return p;
}

function depsOf(sql: PgServicePort, clock: ManualClock, leaseMs?: number): CoreDeps {
  return { sql, clock, log: silentLogger, config: { ...TEST_CONFIG, ...(leaseMs !== undefined ? { leaseMs } : {}) } } as CoreDeps;
}

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('job claims on PostgreSQL', () => {
  it('a claim passes over the jobs another instance has locked instead of waiting for them', async () => {
    const [a, b] = [instance(), instance()];
    for (let i = 0; i < 6; i++) await enqueue(a, T0, 'skip', { i }, { id: `job_skip_${i}`, runAtMs: T0 + i });
    const aClaimed = deferred<Job[]>();
    const release = deferred();
    // A's claim stays uncommitted (its rows locked) until B's claim has returned: B waiting for A's locks would
    // never return, and the test would end at its timeout instead of passing.
    const held = a.transaction(
      async (tx) => {
        const jobs = await claim(tx, T0 + 10, ['skip'], 60_000, 2);
        aClaimed.resolve(jobs);
        await release.promise;
        return jobs;
      },
      { isolation: 'read committed' },
    );
    const fromA = await aClaimed.promise;
    expect(fromA.map((j) => j.id)).toEqual(['job_skip_0', 'job_skip_1']);
    const fromB = await claim(b, T0 + 10, ['skip'], 60_000, 10);
    expect(fromB.map((j) => j.id)).toEqual(['job_skip_2', 'job_skip_3', 'job_skip_4', 'job_skip_5']);
    release.resolve();
    await held;
    const rows = await a.all<{ id: string; state: string; attempts: number }>("SELECT id, state, attempts FROM jobs WHERE kind = 'skip' ORDER BY id");
    expect(rows.every((r) => r.state === 'leased' && r.attempts === 1)).toBe(true);
    // Nothing left to claim: every lease is young.
    expect(await claim(b, T0 + 10, ['skip'], 60_000, 10)).toEqual([]);
  });

  it('claims racing over three instances take every due job exactly once, without serialization retries', async () => {
    const inst = [instance(), instance(), instance()];
    const N = 240;
    await inst[0]!.transaction(async (tx) => {
      for (let i = 0; i < N; i++) await enqueue(tx, T0, 'race', { i }, { id: `job_race_${String(i).padStart(3, '0')}`, runAtMs: T0 + (i % 17) });
    });
    const before = inst.map((p) => p.retries);
    const claimedBy: string[][] = inst.map(() => []);
    const refused: string[] = [];
    // Four workers per instance, each claiming up to 5 at a time and completing what it claimed, until none is due.
    const worker = async (k: number) => {
      const port = inst[k]!;
      for (;;) {
        const jobs = await claim(port, T0 + 100, ['race'], 60_000, 5);
        if (jobs.length === 0) return;
        for (const j of jobs) {
          claimedBy[k]!.push(j.id);
          if (!(await complete(port, T0 + 101, j))) refused.push(j.id);
        }
      }
    };
    await Promise.all(inst.flatMap((_, k) => [0, 1, 2, 3].map(() => worker(k))));
    const all = claimedBy.flat();
    expect(all).toHaveLength(N);
    expect(new Set(all).size).toBe(N);
    expect(refused).toEqual([]);
    const states = await inst[0]!.all<{ state: string; attempts: number; n: number }>(
      "SELECT state, attempts, count(*) AS n FROM jobs WHERE kind = 'race' GROUP BY state, attempts",
    );
    expect(states).toEqual([{ state: 'done', attempts: 1, n: N }]);
    // READ COMMITTED claims and token-conditional completions: nothing for PostgreSQL to refuse and run again.
    expect(inst.map((p, k) => p.retries - before[k]!)).toEqual([0, 0, 0]);
    console.log(`[claims] ${N} jobs over 3 instances × 4 workers: claimed ${claimedBy.map((c) => c.length).join(' / ')}`);
  });

  it('an expired lease is claimed again by any instance; the old holder can neither complete nor retry it', async () => {
    const [a, b] = [instance(), instance()];
    await enqueue(a, T0, 'lease', {}, { id: 'job_lease' });
    const [first] = await claim(a, T0, ['lease'], 1_000, 1);
    expect(first).toMatchObject({ id: 'job_lease', attempts: 1 });
    expect(await claim(b, T0 + 999, ['lease'], 1_000, 1)).toEqual([]);
    const [second] = await claim(b, T0 + 1_000, ['lease'], 1_000, 1);
    expect(second).toMatchObject({ id: 'job_lease', attempts: 2 });
    expect(second!.leaseToken).not.toBe(first!.leaseToken);
    expect(await complete(a, T0 + 1_001, first!)).toBe(false);
    expect(await retry(a, T0 + 1_001, first!, T0 + 5_000, 'stale')).toBe('lost');
    expect(await complete(b, T0 + 1_002, second!)).toBe(true);
    expect(await a.get("SELECT state, attempts, lease_token FROM jobs WHERE id = 'job_lease'")).toEqual({ state: 'done', attempts: 2, lease_token: null });
  });
});

describe('outbox fan-out and delivery claims on PostgreSQL', () => {
  const EVENTS = 120;

  it('three instances fanning out together make each delivery once', async () => {
    const inst = [instance(), instance(), instance()];
    const clock = new ManualClock(T0 + 10_000);
    await inst[0]!.transaction(async (tx) => {
      await tx.run("INSERT INTO organizations (id, name, created_at) VALUES ('org_claims', 'Claims', ?)", [new Date(T0).toISOString()]);
      for (const h of ['whk_claims_a', 'whk_claims_b']) {
        await tx.run(
          `INSERT INTO webhooks (id, organization_id, environment, url, events, status, secret, active_since_ms, created_at, updated_at)
           VALUES (?, 'org_claims', 'sandbox', 'http://127.0.0.1:9/hook', '["verification.completed"]', 'active', 'sealed', 0, ?, ?)`,
          [h, new Date(T0).toISOString(), new Date(T0).toISOString()],
        );
      }
      for (let i = 0; i < EVENTS; i++) {
        await tx.run(
          `INSERT INTO outbox_events (id, organization_id, environment, event_type, verification_id, payload, created_at)
           VALUES (?, 'org_claims', 'sandbox', 'verification.completed', ?, '{}', ?)`,
          [`evt_claims_${String(i).padStart(3, '0')}`, `ver_claims_${i}`, new Date(T0 + (i % 7)).toISOString()],
        );
      }
    });
    const counted = [0, 0, 0];
    // Two loops per instance, each fanning out 10 events at a time until none is left.
    const loop = async (k: number) => {
      const deps = depsOf(inst[k]!, clock);
      for (;;) {
        const n = await fanOut(deps, 10);
        if (n === 0) return;
        counted[k]! += n;
      }
    };
    await Promise.all(inst.flatMap((_, k) => [loop(k), loop(k)]));
    // Every event fanned out by exactly one transaction (a locked one is passed over, a dispatched one re-checked).
    expect(counted.reduce((s, n) => s + n, 0)).toBe(EVENTS);
    const q = inst[0]!;
    expect(await q.get('SELECT count(*) AS n FROM outbox_events WHERE dispatched_at IS NULL')).toEqual({ n: 0 });
    expect(await q.get('SELECT count(*) AS n, count(DISTINCT (webhook_id, event_id)) AS pairs FROM webhook_deliveries')).toEqual({ n: 2 * EVENTS, pairs: 2 * EVENTS });
    console.log(`[claims] ${EVENTS} events fanned out by 3 instances × 2 loops: ${counted.join(' / ')}`);
  });

  it('racing delivery claims lease each due delivery once; an expired attempt lease is taken over under the same delivery id', async () => {
    const inst = [instance(), instance(), instance()];
    const clock = new ManualClock(T0 + 20_000);
    const ids = (await inst[0]!.all<{ id: string }>("SELECT id FROM webhook_deliveries WHERE status = 'pending' ORDER BY id")).map((r) => r.id);
    expect(ids).toHaveLength(2 * EVENTS);
    const claimAll = async () => {
      const got: string[][] = inst.map(() => []);
      const loop = async (k: number) => {
        const deps = depsOf(inst[k]!, clock, 1_000);
        for (;;) {
          const batch = await claimDue(deps, 7);
          if (batch.length === 0) return;
          got[k]!.push(...batch);
        }
      };
      await Promise.all(inst.flatMap((_, k) => [loop(k), loop(k)]));
      return got;
    };
    const first = await claimAll();
    expect(first.flat().sort()).toEqual(ids);
    // Leased for 1 s: nobody may take them before it has passed…
    clock.advance(999);
    expect(await claimDue(depsOf(inst[1]!, clock, 1_000), 500)).toEqual([]);
    // …and then any instance takes them over, ids unchanged (an attempt is signed with its delivery id).
    clock.advance(1);
    const again = await claimAll();
    expect(again.flat().sort()).toEqual(ids);
    const leases = await inst[0]!.all<{ lease_until_ms: number; n: number }>('SELECT lease_until_ms, count(*) AS n FROM webhook_deliveries GROUP BY lease_until_ms');
    expect(leases).toEqual([{ lease_until_ms: clock.now() + 1_000, n: 2 * EVENTS }]);
    console.log(`[claims] ${2 * EVENTS} deliveries claimed by 3 instances × 2 loops: ${first.map((c) => c.length).join(' / ')}, after expiry ${again.map((c) => c.length).join(' / ')}`);
  });

  it('racing claims that keep a per-endpoint limit lease each due delivery once, never more of a webhook than its room, and find the others behind a webhook at its limit', async () => {
    const inst = [instance(), instance(), instance()];
    const clock = new ManualClock(T0 + 30_000); // every lease of the test above has ended
    const byHook = async () =>
      new Map(
        (await inst[0]!.all<{ webhook_id: string; ids: string }>(
          "SELECT webhook_id, string_agg(id, ',' ORDER BY id) AS ids FROM webhook_deliveries WHERE status = 'pending' GROUP BY webhook_id",
        )).map((r) => [r.webhook_id, r.ids.split(',')]),
      );
    const all = await byHook();
    expect([...all.keys()].sort()).toEqual(['whk_claims_a', 'whk_claims_b']);
    const race = async (cap: () => EndpointCap) => {
      const got: string[] = [];
      let most = 0;
      const loop = async (k: number) => {
        const deps = depsOf(inst[k]!, clock, 1_000);
        for (;;) {
          const batch = await claimDueAttempts(deps, 7, cap());
          if (batch.length === 0) return;
          const per = new Map<string, number>();
          for (const a of batch) per.set(a.d.webhook_id, (per.get(a.d.webhook_id) ?? 0) + 1);
          most = Math.max(most, ...per.values());
          got.push(...batch.map((a) => a.d.id));
        }
      };
      await Promise.all(inst.flatMap((_, k) => [loop(k), loop(k)]));
      return { got: got.sort(), most };
    };
    // Three per webhook per claim: the claims read a window of the oldest due and keep each webhook within its room.
    const limited = await race(() => ({ perEndpoint: 3, held: new Map() }));
    expect(limited.most).toBeLessThanOrEqual(3);
    expect(limited.got).toEqual([...all.values()].flat().sort());
    // Webhook a at its limit everywhere: every claim passes over its deliveries (the oldest due, mixed with b's) and
    // b's are all found, each once.
    clock.advance(1_000);
    const behind = await race(() => ({ perEndpoint: 3, held: new Map([['whk_claims_a', 3]]) }));
    expect(behind.most).toBeLessThanOrEqual(3);
    expect(behind.got).toEqual(all.get('whk_claims_b'));
    console.log(`[claims] limited claims: ${limited.got.length} leased, at most ${limited.most} of a webhook per claim; behind a webhook at its limit: ${behind.got.length}`);
  });
});
