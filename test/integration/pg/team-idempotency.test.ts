// Idempotency-Keys on a team server (issue 17, docs/team-server.md "Idempotency and rate limits across instances"):
// three `serve` instances on one PostgreSQL database. The key is claimed in the database, so a duplicate sent to any
// instance while the first request runs gets 409 IDEMPOTENCY_IN_PROGRESS, a finished one a replay, another body a
// conflict; 20 concurrent duplicates spread over the three execute once (one record, one charge for a live key); a
// claim left by an instance that died blocks its retries only until its lease expires.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import { CLAIM_LEASE_MS, CLAIM_RENEW_MS, fingerprint, idempotencyScope } from '../../../src-main/core/idempotency/idempotency';
import { housekeeping } from '../../../src-main/jobs/housekeeping';
import { createPgPort, type PgPort } from '../../../src-main/store/pg/pg-port';
import type { ProviderRegistry } from '../../../src-main/core/verification/engine';
import { api, enableLive, newKey, NG_OK, type ApiResponse, type TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';
import { startInstances } from '../../helpers/team-instances';

let db: TestDatabase;
let port: PgPort;
let clock: ManualClock;
const instances: TestService[] = [];
const PRICE = 25;

beforeAll(async () => {
  db = await freshDatabase();
  port = createPgPort(db.url);
  // One clock for the three instances (one process): the lease test moves it for all of them.
  clock = new ManualClock();
  instances.push(...(await startInstances(db.url, 3, { clock })));
  await enableLive(a(), 'account:NG', { price: PRICE, balance: 100_000 });
}, 60_000);

afterAll(async () => {
  for (const t of instances) await t.stop();
  await port?.close();
  await db?.drop();
});

const a = () => instances[0]!;
const orgId = () => a().org!.organizationId;

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const r = await port.get<{ n: number }>(`SELECT count(*) AS n FROM ${sql}`, params as never);
  return Number(r!.n);
}

function post(t: TestService, key: string, idem: string, body: object = NG_OK): Promise<ApiResponse> {
  return api(t.url, 'POST', '/verify/account', { key, idem, body });
}

