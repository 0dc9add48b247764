// Billing core (decisions §9): gate order, the append-only ledger, reversal at most once, no overdraft.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src-shared/app-error';
import {
  chargeVerification,
  enableService,
  getWallet,
  ledgerSum,
  listUsage,
  reverseCharge,
  setPrice,
  setWalletStatus,
  topUp,
} from '../../../src-main/core/billing/billing';
import type { CoreDeps } from '../../../src-main/core/context';
import type { SqlParams } from '../../../src-main/store/sql-port';
import { testDeps } from '../../helpers/core-deps';
import { recordingPort, sqlitePlan } from '../../helpers/sql-plans';

function setup(): { deps: CoreDeps; org: string } {
  const deps = testDeps();
  deps.db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'Org', '2026-01-01T00:00:00.000Z')").run();
  return { deps, org: 'org_1' };
}

async function code(fn: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return undefined;
}

const charge = (deps: CoreDeps, org: string, verificationId = `ver_${Math.random()}`) =>
  deps.sql.transaction((tx) => chargeVerification(tx, { organizationId: org, service: 'account:NG', verificationId, nowMs: deps.clock.now() }));

describe('gates, in order', () => {
  it('not enabled → price → suspended → funds → charged', async () => {
    const { deps, org } = setup();
    expect(await code(() => charge(deps, org))).toBe('SERVICE_NOT_ENABLED');
    await enableService(deps, org, 'account:NG');
    expect(await code(() => charge(deps, org))).toBe('SERVICE_PRICE_NOT_CONFIGURED');
    await setPrice(deps, org, 'account:NG', 150, 'USD');
    await setWalletStatus(deps, org, 'suspended');
    expect(await code(() => charge(deps, org))).toBe('WALLET_SUSPENDED');
    await setWalletStatus(deps, org, 'active');
    expect(await code(() => charge(deps, org))).toBe('INSUFFICIENT_FUNDS');
    await topUp(deps, org, 149, 'USD');
    expect(await code(() => charge(deps, org))).toBe('INSUFFICIENT_FUNDS');
    await topUp(deps, org, 1, 'USD');
    expect(await charge(deps, org)).toEqual({ amount: 150, currency: 'USD', status: 'charged' });
    expect((await getWallet(deps, org)).balance).toBe(0);
    expect(await ledgerSum(deps, org)).toBe(0);
  });

  it('the earlier gate wins when several fail', async () => {
    const { deps, org } = setup();
    await setWalletStatus(deps, org, 'suspended');
    expect(await code(() => charge(deps, org))).toBe('SERVICE_NOT_ENABLED');
    await enableService(deps, org, 'account:NG');
    expect(await code(() => charge(deps, org))).toBe('SERVICE_PRICE_NOT_CONFIGURED');
  });

  it('refuses malformed service keys and amounts', async () => {
    const { deps, org } = setup();
    expect(await code(() => enableService(deps, org, 'account:nigeria'))).toBe('VALIDATION_ERROR');
    expect(await code(() => setPrice(deps, org, 'face', 1.5, 'USD'))).toBe('VALIDATION_ERROR');
    expect(await code(() => topUp(deps, org, 0, 'USD'))).toBe('VALIDATION_ERROR');
    expect(await code(() => topUp(deps, 'org_missing', 10, 'USD'))).toBe('NOT_FOUND');
  });
});

