// Billing for live keys (decisions §9, interface §1.6): one wallet per organization, an append-only ledger whose
// entries move the balance in the same transaction, prices and enabled services per organization, usage records.
import { AppError } from '../../../src-shared/app-error';
import { isServiceKey } from '../../../src-shared/services';
import type { SqlQueries } from '../../store/sql-port';
import { ListFilter, listPage } from '../../store/list-query';
import { iso } from '../clock';
import type { CoreDeps } from '../context';
import { newId } from '../ids';
import { isCurrencyCode, isListedCurrency } from '../../../src-shared/money';
import { BALANCE_MAX, PRICE_MAX, TOP_UP_MAX } from '../../../src-shared/schemas/billing';
import { appendAudit, audited } from '../audit/audit-log';

export type WalletStatus = 'active' | 'suspended';

export interface Wallet {
  organizationId: string;
  balance: number;
  currency: string;
  status: WalletStatus;
  createdAt: string | null;
  updatedAt: string | null;
}

export interface Price {
  service: string;
  amount: number;
  currency: string;
  updatedAt: string;
}

export interface UsageRecord {
  id: string;
  verificationId: string;
  service: string;
  kind: 'charge' | 'reversal';
  /** Signed minor units: negative for a charge, positive for its reversal. */
  amount: number;
  currency: string;
  ledgerEntryId: string;
  createdAt: string;
}

export interface UsageQuery {
  limit: number;
  offset: number;
  service?: string | undefined;
  kind?: 'charge' | 'reversal' | undefined;
  verificationId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export interface Charge {
  amount: number;
  currency: string;
  status: 'charged' | 'not_charged' | 'reversed';
}

/** A wallet that was never topped up reads as empty; its currency is the default until the first top-up. */
export const DEFAULT_CURRENCY = 'USD';


export function validateServiceKey(service: string): string {
  const s = service.trim();
  if (!isServiceKey(s)) {
    throw new AppError('VALIDATION_ERROR', {
      details: [
        {
          field: 'service',
          message: 'service must be a supported account:<COUNTRY>, phone:<COUNTRY>, identity:<idType>, face, address or correspondents',
        },
      ],
    });
  }
  return s;
}

/** A currency's shape: three letters, upper-cased. Whether ISO 4217 lists it is `requireListed`'s question. */
function validateCurrency(currency: string): string {
  const c = currency.trim().toUpperCase();
  if (!isCurrencyCode(c)) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'currency', message: 'currency must be an ISO 4217 currency code, e.g. USD' }] });
  }
  return c;
}

/**
 * New money is in a currency ISO 4217 lists, except the wallet's own: a wallet an older version let be held in a code
 * outside the list (or one the list has since dropped) can still be topped up and priced in it.
 */
function unlistedProblem(cur: string, walletCurrency: string | undefined): string | null {
  return cur !== walletCurrency && !isListedCurrency(cur) ? `${cur} is not an ISO 4217 currency code` : null;
}

function requireListed(cur: string, walletCurrency: string | undefined): void {
  const problem = unlistedProblem(cur, walletCurrency);
  if (problem) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'currency', message: problem }] });
}

/**
 * Why a price may not be set in `cur` (null when it may): once the wallet holds money, only in its currency; and in a
 * currency ISO 4217 lists, or the wallet's own. One rule for `setPrice` and a configuration import's check of its file.
 */
export function priceCurrencyProblem(cur: string, wallet: { balance: number; currency: string } | undefined): string | null {
  if (wallet && wallet.balance > 0 && wallet.currency !== cur) return `the wallet is held in ${wallet.currency}; prices must be in ${wallet.currency}`;
  return unlistedProblem(cur, wallet?.currency);
}

function validateAmount(amount: number, field: string, min: number, max: number): number {
  if (!Number.isSafeInteger(amount) || amount < min || amount > max) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field, message: `${field} must be an integer number of minor units from ${min} to ${max}` }] });
  }
  return amount;
}

