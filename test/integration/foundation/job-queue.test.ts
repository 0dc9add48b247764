// The durable job queue's claims and next due time (jobs/queue.ts), on both engines: a claim takes the due jobs of
// its kinds oldest first — queued jobs whose time has come and leased jobs whose lease has expired, merged by their
// time — and nothing else; the next due time is the sooner of the oldest queued job and the earliest lease to end.
// Behind a backlog of queued jobs both still answer from the oldest, and on SQLite the statements they run walk the
// `jobs_ready` index instead of reading the queue (docs/performance.md, "Job claims that do not read the queue").
// Real service on a real store; only the clock is faked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import { claim, nextRunAt } from '../../../src-main/jobs/queue';
import { startTestService, type TestService } from '../../helpers/harness';
import { recordingPort, sqlitePlan } from '../../helpers/sql-plans';

let ts: TestService;
const clock = new ManualClock();
let T: number;

beforeAll(async () => {
  ts = await startTestService({ clock });
  T = clock.now();
});
afterAll(async () => {
  await ts?.stop();
});

// Kinds no worker of the service claims: each test has its own.
let kindSeq = 0;
const newKind = () => `queue-test-${++kindSeq}`;

interface Row {
  id: string;
  kind: string;
  state: 'queued' | 'leased' | 'done' | 'dead';
  runAt: number;
  leaseUntil?: number;
}

async function insertJobs(rows: readonly Row[]): Promise<void> {
  await ts.service.deps.sql.transaction(async (tx) => {
    for (const r of rows) {
      await tx.run(
        `INSERT INTO jobs (id, kind, payload, state, run_at_ms, attempts, max_attempts, lease_token, lease_until_ms, created_at_ms, updated_at_ms)
         VALUES (?, ?, '{}', ?, ?, ?, 10, ?, ?, ?, ?)`,
        [r.id, r.kind, r.state, r.runAt, r.state === 'queued' ? 0 : 1, r.state === 'leased' ? 'old-token' : null, r.leaseUntil ?? null, T, T],
      );
    }
  });
}

const ids = (jobs: readonly { id: string }[]) => jobs.map((j) => j.id);

describe('job claims', () => {
  it('take the due jobs of their kinds oldest first: queued ones due and expired leases, merged by their time', async () => {
    const K = newKind();
    const other = newKind();
    await insertJobs([
      { id: `${K}-q1`, kind: K, state: 'queued', runAt: T - 50 },
      { id: `${K}-l1`, kind: K, state: 'leased', runAt: T - 45, leaseUntil: T - 10 }, // lease expired
      { id: `${K}-q2`, kind: K, state: 'queued', runAt: T - 40 },
      { id: `${K}-l2`, kind: K, state: 'leased', runAt: T - 35, leaseUntil: T + 1_000 }, // held
      { id: `${K}-q3`, kind: K, state: 'queued', runAt: T + 5_000 }, // not due
      { id: `${K}-d1`, kind: K, state: 'done', runAt: T - 70 },
      { id: `${K}-x1`, kind: K, state: 'dead', runAt: T - 70 },
      { id: `${other}-q1`, kind: other, state: 'queued', runAt: T - 60 },
      { id: `${other}-l1`, kind: other, state: 'leased', runAt: T - 65, leaseUntil: T - 20 },
    ]);
    const q = ts.service.deps.sql;
    // Before any claim the oldest queued job is the next due (the other kind's older jobs do not count).
    expect(await nextRunAt(q, [K])).toBe(T - 50);

    const first = await claim(q, T, [K], 60_000, 2);
    expect(ids(first)).toEqual([`${K}-q1`, `${K}-l1`]);
    // The expired lease is taken over: a new token, one attempt more.
    expect(first[1]!.leaseToken).not.toBe('old-token');
    expect(first[1]!.attempts).toBe(2);
    expect(ids(await claim(q, T, [K], 60_000, 10))).toEqual([`${K}-q2`]);
    expect(await claim(q, T, [K], 60_000, 10)).toEqual([]);

    // Now the earliest lease to end (l2's) comes before the queued job's time.
    expect(await nextRunAt(q, [K])).toBe(T + 1_000);
    // Both kinds together: the other kind's jobs (older) come first; then nothing of either is due.
    expect(ids(await claim(q, T, [K, other], 60_000, 10))).toEqual([`${other}-l1`, `${other}-q1`]);
    expect(await nextRunAt(q, [K, other])).toBe(T + 1_000);
    // Once l2's lease has ended it is due again, before q3.
    expect(ids(await claim(q, T + 1_000, [K], 60_000, 10))).toEqual([`${K}-l2`]);
    expect(await nextRunAt(q, [K])).toBe(T + 5_000);
    expect(await nextRunAt(q, [newKind()])).toBeNull();
  });

  it('behind a backlog of queued jobs still take the oldest, and the next due time is the oldest', async () => {
    const K = newKind();
    const backlog = 3_000;
    const rows: Row[] = [];
    for (let i = 0; i < backlog; i++) rows.push({ id: `${K}-q${String(i).padStart(5, '0')}`, kind: K, state: 'queued', runAt: T - 2 * (backlog - i) });
    // Two expired leases: one older than the whole backlog, one between its second and third job.
    rows.push({ id: `${K}-l-old`, kind: K, state: 'leased', runAt: T - 2 * backlog - 1, leaseUntil: T - 1 });
    rows.push({ id: `${K}-l-mid`, kind: K, state: 'leased', runAt: T - 2 * backlog + 3, leaseUntil: T - 1 });
    await insertJobs(rows);
    const q = ts.service.deps.sql;
    expect(await nextRunAt(q, [K])).toBe(T - 2 * backlog);
    expect(ids(await claim(q, T, [K], 60_000, 5))).toEqual([`${K}-l-old`, `${K}-q00000`, `${K}-q00001`, `${K}-l-mid`, `${K}-q00002`]);
    expect(ids(await claim(q, T, [K], 60_000, 3))).toEqual([`${K}-q00003`, `${K}-q00004`, `${K}-q00005`]);
    expect(await nextRunAt(q, [K])).toBe(T - 2 * backlog + 12);
    // Claimed to the end, every job exactly once.
    const seen = new Set<string>();
    for (;;) {
      const got = await claim(q, T, [K], 60_000, 500);
      if (got.length === 0) break;
      for (const j of got) {
        expect(seen.has(j.id)).toBe(false);
        seen.add(j.id);
      }
    }
    expect(seen.size).toBe(backlog + 2 - 8);
  });
});

describe.skipIf(process.env['VC_TEST_ENGINE'] === 'postgres')('job claims on SQLite', () => {
  it('walk the jobs_ready index in order: no scan of the jobs and no OR of two ranges sorted whole', async () => {
    const K = newKind();
    const port = ts.service.deps.sql;
    const { port: q, seen } = recordingPort(port);
    await insertJobs([{ id: `${K}-q1`, kind: K, state: 'queued', runAt: T - 1 }]);
    expect(ids(await claim(q, T, [K], 60_000, 4))).toEqual([`${K}-q1`]);
    expect(await nextRunAt(q, [K])).toBe(T + 60_000);
    const reads = seen.filter((s) => /^\s*(SELECT|WITH)/i.test(s.sql));
    expect(reads.length).toBe(2);
    for (const { sql, params } of reads) {
      const plan = await sqlitePlan(port, sql, params);
      expect(plan.some((d) => /USING INDEX jobs_ready/.test(d)), plan.join('\n')).toBe(true);
      expect(plan.filter((d) => /^SCAN jobs\b|MULTI-INDEX OR/.test(d)), plan.join('\n')).toEqual([]);
    }
  });
});
