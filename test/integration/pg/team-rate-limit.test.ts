// The per-credential request budget on a team server (issue 17, docs/team-server.md "Idempotency and rate limits
// across instances"): three `serve` instances on one PostgreSQL database count each credential's requests in the
// database, so N requests per minute are N whichever instances answer them; the N+1-th gets 429 RATE_LIMITED with
// Retry-After from any instance. One clock for the three (one process), moved by the test: no timing involved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import { api, type ApiResponse, type TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';
import { startInstances } from '../../helpers/team-instances';

const BUDGET = 10;
let db: TestDatabase;
let clock: ManualClock;
let instances: TestService[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  clock = new ManualClock();
  instances = await startInstances(db.url, 3, { clock, rateLimitPerMinute: BUDGET });
}, 60_000);

afterAll(async () => {
  for (const t of instances) await t.stop();
  await db?.drop();
});

/** One authenticated request (a lookup of an id that does not exist: 404 once admitted). */
function request(t: TestService, key: string): Promise<ApiResponse> {
  return api(t.url, 'GET', '/verify/ver_00000000000000000000000', { key });
}

function admitted(r: ApiResponse): boolean {
  if (r.status === 429) return false;
  expect(r.status, r.text).toBe(404);
  return true;
}

function expectRefused(r: ApiResponse, retryAfter: number): void {
  expect(r.status, r.text).toBe(429);
  expect(r.body.code).toBe('RATE_LIMITED');
  expect(r.headers.get('retry-after')).toBe(String(retryAfter));
}

describe('the rate limit of a key over three instances on one PostgreSQL database', () => {
  it('admits the budget over the three, then refuses the next request on every instance with Retry-After', async () => {
    const key = instances[0]!.sandboxKey;
    const first = await Promise.all(Array.from({ length: BUDGET }, (_, i) => request(instances[i % 3]!, key)));
    expect(first.filter(admitted)).toHaveLength(BUDGET);
    // The window opened at the first request (the clock has not moved): 60 seconds left.
    for (const t of instances) expectRefused(await request(t, key), 60);
    clock.advance(45_000);
    for (const t of instances) expectRefused(await request(t, key), 15);
    // Another credential has a budget of its own.
    expect(admitted(await request(instances[1]!, instances[0]!.liveKey))).toBe(true);
  });

  it('admits exactly the budget of many concurrent requests spread over the three, whatever their order', async () => {
    // A new window for every credential.
    clock.advance(60_000);
    const key = instances[0]!.liveKey;
    const results = await Promise.all(Array.from({ length: 3 * BUDGET + 5 }, (_, i) => request(instances[i % 3]!, key)));
    expect(results.filter(admitted)).toHaveLength(BUDGET);
    for (const r of results) if (r.status === 429) expectRefused(r, 60);
  });

  it('opens a new window a minute after the last one opened', async () => {
    const key = instances[0]!.liveKey;
    expectRefused(await request(instances[2]!, key), 60);
    clock.advance(59_999);
    expectRefused(await request(instances[0]!, key), 1);
    clock.advance(1);
    const next = await Promise.all(Array.from({ length: BUDGET + 1 }, (_, i) => request(instances[i % 3]!, key)));
    expect(next.filter(admitted)).toHaveLength(BUDGET);
  });
});