interface WalletRow {
  organization_id: string;
  balance: number;
  currency: string;
  status: WalletStatus;
  created_at: string;
  updated_at: string;
}

function walletRow(q: SqlQueries, organizationId: string): Promise<WalletRow | undefined> {
  return q.get<WalletRow>('SELECT * FROM wallets WHERE organization_id = ?', [organizationId]);
}

function toWallet(organizationId: string, row: WalletRow | undefined): Wallet {
  if (!row) return { organizationId, balance: 0, currency: DEFAULT_CURRENCY, status: 'active', createdAt: null, updatedAt: null };
  return {
    organizationId,
    balance: row.balance,
    currency: row.currency,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function requireOrganization(q: SqlQueries, organizationId: string): Promise<void> {
  if (!(await q.get('SELECT 1 FROM organizations WHERE id = ?', [organizationId]))) {
    throw new AppError('NOT_FOUND', { message: 'No organization with this id exists.' });
  }
}

export async function getWallet(deps: CoreDeps, organizationId: string): Promise<Wallet> {
  return toWallet(organizationId, await walletRow(deps.sql, organizationId));
}

/** Credits the wallet (creating it in `currency` on first top-up). A top-up in another currency is refused. */
export async function topUp(deps: CoreDeps, organizationId: string, amount: number, currency: string): Promise<Wallet> {
  validateAmount(amount, 'amount', 1, TOP_UP_MAX);
  const cur = validateCurrency(currency);
  const now = iso(deps.clock.now());
  return deps.sql.transaction(async (tx): Promise<Wallet> => {
    await requireOrganization(tx, organizationId);
    const row = await walletRow(tx, organizationId);
    requireListed(cur, row?.currency);
    if (row && row.currency !== cur) {
      // An empty wallet has no money in its currency yet, so its first top-up may still choose it.
      if (row.balance !== 0) {
        throw new AppError('VALIDATION_ERROR', {
          details: [{ field: 'currency', message: `the wallet is held in ${row.currency}; top up in ${row.currency}` }],
        });
      }
      // Nor may a charge in the old currency still be refunded: a live check charged and not finished would be
      // reversed into the new currency at the old amount (a 0.50 USD charge refunded as 50 JPY).
      const open = await tx.get<{ currency: string }>(
        "SELECT l.currency FROM verifications v JOIN ledger_entries l ON l.verification_id = v.id AND l.kind = 'charge' WHERE v.organization_id = ? AND v.environment = 'live' AND v.status = 'pending' AND v.charge_status = 'charged' LIMIT 1",
        [organizationId],
      );
      if (open) {
        throw new AppError('VALIDATION_ERROR', {
          details: [{ field: 'currency', message: `a live check charged in ${open.currency} is still in progress, and a refund of it would be in ${open.currency}: change the currency once no live check is pending` }],
        });
      }
      await tx.run('UPDATE wallets SET currency = ? WHERE organization_id = ?', [cur, organizationId]);
    }
    if (!row) {
      await tx.run(
        "INSERT INTO wallets (organization_id, balance, currency, status, created_at, updated_at) VALUES (?, 0, ?, 'active', ?, ?)",
        [organizationId, cur, now, now],
      );
    }
    // A balance stays within BALANCE_MAX, where JavaScript reads it exactly: past 2^53 it drifted from its ledger.
    const before = row?.balance ?? 0;
    if (before + amount > BALANCE_MAX) {
      throw new AppError('VALIDATION_ERROR', { details: [{ field: 'amount', message: `the balance would pass ${BALANCE_MAX} minor units, the most a wallet holds` }] });
    }
    const id = newId('led');
    await tx.run("INSERT INTO ledger_entries (id, organization_id, amount, currency, kind, created_at) VALUES (?, ?, ?, ?, 'topup', ?)", [id, organizationId, amount, cur, now]);
    await tx.run('UPDATE wallets SET balance = balance + ?, updated_at = ? WHERE organization_id = ?', [amount, now, organizationId]);
    const wallet = toWallet(organizationId, await walletRow(tx, organizationId));
    await appendAudit({ ...deps, sql: tx }, organizationId, { action: 'wallet.topped_up', target: { type: 'ledgerEntry', id }, detail: { amount, currency: cur, balanceAfter: wallet.balance } });
    return wallet;
  });
}

/** Suspends or reactivates the wallet; a suspended wallet refuses live verifications with WALLET_SUSPENDED. */
export async function setWalletStatus(deps: CoreDeps, organizationId: string, status: WalletStatus): Promise<Wallet> {
  const now = iso(deps.clock.now());
  return deps.sql.transaction(async (tx): Promise<Wallet> => {
    await requireOrganization(tx, organizationId);
    await tx.run(
      `INSERT INTO wallets (organization_id, balance, currency, status, created_at, updated_at) VALUES (?, 0, ?, ?, ?, ?)
       ON CONFLICT (organization_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at`,
      [organizationId, DEFAULT_CURRENCY, status, now, now],
    );
    await appendAudit({ ...deps, sql: tx }, organizationId, { action: 'wallet.status_changed', target: { type: 'wallet', id: organizationId }, detail: { status } });
    return toWallet(organizationId, await walletRow(tx, organizationId));
  });
}

/** Sets the price of one service (minor units). The price's currency must be the wallet's once a wallet exists. */
export async function setPrice(deps: CoreDeps, organizationId: string, service: string, amount: number, currency: string): Promise<Price> {
  const svc = validateServiceKey(service);
  validateAmount(amount, 'amount', 0, PRICE_MAX);
  const cur = validateCurrency(currency);
  const now = iso(deps.clock.now());
  return deps.sql.transaction(async (tx): Promise<Price> => {
    await requireOrganization(tx, organizationId);
    const row = await walletRow(tx, organizationId);
    const problem = priceCurrencyProblem(cur, row);
    if (problem) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'currency', message: problem }] });
    await tx.run(
      `INSERT INTO prices (organization_id, service, amount, currency, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (organization_id, service) DO UPDATE SET amount = excluded.amount, currency = excluded.currency,
         updated_at = excluded.updated_at`,
      [organizationId, svc, amount, cur, now],
    );
    await appendAudit({ ...deps, sql: tx }, organizationId, { action: 'price.set', target: { type: 'service', id: svc }, detail: { amount, currency: cur } });
    return { service: svc, amount, currency: cur, updatedAt: now };
  });
}

