// Races (issue 9 item 2), on the real service over real HTTP: duplicate Idempotency-Keys execute once, N charges
// against a balance for N−1 never overdraw, and no request is let through after a key's revocation commits.
// fast-check picks the sizes, modes and launch orders; its scheduler releases the requests in a random order.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getWallet, ledgerSum, topUp } from '../../src-main/core/billing/billing';
import { api, enableLive, login, NG_OK, newKey, startTestService, type TestService } from '../helpers/harness';
import { SOAK } from './child-service';

const RUNS = SOAK ? 40 : 4;
const PRICE = 25;

// Every authorization and revocation gets a place in one sequence: the service runs them on one thread, so the
// order of these calls is the true order in which they took effect. An authorization takes its place when it is
// called (a cache hit answers there and then; a miss reads the store there and then, the SQLite port running the
// statement before it returns its promise) and is recorded when it settles; a revocation takes its place once its
// promise resolved (committed, the key cache entry gone).
const probe = vi.hoisted(() => ({
  seq: 0,
  auth: [] as { seq: number; raw: string | undefined; ok: boolean; code?: string }[],
  revoked: new Map<string, number>(),
}));
vi.mock('../../src-main/core/keys/keys-service', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src-main/core/keys/keys-service')>();
  return {
    ...orig,
    // The fast path of the HTTP door: a principal (or a refusal) from the cache; null sends it to authenticateApiKey.
    cachedApiKeyPrincipal: (...args: Parameters<typeof orig.cachedApiKeyPrincipal>) => {
      const seq = ++probe.seq;
      try {
        const p = orig.cachedApiKeyPrincipal(...args);
        if (p) probe.auth.push({ seq, raw: args[1], ok: true });
        return p;
      } catch (e) {
        probe.auth.push({ seq, raw: args[1], ok: false, code: (e as { code?: string }).code });
        throw e;
      }
    },
    authenticateApiKey: async (...args: Parameters<typeof orig.authenticateApiKey>) => {
      const seq = ++probe.seq;
      try {
        const p = await orig.authenticateApiKey(...args);
        probe.auth.push({ seq, raw: args[1], ok: true });
        return p;
      } catch (e) {
        probe.auth.push({ seq, raw: args[1], ok: false, code: (e as { code?: string }).code });
        throw e;
      }
    },
    revokeKeyFor: async (...args: Parameters<typeof orig.revokeKeyFor>) => {
      const r = await orig.revokeKeyFor(...args);
      // Recorded once it resolves: the UPDATE has committed and the key cache entry is gone.
      probe.revoked.set(args[2], ++probe.seq);
      return r;
    },
  };
});

let ts: TestService;
const figures = { duplicates: 0, duplicateRuns: 0, overdrawRequests: 0, overdrawRuns: 0, revocationRequests: 0, revocationRuns: 0, revocationAllowed: 0, revocationRefused: 0, balanceSamples: 0 };

beforeAll(async () => {
  ts = await startTestService();
  await enableLive(ts, 'account:NG', { price: PRICE, balance: PRICE });
});
afterAll(async () => {
  await ts.stop();
  console.log(
    `races: duplicate-key runs=${figures.duplicateRuns} requests=${figures.duplicates}; overdraw runs=${figures.overdrawRuns} requests=${figures.overdrawRequests} ` +
      `balance samples=${figures.balanceSamples}; revocation runs=${figures.revocationRuns} requests=${figures.revocationRequests} (authorized before ${figures.revocationAllowed}, refused after ${figures.revocationRefused})`,
  );
});

const db = () => ts.service.deps.db!;
const org = () => ts.org!.organizationId;
const count = (sql: string, ...args: unknown[]) => (db().prepare(sql).get(...args) as { n: number }).n;