/** The answers of duplicates: exactly one executed (200, not replayed); every other one a replay of it or 409 in progress. */
function executedOnce(results: ApiResponse[]): ApiResponse {
  const executed = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
  expect(executed, results.map((r) => `${r.status} ${r.text}`).join('\n')).toHaveLength(1);
  const first = executed[0]!;
  for (const r of results) {
    if (r === first) continue;
    if (r.status === 200) {
      expect(r.headers.get('idempotent-replayed')).toBe('true');
      expect(r.text).toBe(first.text);
    } else {
      expect(r.status, r.text).toBe(409);
      expect(r.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
      expect(r.body.action.type).toBe('RETRY_LATER');
    }
  }
  return first;
}

/**
 * Holds the sandbox answers of one instance until released: a request is then provably in flight there. (Sandbox
 * only: a live async check queued by an earlier test may still be asked by the instance's worker.)
 */
function holdAnswers(t: TestService): { entered: Promise<void>; release: () => void; restore: () => void } {
  const providers = t.service.rt.verification.providers as ProviderRegistry;
  const ask = providers.ask.bind(providers);
  let entered!: () => void;
  let release!: () => void;
  const enteredP = new Promise<void>((r) => (entered = r));
  const gate = new Promise<void>((r) => (release = r));
  providers.ask = async (kind, request, ctx) => {
    if (ctx.environment === 'sandbox') {
      entered();
      await gate;
    }
    return ask(kind, request, ctx);
  };
  return { entered: enteredP, release, restore: () => (providers.ask = ask) };
}

describe('Idempotency-Keys over three instances on one PostgreSQL database', () => {
  it('20 concurrent sandbox duplicates spread over the three execute once; afterwards every instance replays', async () => {
    const idem = newKey();
    const before = await count('verifications');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(instances[i % 3]!, a().sandboxKey, idem)));
    const first = executedOnce(results);
    expect(first.body.status).toBe('success');
    expect(await count('verifications')).toBe(before + 1);
    for (const t of instances) {
      const r = await post(t, a().sandboxKey, idem);
      expect(r.status).toBe(200);
      expect(r.headers.get('idempotent-replayed')).toBe('true');
      expect(r.text).toBe(first.text);
    }
    expect(await count("idempotency_keys WHERE idem_key = ? AND state = 'done'", [idem])).toBe(1);
  });

  it('20 concurrent live duplicates spread over the three: one record, one charge', async () => {
    const idem = newKey();
    const before = await count('verifications');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(instances[(i + 1) % 3]!, a().liveKey, idem)));
    const first = executedOnce(results);
    expect(first.body).toMatchObject({ status: 'success', environment: 'live', charge: { amount: PRICE, status: 'charged' } });
    expect(await count('verifications')).toBe(before + 1);
    expect(await count("ledger_entries WHERE verification_id = ? AND kind = 'charge'", [first.body.id])).toBe(1);
    expect(await count("ledger_entries WHERE verification_id = ? AND kind = 'reversal'", [first.body.id])).toBe(0);
    for (const t of instances) expect((await post(t, a().liveKey, idem)).text).toBe(first.text);
  });

  it('20 concurrent async live duplicates: one record, one charge, one queued check', async () => {
    const idem = newKey();
    const body = { ...NG_OK, mode: 'async' };
    const before = await count('verifications');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(instances[(i + 2) % 3]!, a().liveKey, idem, body)));
    const executed = results.filter((r) => r.status === 202 && r.headers.get('idempotent-replayed') === null);
    expect(executed, results.map((r) => `${r.status} ${r.text}`).join('\n')).toHaveLength(1);
    const id = executed[0]!.body.id as string;
    for (const r of results) {
      if (r === executed[0]) continue;
      if (r.status === 202) expect(r.text).toBe(executed[0]!.text);
      else expect(r.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    }
    expect(await count('verifications')).toBe(before + 1);
    expect(await count("ledger_entries WHERE verification_id = ? AND kind = 'charge'", [id])).toBe(1);
    // One instance's worker completes it (the stand-in answers success): still one charge, no reversal.
    for (let i = 0; i < 500 && (await count("verifications WHERE id = ? AND status = 'pending'", [id])) === 1; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await count("verifications WHERE id = ? AND status = 'success'", [id])).toBe(1);
    expect(await count('ledger_entries WHERE verification_id = ?', [id])).toBe(1);
  });

  it('a duplicate sent to another instance while the first runs gets 409 in progress; another body a conflict; then replays', async () => {
    const idem = newKey();
    const held = holdAnswers(a());
    try {
      const running = post(a(), a().sandboxKey, idem);
      await held.entered;
      // The first request holds the key (its upstream answer is held): every instance sees the claim.
      for (const t of instances) {
        const dup = await post(t, a().sandboxKey, idem);
        expect(dup.status, dup.text).toBe(409);
        expect(dup.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
        const other = await post(t, a().sandboxKey, idem, { ...NG_OK, accountNumber: '0690000031', bankCode: '044' });
        expect(other.status, other.text).toBe(409);
        expect(other.body.code).toBe('IDEMPOTENCY_KEY_CONFLICT');
      }
      held.release();
      const first = await running;
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      for (const t of instances) {
        const r = await post(t, a().sandboxKey, idem);
        expect(r.headers.get('idempotent-replayed')).toBe('true');
        expect(r.text).toBe(first.text);
        const other = await post(t, a().sandboxKey, idem, { ...NG_OK, accountNumber: '0690000031', bankCode: '044' });
        expect(other.body.code).toBe('IDEMPOTENCY_KEY_CONFLICT');
      }
    } finally {
      held.release();
      held.restore();
    }
  });

  it('a request that outlasts the lease keeps its claim: the instance renews it while the request runs', async () => {
    const idem = newKey();
    const scope = idempotencyScope({ organizationId: orgId(), environment: 'sandbox' });
    const expiry = async () => Number((await port.get<{ e: number }>('SELECT expires_at_ms AS e FROM idempotency_keys WHERE scope = ? AND idem_key = ?', [scope, idem]))!.e);
    // The renewal timer is the only interval started while the request runs; the test moves it and the clock.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const held = holdAnswers(a());
    try {
      const running = post(a(), a().sandboxKey, idem);
      await held.entered;
      const t0 = clock.now();
      expect(await expiry()).toBe(t0 + CLAIM_LEASE_MS);
      clock.advance(CLAIM_RENEW_MS);
      vi.advanceTimersByTime(CLAIM_RENEW_MS);
      // The renewal is a write of its own: wait until it committed.
      for (let i = 0; i < 200 && (await expiry()) !== t0 + CLAIM_RENEW_MS + CLAIM_LEASE_MS; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await expiry()).toBe(t0 + CLAIM_RENEW_MS + CLAIM_LEASE_MS);
      // Past the first lease, the claim still holds on every instance.
      clock.advance(CLAIM_LEASE_MS - 1);
      for (const t of instances) expect((await post(t, a().sandboxKey, idem)).body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
      held.release();
      const first = await running;
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      for (const t of instances) expect((await post(t, a().sandboxKey, idem)).text).toBe(first.text);
    } finally {
      held.release();
      held.restore();
      vi.useRealTimers();
    }
  });

  it('a request whose claim expired and was taken over commits nothing: the one that took it over is the answer', async () => {
    const idem = newKey();
    const before = await count('verifications');
    const held = holdAnswers(a());
    try {
      const stalled = post(a(), a().sandboxKey, idem);
      await held.entered;
      // The first instance stops renewing (as if stalled) past its lease: another instance takes the key over.
      clock.advance(CLAIM_LEASE_MS);
      const taker = await post(instances[1]!, a().sandboxKey, idem);
      expect(taker.status, taker.text).toBe(200);
      expect(taker.headers.get('idempotent-replayed')).toBeNull();
      held.release();
      const late = await stalled;
      expect(late.status, late.text).toBe(409);
      expect(late.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
      expect(await count('verifications')).toBe(before + 1);
      for (const t of instances) expect((await post(t, a().sandboxKey, idem)).text).toBe(taker.text);
    } finally {
      held.release();
      held.restore();
    }
  });

  it('a refused request (422) releases its claim: the corrected body with the same key executes on another instance', async () => {
    const idem = newKey();
    const bad = await post(instances[1]!, a().sandboxKey, idem, { country: 'NG', bankCode: '058' });
    expect(bad.status).toBe(422);
    expect(await count('idempotency_keys WHERE idem_key = ?', [idem])).toBe(0);
    const good = await post(instances[2]!, a().sandboxKey, idem);
    expect(good.status).toBe(200);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a claim left by an instance that died blocks its retries until its lease expires; then one retry executes', async () => {
    const idem = newKey();
    const now = clock.now();
    // What an instance that died mid-request leaves: its claim, no answer.
    await port.run(
      `INSERT INTO idempotency_keys (scope, idem_key, fingerprint, state, owner, created_at_ms, expires_at_ms) VALUES (?, ?, ?, 'in_progress', 'dead-instance.1', ?, ?)`,
      [idempotencyScope({ organizationId: orgId(), environment: 'sandbox' }), idem, fingerprint('POST', '/verify/account', NG_OK), now, now + CLAIM_LEASE_MS],
    );
    for (const t of instances) {
      const r = await post(t, a().sandboxKey, idem);
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    }
    clock.advance(CLAIM_LEASE_MS);
    const before = await count('verifications');
    const results = await Promise.all(instances.map((t) => post(t, a().sandboxKey, idem)));
    const first = executedOnce(results);
    expect(await count('verifications')).toBe(before + 1);
    expect((await post(a(), a().sandboxKey, idem)).text).toBe(first.text);
  });

  it('housekeeping removes a claim whose lease expired, never one still held', async () => {
    const scope = idempotencyScope({ organizationId: orgId(), environment: 'sandbox' });
    const [dead, held] = [newKey(), newKey()];
    const now = clock.now();
    const claim = (key: string, expiresAt: number) =>
      port.run(
        `INSERT INTO idempotency_keys (scope, idem_key, fingerprint, state, owner, created_at_ms, expires_at_ms) VALUES (?, ?, 'fp', 'in_progress', 'some-instance.7', ?, ?)`,
        [scope, key, now, expiresAt],
      );
    await claim(dead, now + 1000);
    await claim(held, now + CLAIM_LEASE_MS);
    clock.advance(1000);
    await housekeeping(instances[1]!.service.deps);
    expect(await count('idempotency_keys WHERE idem_key = ?', [dead])).toBe(0);
    expect(await count('idempotency_keys WHERE idem_key = ?', [held])).toBe(1);
  });
});