export async function listPrices(deps: CoreDeps, organizationId: string): Promise<Price[]> {
  const rows = await deps.sql.all<{ service: string; amount: number; currency: string; updated_at: string }>(
    'SELECT service, amount, currency, updated_at FROM prices WHERE organization_id = ? ORDER BY service',
    [organizationId],
  );
  return rows.map((r) => ({ service: r.service, amount: r.amount, currency: r.currency, updatedAt: r.updated_at }));
}

export async function enableService(deps: CoreDeps, organizationId: string, service: string): Promise<{ service: string; enabled: true }> {
  const svc = validateServiceKey(service);
  const now = iso(deps.clock.now());
  await audited(
    deps,
    organizationId,
    async (tx) => {
      await requireOrganization(tx, organizationId);
      const sql = 'INSERT INTO enabled_services (organization_id, service, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING';
      return (await tx.run(sql, [organizationId, svc, now])).changes;
    },
    (changed) => (changed > 0 ? { action: 'service.enabled', target: { type: 'service', id: svc } } : null),
  );
  return { service: svc, enabled: true };
}

export async function disableService(deps: CoreDeps, organizationId: string, service: string): Promise<{ service: string; enabled: false }> {
  const svc = validateServiceKey(service);
  await audited(
    deps,
    organizationId,
    async (tx) => (await tx.run('DELETE FROM enabled_services WHERE organization_id = ? AND service = ?', [organizationId, svc])).changes,
    (changed) => (changed > 0 ? { action: 'service.disabled', target: { type: 'service', id: svc } } : null),
  );
  return { service: svc, enabled: false };
}