/** Launches the calls in the order the scheduler picks, all before any answer is awaited. */
async function launchScheduled<T>(s: fc.Scheduler, calls: (() => Promise<T>)[]): Promise<T[]> {
  const all = calls.map((call, i) => s.schedule(Promise.resolve(i), `req ${i}`).then(() => call()));
  await s.waitAll();
  return Promise.all(all);
}

describe('duplicate Idempotency-Keys (extends test/integration/foundation/idempotency.test.ts "20 concurrent duplicates")', () => {
  it('20–50 concurrent duplicates, sandbox or live, sync or async: one execution, one record, at most one charge', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 20, max: 50 }),
        fc.constantFrom('sandbox' as const, 'live' as const),
        fc.boolean(),
        fc.scheduler(),
        async (n, env, async, s) => {
          if (env === 'live') await topUp(ts.service.deps, org(), PRICE, 'USD');
          const balance = (await getWallet(ts.service.deps, org())).balance;
          const records = count('SELECT count(*) AS n FROM verifications');
          const charges = count("SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'");
          const idem = newKey();
          const body = async ? { ...NG_OK, mode: 'async' } : NG_OK;
          const key = env === 'live' ? ts.liveKey : ts.sandboxKey;
          const res = await launchScheduled(
            s,
            Array.from({ length: n }, () => () => api(ts.url, 'POST', '/verify/account', { key, idem, body })),
          );
          figures.duplicates += n;
          figures.duplicateRuns += 1;
          const executed = res.filter((r) => (r.status === 200 || r.status === 202) && r.headers.get('idempotent-replayed') === null);
          expect(executed).toHaveLength(1);
          const id = executed[0]!.body.id as string;
          for (const r of res) {
            if (r.status === 409) expect(r.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
            else {
              expect(r.status).toBe(async ? 202 : 200);
              expect(r.body.id).toBe(id);
            }
          }
          expect(count('SELECT count(*) AS n FROM verifications')).toBe(records + 1);
          expect(count("SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'")).toBe(charges + (env === 'live' ? 1 : 0));
          expect((await getWallet(ts.service.deps, org())).balance).toBe(balance - (env === 'live' ? PRICE : 0));
          await ts.service.worker.drain();
        },
      ),
      { numRuns: RUNS },
    );
    expect(await ledgerSum(ts.service.deps, org())).toBe((await getWallet(ts.service.deps, org())).balance);
  });
});

