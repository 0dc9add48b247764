// The store's money and audit invariants, read through the SQL port so that they hold the same on either engine
// (docs/team-server.md, "Moving a desktop store up"): every audit chain verifies; every wallet's balance is the sum
// of its ledger and never below zero; a verification has at most one charge and no more reversals than charges.
// `vconsole db copy` checks them on the source and on the copy, inside the copy's transaction, and compares.
import { storeOrganizations, verifyAuditChains, type AuditCheckpointRow, type AuditRow, type VerifyResult } from './audit/audit-log';
import type { SqlQueries } from '../store/sql-port';

export interface WalletState {
  organizationId: string;
  balance: number;
  ledgerSum: number;
}

export interface StoreInvariants {
  audit: VerifyResult[];
  wallets: WalletState[];
  /** Each broken invariant, as a sentence; empty when all hold. */
  problems: string[];
}

export async function checkStoreInvariants(q: SqlQueries): Promise<StoreInvariants> {
  const problems: string[] = [];
  const rows = await q.all<AuditRow>('SELECT * FROM audit_events');
  const checkpoints = await q.all<AuditCheckpointRow>('SELECT organization_id, seq, hash FROM audit_checkpoints');
  const { organizations, beforeTrail } = await storeOrganizations(q);
  const audit = verifyAuditChains(rows, checkpoints, organizations, beforeTrail);
  for (const r of audit) if (!r.ok) problems.push(`the audit chain of ${r.organizationId} breaks at entry ${r.firstBad!.seq} (${r.firstBad!.id}): ${r.firstBad!.reason}`);
  const wallets = (
    await q.all<{ organization_id: string; balance: number; total: number | null }>(
      `SELECT w.organization_id, w.balance, (SELECT sum(l.amount) FROM ledger_entries l WHERE l.organization_id = w.organization_id) AS total
       FROM wallets w`,
    )
  )
    .map((w) => ({ organizationId: w.organization_id, balance: w.balance, ledgerSum: w.total ?? 0 }))
    // In code-point order on both engines (a PostgreSQL collation may order ids otherwise).
    .sort((x, y) => (x.organizationId < y.organizationId ? -1 : x.organizationId > y.organizationId ? 1 : 0));
  for (const w of wallets) {
    if (w.balance < 0) problems.push(`the wallet of ${w.organizationId} is below zero (${w.balance})`);
    if (w.balance !== w.ledgerSum) problems.push(`the wallet of ${w.organizationId} holds ${w.balance} but its ledger sums to ${w.ledgerSum}`);
  }
  const charges = await q.all<{ verification_id: string; charges: number; reversals: number }>(
    `SELECT verification_id, sum(CASE WHEN kind = 'charge' THEN 1 ELSE 0 END) AS charges, sum(CASE WHEN kind = 'reversal' THEN 1 ELSE 0 END) AS reversals
     FROM ledger_entries WHERE verification_id IS NOT NULL GROUP BY verification_id
     HAVING sum(CASE WHEN kind = 'charge' THEN 1 ELSE 0 END) > 1 OR sum(CASE WHEN kind = 'reversal' THEN 1 ELSE 0 END) > sum(CASE WHEN kind = 'charge' THEN 1 ELSE 0 END)`,
  );
  for (const c of charges) problems.push(`verification ${c.verification_id} has ${c.charges} charges and ${c.reversals} reversals`);
  return { audit, wallets, problems };
}

/**
 * `vconsole db copy`'s checks, run inside the copy's transaction: the store's invariants hold, the copy's hold too,
 * and they agree — the same audit chain heads (so the same chains, hash for hash) and the same balances. Throws
 * with every difference found; returns what was checked.
 */
export async function checkCopy(source: SqlQueries, target: SqlQueries): Promise<{ organizations: number; auditEntries: number; wallets: number }> {
  const a = await checkStoreInvariants(source);
  if (a.problems.length > 0) throw new Error(`the store breaks its own invariants, so it was not copied: ${a.problems.join('; ')}`);
  const b = await checkStoreInvariants(target);
  const problems = [...b.problems.map((p) => `in the copy, ${p}`)];
  const heads = (r: StoreInvariants) => JSON.stringify(r.audit.map((x) => [x.organizationId, x.entries, x.head.seq, x.head.hash]));
  if (heads(a) !== heads(b)) problems.push(`the audit chains differ (store ${heads(a)}, copy ${heads(b)})`);
  if (JSON.stringify(a.wallets) !== JSON.stringify(b.wallets)) problems.push(`the wallets differ (store ${JSON.stringify(a.wallets)}, copy ${JSON.stringify(b.wallets)})`);
  if (problems.length > 0) throw new Error(`the copy does not match the store, so nothing was committed: ${problems.join('; ')}`);
  return { organizations: b.audit.length, auditEntries: b.audit.reduce((n, r) => n + r.entries, 0), wallets: b.wallets.length };
}