export async function listEnabledServices(deps: CoreDeps, organizationId: string): Promise<string[]> {
  const rows = await deps.sql.all<{ service: string }>('SELECT service FROM enabled_services WHERE organization_id = ? ORDER BY service', [organizationId]);
  return rows.map((r) => r.service);
}

/**
 * The queue (TransactionOptions.queue) of the transactions that charge an organization's wallet: on PostgreSQL they
 * run one after another, across instances, instead of failing each other at the wallet's row and the audit chain's
 * head (docs/billing.md). SQLite runs one writer at a time anyway.
 */
export function chargeQueue(organizationId: string): string {
  return `charge:${organizationId}`;
}

/**
 * The gates of decisions §9 in their order, then the charge: enabled (403) → price configured (402) → wallet
 * active (402) → balance covers (402). Must run inside the caller's transaction (`q` is its handle), which also
 * writes the verification record, so the check and the debit cannot be separated by another request; that transaction
 * names chargeQueue(organizationId) as its queue.
 */
export async function chargeVerification(
  q: SqlQueries,
  o: { organizationId: string; service: string; verificationId: string; nowMs: number },
): Promise<Charge> {
  const enabled = await q.get('SELECT 1 FROM enabled_services WHERE organization_id = ? AND service = ?', [o.organizationId, o.service]);
  if (!enabled) throw new AppError('SERVICE_NOT_ENABLED', { message: `The service ${o.service} is not enabled for this organization.` });
  const price = await q.get<{ amount: number; currency: string }>('SELECT amount, currency FROM prices WHERE organization_id = ? AND service = ?', [o.organizationId, o.service]);
  if (!price) throw new AppError('SERVICE_PRICE_NOT_CONFIGURED', { message: `No price is configured for the service ${o.service}.` });
  const wallet = await walletRow(q, o.organizationId);
  if (wallet?.status === 'suspended') throw new AppError('WALLET_SUSPENDED');
  if (price.amount === 0) return { amount: 0, currency: price.currency, status: 'not_charged' };
  if (!wallet || wallet.balance < price.amount) throw new AppError('INSUFFICIENT_FUNDS');
  if (wallet.currency !== price.currency) {
    throw new AppError('SERVICE_PRICE_NOT_CONFIGURED', {
      message: `The price of ${o.service} is in ${price.currency} but the wallet is held in ${wallet.currency}.`,
    });
  }
  const now = iso(o.nowMs);
  const ledgerId = newId('led');
  await q.run(
    "INSERT INTO ledger_entries (id, organization_id, amount, currency, kind, service, verification_id, created_at) VALUES (?, ?, ?, ?, 'charge', ?, ?, ?)",
    [ledgerId, o.organizationId, -price.amount, price.currency, o.service, o.verificationId, now],
  );
  // The CHECK (balance >= 0) is the last line of defence: even a path that skipped the comparison above cannot overdraw.
  await q.run('UPDATE wallets SET balance = balance - ?, updated_at = ? WHERE organization_id = ?', [price.amount, now, o.organizationId]);
  await q.run(
    "INSERT INTO usage_records (id, organization_id, ledger_entry_id, verification_id, service, kind, amount, currency, created_at) VALUES (?, ?, ?, ?, ?, 'charge', ?, ?, ?)",
    [newId('use'), o.organizationId, ledgerId, o.verificationId, o.service, -price.amount, price.currency, now],
  );
  return { amount: price.amount, currency: price.currency, status: 'charged' };
}

