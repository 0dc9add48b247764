// What a live run will cost before it starts: checks per service × the price list, against the wallet, in the
// gate order of decisions §9 (enabled → priced → wallet active → balance covers). Pure and shared, so every door
// previews a run the way core/billing will charge it.

export interface PriceLike {
  service: string;
  amount: number;
  currency: string;
}

export interface WalletLike {
  balance: number;
  currency: string;
  status: 'active' | 'suspended';
}

/**
 * Which billed service each batch-CSV row type would be charged as; null means not charged. Only the
 * correspondents lookup is a billed routing service (decisions §9, docs/routing.md "Billing of correspondents");
 * BIC and routing-number checks are directory look-ups, and a batch `route` row reads the correspondents
 * directory without calling the billed lookup. The batch engine (core/routing/batch-jobs.ts) charges nothing.
 */
export const BATCH_ROW_SERVICE: Readonly<Record<'bic' | 'routing' | 'route', string | null>> = {
  bic: null,
  routing: null,
  route: null,
};

export function batchIsBilled(): boolean {
  return Object.values(BATCH_ROW_SERVICE).some((s) => s !== null);
}

export interface CostLine {
  service: string;
  count: number;
  /** Price of one check in minor units; null when the service has no price (the run would be refused). */
  unit: number | null;
  currency: string | null;
  subtotal: number | null;
  enabled: boolean;
}

export interface CostPreview {
  lines: CostLine[];
  /** Sum of the subtotals in the wallet's currency; null when a price is missing or in another currency. */
  total: number | null;
  currency: string;
  balance: number;
  /** Why the run would be refused or stop short, in gate order; empty when the wallet covers it. */
  problems: string[];
  covers: boolean;
}

/** `counts`: checks per service key (e.g. { 'account:NG': 120 }); services with a zero count are left out. */
export function costPreview(counts: Readonly<Record<string, number>>, prices: readonly PriceLike[], wallet: WalletLike, enabled?: readonly string[]): CostPreview {
  const byService = new Map(prices.map((p) => [p.service, p]));
  const on = enabled ? new Set(enabled) : null;
  const lines: CostLine[] = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([service, count]) => {
      const p = byService.get(service);
      return { service, count, unit: p?.amount ?? null, currency: p?.currency ?? null, subtotal: p ? p.amount * count : null, enabled: on ? on.has(service) : true };
    });
  const problems: string[] = [];
  const off = lines.filter((l) => !l.enabled).map((l) => l.service);
  if (off.length) problems.push(`Not enabled: ${off.join(', ')} (SERVICE_NOT_ENABLED).`);
  const unpriced = lines.filter((l) => l.unit === null).map((l) => l.service);
  if (unpriced.length) problems.push(`No price set: ${unpriced.join(', ')} (SERVICE_PRICE_NOT_CONFIGURED).`);
  const foreign = lines.filter((l) => l.currency !== null && l.currency !== wallet.currency).map((l) => l.service);
  if (foreign.length) problems.push(`Priced in another currency than the wallet (${wallet.currency}): ${foreign.join(', ')}.`);
  if (wallet.status === 'suspended') problems.push('The wallet is suspended (WALLET_SUSPENDED).');
  const total = unpriced.length || foreign.length ? null : lines.reduce((sum, l) => sum + (l.subtotal ?? 0), 0);
  if (total !== null && total > wallet.balance) problems.push('The balance does not cover the run (INSUFFICIENT_FUNDS): checks past the balance are refused.');
  return { lines, total, currency: wallet.currency, balance: wallet.balance, problems, covers: problems.length === 0 };
}
