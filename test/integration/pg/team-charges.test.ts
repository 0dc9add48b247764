// Live charges racing over three `serve` instances on one PostgreSQL database (issue 17, "Many instances, one truth";
// docs/team-server.md): 30 live checks with distinct Idempotency-Keys against a wallet that pays for 10. The ledger's
// rules hold across instances: exactly 10 are charged, the others are refused for the balance, the balance ends at
// zero and equals its ledger, and no charge is reversed or counted twice — whatever the interleaving. Each is sent
// once: the charges queue (docs/team-server.md, "Transactions that queue"), so no answer is a 5xx.
// Then 60 at once against a wallet topped up for 40 more: under SERIALIZABLE alone each collision failed at the wallet's
// row (or the audit chain's head) and was run again, and the last in line ran out of tries: 500 INTERNAL_ERROR (2–27
// of 60 before the queue). Every charge has its audit entry, in one unbroken chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyOrganizationChain } from '../../../src-main/core/audit/audit-log';
import { topUp } from '../../../src-main/core/billing/billing';
import { createPgPort, type PgPort } from '../../../src-main/store/pg/pg-port';
import { api, enableLive, newKey, NG_OK, type TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';
import { startInstances } from '../../helpers/team-instances';

const PRICE = 25;
const AFFORDABLE = 10;
let db: TestDatabase;
let port: PgPort;
const instances: TestService[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  port = createPgPort(db.url);
  instances.push(...(await startInstances(db.url, 3)));
  await enableLive(instances[0]!, 'account:NG', { price: PRICE, balance: PRICE * AFFORDABLE });
}, 60_000);

afterAll(async () => {
  for (const t of instances) await t.stop();
  await port?.close();
  await db?.drop();
});

describe('live charges racing over three instances', () => {
  it('never overdraw: exactly the affordable ones are charged, the rest refused, and the ledger agrees', async () => {
    const key = instances[0]!.liveKey;
    // Once each: a 5xx (once a transaction that met conflicts on the wallet's row more often than the port ran it
    // again) was sent again by this test under its key; the charges now queue, and a 5xx is a failure.
    const check = (t: TestService) => api(t.url, 'POST', '/verify/account', { key, idem: newKey(), body: NG_OK });
    const results = await Promise.all(Array.from({ length: 3 * AFFORDABLE }, (_, i) => check(instances[i % 3]!)));
    const summary = results.map((r) => `${r.status} ${r.status === 200 ? r.body.charge?.status : r.body.code}`).join('\n');
    const charged = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(charged, summary).toHaveLength(AFFORDABLE);
    for (const r of charged) expect(r.body.charge).toMatchObject({ status: 'charged', amount: PRICE });
    expect(new Set(refused.map((r) => `${r.status} ${r.body.code}`)), summary).toEqual(new Set(['402 INSUFFICIENT_FUNDS']));

    const orgId = instances[0]!.org!.organizationId;
    const wallet = await port.get<{ balance: number }>('SELECT balance FROM wallets WHERE organization_id = ?', [orgId]);
    expect(wallet!.balance).toBe(0);
    const ledger = await port.get<{ n: number; total: number }>('SELECT count(*) AS n, COALESCE(sum(amount), 0) AS total FROM ledger_entries WHERE organization_id = ?', [orgId]);
    // The top-up and the ten charges: the ledger sums to the balance.
    expect(ledger!.total).toBe(0);
    expect(ledger!.n).toBe(1 + AFFORDABLE);
    const usage = await port.get<{ charges: number; reversals: number }>(
      "SELECT count(*) FILTER (WHERE kind = 'charge') AS charges, count(*) FILTER (WHERE kind = 'reversal') AS reversals FROM usage_records WHERE organization_id = ?",
      [orgId],
    );
    expect(usage).toEqual({ charges: AFFORDABLE, reversals: 0 });
    // Every instance sees the same wallet.
    for (const t of instances) expect((await api(t.url, 'GET', '/client/wallet', { key })).body.balance).toBe(0);
  });

  it('60 at once against a wallet for 40 more: each answered 200 or 402 the first time (never a 5xx), the audit chain whole', async () => {
    const key = instances[0]!.liveKey;
    const orgId = instances[0]!.org!.organizationId;
    const more = 40;
    await topUp(instances[0]!.service.deps, orgId, PRICE * more, 'USD');
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => api(instances[i % 3]!.url, 'POST', '/verify/account', { key, idem: newKey(), body: NG_OK })));
    const summary = results.map((r) => `${r.status} ${r.status === 200 ? r.body.charge?.status : r.body.code}`).join('\n');
    expect(results.filter((r) => r.status !== 200 && r.status !== 402), summary).toEqual([]);
    expect(results.filter((r) => r.status === 200), summary).toHaveLength(more);
    for (const r of results.filter((x) => x.status === 402)) expect(r.body.code).toBe('INSUFFICIENT_FUNDS');
    const wallet = await port.get<{ balance: number }>('SELECT balance FROM wallets WHERE organization_id = ?', [orgId]);
    const ledger = await port.get<{ total: number }>('SELECT COALESCE(sum(amount), 0) AS total FROM ledger_entries WHERE organization_id = ?', [orgId]);
    expect([wallet!.balance, ledger!.total]).toEqual([0, 0]);
    const live = await port.get<{ n: number }>("SELECT count(*) AS n FROM audit_events WHERE organization_id = ? AND action = 'verification.live_check'", [orgId]);
    expect(live!.n).toBe(AFFORDABLE + more);
    expect((await verifyOrganizationChain(port, orgId)).ok).toBe(true);
  });
});