describe('overdraw (extends test/integration/verification/billing.test.ts "N concurrent … N−1")', () => {
  it('N concurrent live charges, sync and async mixed, against a balance for N−1: N−1 charged, one 402, never negative', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 30 }).chain((n) => fc.tuple(fc.constant(n), fc.array(fc.boolean(), { minLength: n, maxLength: n }))),
        fc.scheduler(),
        async ([n, asyncFlags], s) => {
          await ts.service.worker.drain();
          // What earlier runs left is a whole number of checks; those requests join the race.
          const start = (await getWallet(ts.service.deps, org())).balance;
          expect(start % PRICE).toBe(0);
          const flags = [...asyncFlags, ...Array.from({ length: start / PRICE }, () => false)];
          const affordable = flags.length - 1;
          await topUp(ts.service.deps, org(), PRICE * (n - 1), 'USD');
          // The store's own CHECK (balance >= 0) would throw on an overdraw; the sampler also watches it move.
          let min = Infinity;
          let sampling = true;
          const sampler = (async () => {
            while (sampling) {
              min = Math.min(min, (await getWallet(ts.service.deps, org())).balance);
              figures.balanceSamples += 1;
              await new Promise((r) => setImmediate(r));
            }
          })();
          const res = await launchScheduled(
            s,
            flags.map((a) => () => api(ts.url, 'POST', '/verify/account', { key: ts.liveKey, idem: newKey(), body: a ? { ...NG_OK, mode: 'async' } : NG_OK })),
          );
          sampling = false;
          await sampler;
          figures.overdrawRequests += flags.length;
          figures.overdrawRuns += 1;
          const ok = res.filter((r) => r.status === 200 || r.status === 202);
          const refused = res.filter((r) => r.status === 402);
          expect(ok.length).toBe(affordable);
          expect(refused.map((r) => r.body.code)).toEqual(['INSUFFICIENT_FUNDS']);
          expect(min).toBeGreaterThanOrEqual(0);
          expect((await getWallet(ts.service.deps, org())).balance).toBe(0);
          await ts.service.worker.drain();
          expect(await ledgerSum(ts.service.deps, org())).toBe((await getWallet(ts.service.deps, org())).balance);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('revocation while requests are in flight (extends test/integration/foundation/auth-keys.test.ts "revokes a key")', () => {
  it('no authorization succeeds after the revocation commits; every request sent after it is refused', async () => {
    const tokens = await login(ts.url, ts.email);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 20, max: 60 }), fc.integer({ min: 4, max: 16 }), fc.double({ min: 0.1, max: 0.9, noNaN: true }), async (total, width, at) => {
        const created = await api(ts.url, 'POST', '/client/api-keys', { token: tokens.accessToken, body: { name: `race-${newKey()}`, environment: 'sandbox' } });
        expect(created.status).toBe(201);
        const raw = created.body.key as string;
        const keyId = created.body.id as string;
        const before = count("SELECT count(*) AS n FROM verifications WHERE organization_id = ? AND environment = 'sandbox'", org());
        const revokeAfter = Math.floor(total * at);
        let revokeAnsweredAt: number | null = null;
        let sent = 0;
        const results: { sentAfterRevoke: boolean; status: number; code?: string }[] = [];
        let revoke = null as Promise<unknown> | null;
        // `width` requests in flight at a time; the revocation goes out while they are.
        const lane = async () => {
          while (sent < total) {
            const i = sent++;
            if (i === revokeAfter) {
              revoke = api(ts.url, 'DELETE', `/client/api-keys/${keyId}`, { token: tokens.accessToken }).then((r) => {
                expect(r.status).toBe(200);
                revokeAnsweredAt = probe.seq;
              });
            }
            const sentAfterRevoke = revokeAnsweredAt !== null;
            const r = await api(ts.url, 'POST', '/verify/account', { key: raw, idem: newKey(), body: NG_OK });
            results.push({ sentAfterRevoke, status: r.status, code: r.body?.code });
          }
        };
        await Promise.all(Array.from({ length: width }, lane));
        await revoke;
        figures.revocationRequests += total;
        figures.revocationRuns += 1;

        const revokedSeq = probe.revoked.get(keyId);
        expect(revokedSeq).toBeDefined();
        const mine = probe.auth.filter((a) => a.raw === raw);
        // Every request was authorized exactly once (the probe really sees them).
        expect(mine).toHaveLength(total);
        // The server-side view: after the revocation committed, no authorization of this key succeeded.
        expect(mine.filter((a) => a.seq > revokedSeq! && a.ok)).toEqual([]);
        expect(mine.filter((a) => a.seq > revokedSeq!).every((a) => a.code === 'API_KEY_REVOKED')).toBe(true);
        // The client's view: whatever was sent after the revocation's answer came back got 401.
        for (const r of results.filter((x) => x.sentAfterRevoke)) expect([r.status, r.code]).toEqual([401, 'API_KEY_REVOKED']);
        // Exactly the requests that were authorized before it made a record; none was lost or added.
        const authorized = mine.filter((a) => a.ok).length;
        figures.revocationAllowed += authorized;
        figures.revocationRefused += total - authorized;
        expect(results.filter((r) => r.status === 200).length).toBe(authorized);
        expect(count("SELECT count(*) AS n FROM verifications WHERE organization_id = ? AND environment = 'sandbox'", org())).toBe(before + authorized);
        expect(results.filter((r) => r.status !== 200).every((r) => r.status === 401 && r.code === 'API_KEY_REVOKED')).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
