// Housekeeping (jobs/housekeeping.ts, docs/reliability.md): finished jobs older than the retention and finished
// idempotency keys past their expiry are removed; queued and leased jobs, keys in flight and keys still answered
// stay. Real service over real HTTP on a real SQLite file; only the clock is faked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import { RETENTION_MS } from '../../../src-main/core/idempotency/idempotency';
import { claim, complete, enqueue } from '../../../src-main/jobs/queue';
import { DONE_JOB_RETENTION_MS, housekeeping } from '../../../src-main/jobs/housekeeping';
import { FEATURES } from '../../../src-main/features';
import { api, newKey, NG_OK, startTestService, type TestService } from '../../helpers/harness';

let ts: TestService;
const clock = new ManualClock();

beforeAll(async () => {
  ts = await startTestService({ clock });
});
afterAll(async () => {
  await ts?.stop();
});

const count = async (sql: string, ...params: string[]) => (await ts.service.deps.sql.get<{ n: number }>(sql, params))!.n;
const KIND = 'housekeeping-test';

describe('housekeeping', () => {
  it('is one of the features the queue process starts', () => {
    expect(FEATURES.some((f) => f.name === 'housekeeping' && typeof f.start === 'function')).toBe(true);
  });

  it('removes done jobs past the retention and expired idempotency keys, and nothing else', async () => {
    const q = ts.service.deps.sql;
    // Jobs of a kind no worker claims: one finished now (old later), one left queued, one leased.
    const t0 = clock.now();
    const finished = await enqueue(q, t0, KIND, {});
    const queued = await enqueue(q, t0, KIND, {}, { runAtMs: t0 + 365 * 24 * 3_600_000 });
    const [job] = await claim(q, t0, [KIND], 60_000);
    expect(job?.id).toBe(finished);
    expect(await complete(q, t0, job!)).toBe(true);
    const leased = await enqueue(q, t0, KIND, {});
    expect((await claim(q, t0, [KIND], 30 * 24 * 3_600_000)).map((j) => j.id)).toEqual([leased]);

    // An answered idempotent request (its key is stored with the answer).
    const oldKey = newKey();
    const first = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, body: NG_OK, idem: oldKey });
    expect(first.status).toBe(200);
    expect(await count('SELECT count(*) AS n FROM idempotency_keys WHERE idem_key = ?', oldKey)).toBe(1);

    // Before their time nothing goes.
    expect(await housekeeping(ts.service.deps)).toEqual({ jobs: 0, idempotencyKeys: 0 });

    // A day later the key has expired; a newer key is still answered.
    clock.advance(RETENTION_MS + 1);
    const freshKey = newKey();
    expect((await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, body: NG_OK, idem: freshKey })).status).toBe(200);
    const r1 = await housekeeping(ts.service.deps);
    expect(r1.jobs).toBe(0);
    expect(r1.idempotencyKeys).toBeGreaterThanOrEqual(1);
    expect(await count('SELECT count(*) AS n FROM idempotency_keys WHERE idem_key = ?', oldKey)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM idempotency_keys WHERE idem_key = ?', freshKey)).toBe(1);

    // Past the jobs' retention the finished job goes; the queued and the leased ones stay.
    clock.advance(DONE_JOB_RETENTION_MS);
    const r2 = await housekeeping(ts.service.deps);
    expect(r2.jobs).toBeGreaterThanOrEqual(1);
    expect(await count('SELECT count(*) AS n FROM jobs WHERE id = ?', finished)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM jobs WHERE id = ?', queued)).toBe(1);
    expect(await count('SELECT count(*) AS n FROM jobs WHERE id = ?', leased)).toBe(1);
    // The verifications themselves are never touched.
    expect(await count("SELECT count(*) AS n FROM verifications")).toBeGreaterThanOrEqual(2);
  });
});