/**
 * Reverses the charge of a verification: a new ledger entry referring to it (never an edit). UNIQUE(refers_to)
 * makes a second reversal impossible, so a late answer or a recovery pass racing the normal path cannot refund
 * twice. Returns true when this call reversed it. Run inside the caller's transaction (`q` is its handle).
 */
export async function reverseCharge(q: SqlQueries, verificationId: string, nowMs: number): Promise<boolean> {
  const charge = await q.get<{ id: string; organization_id: string; amount: number; currency: string; service: string }>(
    "SELECT id, organization_id, amount, currency, service FROM ledger_entries WHERE verification_id = ? AND kind = 'charge'",
    [verificationId],
  );
  if (!charge) return false;
  const now = iso(nowMs);
  const ledgerId = newId('led');
  const inserted = await q.run(
    `INSERT INTO ledger_entries (id, organization_id, amount, currency, kind, service, verification_id, refers_to, created_at)
     VALUES (?, ?, ?, ?, 'reversal', ?, ?, ?, ?) ON CONFLICT (refers_to) DO NOTHING`,
    [ledgerId, charge.organization_id, -charge.amount, charge.currency, charge.service, verificationId, charge.id, now],
  );
  if (inserted.changes !== 1) return false;
  await q.run('UPDATE wallets SET balance = balance + ?, updated_at = ? WHERE organization_id = ?', [-charge.amount, now, charge.organization_id]);
  await q.run(
    "INSERT INTO usage_records (id, organization_id, ledger_entry_id, verification_id, service, kind, amount, currency, created_at) VALUES (?, ?, ?, ?, ?, 'reversal', ?, ?, ?)",
    [newId('use'), charge.organization_id, ledgerId, verificationId, charge.service, -charge.amount, charge.currency, now],
  );
  return true;
}

export async function listUsage(deps: CoreDeps, organizationId: string, q: UsageQuery): Promise<{ data: UsageRecord[]; total: number }> {
  const filter = new ListFilter()
    .eq('organization_id', organizationId)
    .eq('service', q.service)
    .eq('kind', q.kind)
    .eq('verification_id', q.verificationId)
    .createdBetween(q.from, q.to);
  const { rows, total: n } = await listPage<{
    id: string;
    verification_id: string;
    service: string;
    kind: 'charge' | 'reversal';
    amount: number;
    currency: string;
    ledger_entry_id: string;
    created_at: string;
  }>(deps.sql, {
    select: '*',
    from: 'usage_records',
    filter,
    // `usage_org`'s own order (its ids are made in creation order, core/ids.ts): SQLite reads no row before the page
    // and sorts nothing (with the rowid as the tie-break it sorted, and the last of 75,000 took 56–284 ms).
    orderBy: 'created_at DESC, id DESC',
    limit: q.limit,
    offset: q.offset,
    // The total reads the organization's whole range of `usage_org` (no write counter on this table: every time), and
    // a filter on service, kind or check walks the rows themselves (`usage_org` carries none of them): both off the
    // event loop where the store allows — the Wallet page's first load held it 320 ms from a cold cache.
    countWith: deps.longReads,
    pageWith: q.service !== undefined || q.kind !== undefined || q.verificationId !== undefined ? deps.longReads : undefined,
  });
  return {
    data: rows.map((r) => ({
      id: r.id,
      verificationId: r.verification_id,
      service: r.service,
      kind: r.kind,
      amount: r.amount,
      currency: r.currency,
      ledgerEntryId: r.ledger_entry_id,
      createdAt: r.created_at,
    })),
    total: n,
  };
}

/** Sum of every ledger entry of the organization; equals the wallet balance (an invariant the tests check). */
export async function ledgerSum(deps: CoreDeps, organizationId: string): Promise<number> {
  const row = await deps.sql.get<{ s: number }>('SELECT coalesce(sum(amount), 0) AS s FROM ledger_entries WHERE organization_id = ?', [organizationId]);
  return row!.s;
}