describe('ledger', () => {
  it('reverses a charge exactly once, as a new entry referring to it', async () => {
    const { deps, org } = setup();
    await enableService(deps, org, 'account:NG');
    await setPrice(deps, org, 'account:NG', 100, 'USD');
    await topUp(deps, org, 1000, 'USD');
    await charge(deps, org, 'ver_a');
    expect((await getWallet(deps, org)).balance).toBe(900);
    expect(await deps.sql.transaction((tx) => reverseCharge(tx, 'ver_a', deps.clock.now()))).toBe(true);
    expect(await deps.sql.transaction((tx) => reverseCharge(tx, 'ver_a', deps.clock.now()))).toBe(false);
    expect((await getWallet(deps, org)).balance).toBe(1000);
    expect(await ledgerSum(deps, org)).toBe(1000);
    const usage = await listUsage(deps, org, { limit: 10, offset: 0, verificationId: 'ver_a' });
    expect(usage.data.map((u) => [u.kind, u.amount]).sort()).toEqual([
      ['charge', -100],
      ['reversal', 100],
    ]);
    // Nothing to reverse: it only reads, so it may even run outside a transaction.
    expect(await reverseCharge(deps.sql, 'ver_never_charged', deps.clock.now())).toBe(false);
  });

  it('lists usage with its total off the event loop, and a page filtered by service, kind or check there too', async () => {
    const { deps, org } = setup();
    await enableService(deps, org, 'account:NG');
    await setPrice(deps, org, 'account:NG', 10, 'USD');
    await topUp(deps, org, 1000, 'USD');
    for (const v of ['ver_a', 'ver_b', 'ver_c']) await charge(deps, org, v);
    await deps.sql.transaction((tx) => reverseCharge(tx, 'ver_b', deps.clock.now()));
    const asked: string[] = [];
    const longReads = {
      all: <T,>(s: string, p?: SqlParams) => (asked.push(s), deps.sql.all<T>(s, p)),
      get: <T,>(s: string, p?: SqlParams) => (asked.push(s), deps.sql.get<T>(s, p)),
    };
    const cases: [Parameters<typeof listUsage>[2], number, number][] = [
      [{ limit: 10, offset: 0 }, 4, 0],
      [{ limit: 10, offset: 0, kind: 'reversal' }, 1, 1],
      [{ limit: 10, offset: 0, verificationId: 'ver_b' }, 2, 1],
      [{ limit: 10, offset: 0, service: 'account:NG' }, 4, 1],
      [{ limit: 10, offset: 5, kind: 'charge' }, 3, 0], // past the total: no page read
    ];
    for (const [q, total, pages] of cases) {
      asked.length = 0;
      const onLoop = await listUsage(deps, org, q);
      expect(onLoop.total).toBe(total);
      expect(await listUsage({ ...deps, longReads }, org, q)).toEqual(onLoop);
      expect(asked.filter((s) => /^SELECT count/.test(s)), JSON.stringify(q)).toHaveLength(1);
      expect(asked.filter((s) => /^SELECT \*/.test(s)), JSON.stringify(q)).toHaveLength(pages);
    }
  });

  it("pages usage in its index's order, newest first with the id as the tie-break: no sort, no row before the page", async () => {
    const { deps, org } = setup();
    await enableService(deps, org, 'account:NG');
    await setPrice(deps, org, 'account:NG', 1, 'USD');
    await topUp(deps, org, 1000, 'USD');
    for (let i = 0; i < 12; i++) await charge(deps, org, `ver_${i}`); // the manual clock: all twelve in one millisecond
    const all = (await listUsage(deps, org, { limit: 100, offset: 0 })).data.map((u) => u.id);
    expect(all).toEqual([...all].sort().reverse());
    const paged: string[] = [];
    for (let offset = 0; offset < 12; offset += 5) paged.push(...(await listUsage(deps, org, { limit: 5, offset })).data.map((u) => u.id));
    expect(paged).toEqual(all);
    const { port, seen } = recordingPort(deps.sql);
    await listUsage({ ...deps, sql: port }, org, { limit: 5, offset: 10 });
    const page = seen.find((r) => /^SELECT \* FROM usage_records/.test(r.sql))!;
    const plan = await sqlitePlan(deps.sql, page.sql, page.params);
    expect(plan.join('\n')).toMatch(/USING INDEX usage_org/);
    expect(plan.filter((d) => /TEMP B-TREE/.test(d)), plan.join('\n')).toEqual([]);
  });

  it('is append-only', async () => {
    const { deps, org } = setup();
    await topUp(deps, org, 10, 'USD');
    expect(() => deps.db!.prepare('UPDATE ledger_entries SET amount = 1000').run()).toThrow(/append-only/);
    expect(() => deps.db!.prepare('DELETE FROM ledger_entries').run()).toThrow(/append-only/);
  });

  it('the balance CHECK makes an overdraft impossible even without the gate', async () => {
    const { deps, org } = setup();
    await topUp(deps, org, 10, 'USD');
    expect(() => deps.db!.prepare("UPDATE wallets SET balance = balance - 11 WHERE organization_id = 'org_1'").run()).toThrow(/CHECK/);
    expect((await getWallet(deps, org)).balance).toBe(10);
  });

  it('a wallet keeps its currency once funded', async () => {
    const { deps, org } = setup();
    await topUp(deps, org, 10, 'NGN');
    expect((await getWallet(deps, org)).currency).toBe('NGN');
    expect(await code(() => topUp(deps, org, 10, 'USD'))).toBe('VALIDATION_ERROR');
    expect(await code(() => setPrice(deps, org, 'face', 10, 'USD'))).toBe('VALIDATION_ERROR');
  });
});
