// The per-account sign-in limit on a team server (decisions §6, docs/team-server.md "Failed sign-ins"): two `serve`
// instances on one PostgreSQL database, wrong-password logins for one account sent to both at once. Attempts still
// being hashed count toward the account's limit on every instance (a reservation row in the store, not a count in
// one process's memory), so the two instances together check at most 10 passwords.
//
// Deterministic: every password check is held back (verifyPassword waits on a gate) until each attempt has either
// reached its check or been answered, so no attempt's hash can end, and free a place, before all the others were
// decided — the worst interleaving for the limit, every time. Before migration 26 each instance let 10 of its 11
// through (20 checks).
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import { ACCOUNT_MAX_FAILURES, LOGIN_RESERVATION_MS, LOGIN_WINDOW_MS } from '../../../src-main/core/auth/sign-in';
import type { TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';
import { startInstances } from '../../helpers/team-instances';

/** Password checks wait here while `holding`; `held` counts those waiting. */
const gate = vi.hoisted(() => {
  const waiters: (() => void)[] = [];
  return {
    holding: false,
    get held() {
      return waiters.length;
    },
    wait: () => new Promise<void>((r) => waiters.push(r)),
    release() {
      this.holding = false;
      for (const w of waiters.splice(0)) w();
    },
  };
});

vi.mock('../../../src-main/core/auth/passwords', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src-main/core/auth/passwords')>();
  return {
    ...real,
    verifyPassword: async (password: string, stored: string) => {
      if (gate.holding) await gate.wait();
      return real.verifyPassword(password, stored);
    },
  };
});

let db: TestDatabase;
const clock = new ManualClock();
const instances: TestService[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  instances.push(...(await startInstances(db.url, 2, { clock })));
}, 60_000);

afterAll(async () => {
  gate.release();
  for (const t of instances) await t.stop();
  await db?.drop();
});

/** POST /api/v1/auth/login from a client address of its own (any 127.x.y.z is loopback on Linux). */
function login(ts: TestService, email: string, password: string, from: string): Promise<{ status: number; retryAfter: string | undefined; code: string | undefined }> {
  const payload = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: ts.port, method: 'POST', path: '/api/v1/auth/login', localAddress: from, agent: false, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let code: string | undefined;
          try {
            code = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code?: string }).code;
          } catch {
            /* not JSON */
          }
          const ra = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(ra) ? ra[0] : ra, code });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The account's failures that count now (within the window). */
async function failures(email: string): Promise<number> {
  const sql = 'SELECT count(*) AS n FROM login_failures WHERE email = ? AND at_ms > ?';
  return (await instances[0]!.service.deps.sql.get<{ n: number }>(sql, [email, clock.now() - LOGIN_WINDOW_MS]))!.n;
}

async function reservations(email: string): Promise<number> {
  return (await instances[0]!.service.deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM login_reservations WHERE email = ?', [email]))!.n;
}

/** Waits until `done()` holds (polled; the bound only keeps a broken fix from hanging the file). */
async function until(done: () => boolean, what: string): Promise<void> {
  const giveUpAt = Date.now() + 20_000;
  while (Date.now() < giveUpAt && !done()) await new Promise((r) => setTimeout(r, 1));
  if (!done()) throw new Error(`timed out waiting for ${what}`);
}

describe('the per-account sign-in limit across instances', () => {
  it(`concurrent wrong-password logins for one account on two instances: at most ${ACCOUNT_MAX_FAILURES} password checks, the rest 429`, async () => {
    clock.advance(16 * 60_000);
    const email = instances[0]!.email;
    // More than the limit on each instance: each must refuse some, whatever the order the attempts come in.
    const PER_INSTANCE = ACCOUNT_MAX_FAILURES + 1;
    const total = 2 * PER_INSTANCE;
    gate.holding = true;
    let answered = 0;
    // One client address per attempt: the per-address limits (2 at once, 50 failures) never come into it.
    const attempts = Array.from({ length: total }, (_, i) =>
      login(instances[i % 2]!, email, `wrong password ${i}`, `127.0.1.${1 + i}`).finally(() => answered++),
    );
    // Every attempt is decided: held at its password check, or answered (429) without one.
    await until(() => gate.held + answered === total, 'every attempt to be checked or refused');
    const heldAtOnce = gate.held;
    gate.release();
    const results = await Promise.all(attempts);
    expect(heldAtOnce, 'password checks started while none had ended').toBeLessThanOrEqual(ACCOUNT_MAX_FAILURES);
    const statuses = results.map((r) => r.status);
    const checked = statuses.filter((s) => s === 401).length;
    expect(statuses.every((s) => s === 401 || s === 429), statuses.join(',')).toBe(true);
    expect(checked, 'password checks (401) across both instances').toBeLessThanOrEqual(ACCOUNT_MAX_FAILURES);
    // Every instance took its share of the refusals: the limit is the account's, not each instance's.
    for (const i of [0, 1]) expect(results.filter((r, k) => k % 2 === i && r.status === 429).length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 429).every((r) => r.code === 'TOO_MANY_LOGIN_ATTEMPTS' && Number(r.retryAfter) > 0)).toBe(true);
    expect(await failures(email)).toBe(checked);
    expect(await reservations(email), 'every reservation settled').toBe(0);
    // Nothing in flight now: exactly the limit was used, and the next attempt on either instance is refused.
    expect(checked).toBe(ACCOUNT_MAX_FAILURES);
    for (const ts of instances) {
      const r = await login(ts, email, 'wrong password again', '127.0.3.1');
      expect(r.status).toBe(429);
      expect(Number(r.retryAfter)).toBeGreaterThan(1);
    }
  });

  it('a reservation left by an instance that died mid-check counts only until it expires', async () => {
    clock.advance(16 * 60_000);
    const email = instances[0]!.email;
    const sql = instances[0]!.service.deps.sql;
    // As an instance that crashed while hashing would leave them: reservations that were never settled.
    for (let i = 0; i < ACCOUNT_MAX_FAILURES; i++) {
      await sql.run('INSERT INTO login_reservations (id, email, until_ms) VALUES (?, ?, ?)', [`crashed-${i}`, email, clock.now() + LOGIN_RESERVATION_MS]);
    }
    const refused = await login(instances[1]!, email, 'wrong password', '127.0.4.1');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('1');
    clock.advance(LOGIN_RESERVATION_MS);
    const checked = await login(instances[1]!, email, 'wrong password', '127.0.4.2');
    expect(checked.status).toBe(401);
    // The expired reservations are gone with that attempt; the failure is stored.
    expect(await reservations(email)).toBe(0);
    expect(await failures(email)).toBe(1);
  });
});
