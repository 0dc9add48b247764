// The live cost preview: checks × price per service against the wallet, in the gate order of decisions §9, and
// the batch's billing map (only the correspondents lookup is a billed routing service, docs/routing.md).
import { describe, expect, it } from 'vitest';
import { BATCH_ROW_SERVICE, batchIsBilled, costPreview } from '../../../src-shared/cost-preview';
import { SERVICE_CATALOGUE } from '../../../src-shared/services';

const wallet = { balance: 10_000, currency: 'USD', status: 'active' as const };
const prices = [
  { service: 'account:NG', amount: 150, currency: 'USD' },
  { service: 'correspondents', amount: 25, currency: 'USD' },
];

describe('costPreview', () => {
  it('multiplies checks by the price of each service and sums them', () => {
    const p = costPreview({ 'account:NG': 10, correspondents: 4 }, prices, wallet);
    expect(p.lines).toEqual([
      { service: 'account:NG', count: 10, unit: 150, currency: 'USD', subtotal: 1500, enabled: true },
      { service: 'correspondents', count: 4, unit: 25, currency: 'USD', subtotal: 100, enabled: true },
    ]);
    expect(p.total).toBe(1600);
    expect(p.covers).toBe(true);
    expect(p.problems).toEqual([]);
  });

  it('warns when the balance would not cover the run, and covers exactly at the balance', () => {
    expect(costPreview({ 'account:NG': 67 }, prices, wallet).covers).toBe(false);
    expect(costPreview({ 'account:NG': 67 }, prices, wallet).problems.join(' ')).toContain('INSUFFICIENT_FUNDS');
    // 66 × 1.50 = 99.00 ≤ 100.00; the balance may reach zero but never go below it.
    expect(costPreview({ 'account:NG': 66 }, prices, { ...wallet, balance: 9_900 }).covers).toBe(true);
  });

  it('has no total when a service has no price, and names the refusal', () => {
    const p = costPreview({ 'account:NG': 1, 'phone:KE': 2 }, prices, wallet);
    expect(p.total).toBeNull();
    expect(p.lines.find((l) => l.service === 'phone:KE')).toMatchObject({ unit: null, subtotal: null });
    expect(p.problems.join(' ')).toContain('SERVICE_PRICE_NOT_CONFIGURED');
    expect(p.covers).toBe(false);
  });

  it('lists the gates in the order of decisions §9: enabled, priced, wallet active, balance', () => {
    const p = costPreview({ 'phone:KE': 1, 'account:NG': 1000 }, prices, { ...wallet, status: 'suspended' }, ['phone:KE']);
    expect(p.problems.map((m) => /\(([A-Z_]+)\)/.exec(m)?.[1])).toEqual(['SERVICE_NOT_ENABLED', 'SERVICE_PRICE_NOT_CONFIGURED', 'WALLET_SUSPENDED']);
    const q = costPreview({ 'account:NG': 1000 }, prices, { ...wallet, status: 'suspended' }, ['account:NG']);
    expect(q.problems.map((m) => /\(([A-Z_]+)\)/.exec(m)?.[1])).toEqual(['WALLET_SUSPENDED', 'INSUFFICIENT_FUNDS']);
  });

  it('refuses to add prices in another currency than the wallet', () => {
    const p = costPreview({ 'account:NG': 1 }, [{ service: 'account:NG', amount: 100, currency: 'EUR' }], wallet);
    expect(p.total).toBeNull();
    expect(p.covers).toBe(false);
  });

  it('leaves out services with no checks', () => {
    expect(costPreview({ 'account:NG': 0 }, prices, wallet)).toMatchObject({ lines: [], total: 0, covers: true });
  });
});

describe('batch billing', () => {
  it('bills no batch row type: BIC, routing-number and route rows are directory look-ups', () => {
    expect(BATCH_ROW_SERVICE).toEqual({ bic: null, routing: null, route: null });
    expect(batchIsBilled()).toBe(false);
  });

  it('names only services of the catalogue when a row type is billed', () => {
    const known = new Set(SERVICE_CATALOGUE.flatMap((g) => g.services.map((s) => s.key)));
    for (const s of Object.values(BATCH_ROW_SERVICE)) if (s !== null) expect(known.has(s)).toBe(true);
    // The billed routing service exists, so a single correspondents lookup is what the price list shows.
    expect(known.has('correspondents')).toBe(true);
  });
});
