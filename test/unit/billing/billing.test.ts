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
import { ManualClock } from '../../../src-main/core/clock';
import { silentLogger, type CoreDeps } from '../../../src-main/core/context';
import { createServicePort } from '../../../src-main/store/service-port';
import { openDatabase } from '../../../src-main/store/database';

function setup(): { deps: CoreDeps; org: string } {
  const db = openDatabase(':memory:');
  const deps: CoreDeps = {
    db,
    sql: createServicePort(db),
    commit: async (fn) => {
      db.transaction(fn)();
    },
    clock: new ManualClock(),
    log: silentLogger,
    config: { scryptN: 1024, rateLimitPerMinute: 0, retryUnitMs: 60_000, allowWebhookHosts: [], bootId: 'test', resourcesDir: 'resources' },
  };
  db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'Org', '2026-01-01T00:00:00.000Z')").run();
  return { deps, org: 'org_1' };
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return undefined;
}

const charge = (deps: CoreDeps, org: string, verificationId = `ver_${Math.random()}`) =>
  deps.db.transaction(() => chargeVerification(deps.db, { organizationId: org, service: 'account:NG', verificationId, nowMs: deps.clock.now() }))();

describe('gates, in order', () => {
  it('not enabled → price → suspended → funds → charged', () => {
    const { deps, org } = setup();
    expect(code(() => charge(deps, org))).toBe('SERVICE_NOT_ENABLED');
    enableService(deps, org, 'account:NG');
    expect(code(() => charge(deps, org))).toBe('SERVICE_PRICE_NOT_CONFIGURED');
    setPrice(deps, org, 'account:NG', 150, 'USD');
    setWalletStatus(deps, org, 'suspended');
    expect(code(() => charge(deps, org))).toBe('WALLET_SUSPENDED');
    setWalletStatus(deps, org, 'active');
    expect(code(() => charge(deps, org))).toBe('INSUFFICIENT_FUNDS');
    topUp(deps, org, 149, 'USD');
    expect(code(() => charge(deps, org))).toBe('INSUFFICIENT_FUNDS');
    topUp(deps, org, 1, 'USD');
    expect(charge(deps, org)).toEqual({ amount: 150, currency: 'USD', status: 'charged' });
    expect(getWallet(deps, org).balance).toBe(0);
    expect(ledgerSum(deps, org)).toBe(0);
  });

  it('the earlier gate wins when several fail', () => {
    const { deps, org } = setup();
    setWalletStatus(deps, org, 'suspended');
    expect(code(() => charge(deps, org))).toBe('SERVICE_NOT_ENABLED');
    enableService(deps, org, 'account:NG');
    expect(code(() => charge(deps, org))).toBe('SERVICE_PRICE_NOT_CONFIGURED');
  });

  it('refuses malformed service keys and amounts', () => {
    const { deps, org } = setup();
    expect(code(() => enableService(deps, org, 'account:nigeria'))).toBe('VALIDATION_ERROR');
    expect(code(() => setPrice(deps, org, 'face', 1.5, 'USD'))).toBe('VALIDATION_ERROR');
    expect(code(() => topUp(deps, org, 0, 'USD'))).toBe('VALIDATION_ERROR');
    expect(code(() => topUp(deps, 'org_missing', 10, 'USD'))).toBe('NOT_FOUND');
  });
});

describe('ledger', () => {
  it('reverses a charge exactly once, as a new entry referring to it', () => {
    const { deps, org } = setup();
    enableService(deps, org, 'account:NG');
    setPrice(deps, org, 'account:NG', 100, 'USD');
    topUp(deps, org, 1000, 'USD');
    charge(deps, org, 'ver_a');
    expect(getWallet(deps, org).balance).toBe(900);
    expect(deps.db.transaction(() => reverseCharge(deps.db, 'ver_a', deps.clock.now()))()).toBe(true);
    expect(deps.db.transaction(() => reverseCharge(deps.db, 'ver_a', deps.clock.now()))()).toBe(false);
    expect(getWallet(deps, org).balance).toBe(1000);
    expect(ledgerSum(deps, org)).toBe(1000);
    const usage = listUsage(deps, org, { limit: 10, offset: 0, verificationId: 'ver_a' });
    expect(usage.data.map((u) => [u.kind, u.amount]).sort()).toEqual([
      ['charge', -100],
      ['reversal', 100],
    ]);
    expect(reverseCharge(deps.db, 'ver_never_charged', deps.clock.now())).toBe(false);
  });

  it('is append-only', () => {
    const { deps, org } = setup();
    topUp(deps, org, 10, 'USD');
    expect(() => deps.db.prepare('UPDATE ledger_entries SET amount = 1000').run()).toThrow(/append-only/);
    expect(() => deps.db.prepare('DELETE FROM ledger_entries').run()).toThrow(/append-only/);
  });

  it('the balance CHECK makes an overdraft impossible even without the gate', () => {
    const { deps, org } = setup();
    topUp(deps, org, 10, 'USD');
    expect(() => deps.db.prepare("UPDATE wallets SET balance = balance - 11 WHERE organization_id = 'org_1'").run()).toThrow(/CHECK/);
    expect(getWallet(deps, org).balance).toBe(10);
  });

  it('a wallet keeps its currency once funded', () => {
    const { deps, org } = setup();
    topUp(deps, org, 10, 'NGN');
    expect(getWallet(deps, org).currency).toBe('NGN');
    expect(code(() => topUp(deps, org, 10, 'USD'))).toBe('VALIDATION_ERROR');
    expect(code(() => setPrice(deps, org, 'face', 10, 'USD'))).toBe('VALIDATION_ERROR');
  });
});
