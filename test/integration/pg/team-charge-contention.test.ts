// Live checks contending for one wallet over two `serve` instances on one PostgreSQL database (docs/team-server.md,
// "Charges queue on the organization"; docs/billing.md): 60 at once, with distinct Idempotency-Keys, against a wallet
// that pays for 40. Every charge updates the wallet's row and appends to the organization's audit chain; under
// SERIALIZABLE alone each collision failed at the row (or the chain's head) and was run again, and the last of 60 in
// line ran out of tries: 500 INTERNAL_ERROR. Now they queue: every answer is 200 (charged) or 402 (the balance),
// the first time, and the wallet equals its ledger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyOrganizationChain } from '../../../src-main/core/audit/audit-log';
import { createPgPort, type PgPort } from '../../../src-main/store/pg/pg-port';
import { api, enableLive, newKey, NG_OK, type TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';
import { startInstances } from '../../helpers/team-instances';

const PRICE = 25;
const AFFORDABLE = 40;
const CHECKS = 60;
let db: TestDatabase;
let port: PgPort;
const instances: TestService[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  port = createPgPort(db.url);
  instances.push(...(await startInstances(db.url, 2)));
  await enableLive(instances[0]!, 'account:NG', { price: PRICE, balance: PRICE * AFFORDABLE });
}, 60_000);

afterAll(async () => {
  for (const t of instances) await t.stop();
  await port?.close();
  await db?.drop();
});

describe('live checks contending for one wallet over two instances', () => {
  it(`${CHECKS} at once: each answered 200 or 402 the first time (never a 5xx), and the balance equals the ledger`, async () => {
    const key = instances[0]!.liveKey;
    const started = Date.now();
    // Each sent once: a 5xx is the defect, not something to send again.
    const results = await Promise.all(Array.from({ length: CHECKS }, (_, i) => api(instances[i % 2]!.url, 'POST', '/verify/account', { key, idem: newKey(), body: NG_OK })));
    const elapsed = Date.now() - started;
    const summary = results.map((r) => `${r.status} ${r.status === 200 ? r.body.charge?.status : r.body.code}`).join('\n');
    expect(results.filter((r) => r.status !== 200 && r.status !== 402), summary).toEqual([]);
    const charged = results.filter((r) => r.status === 200);
    expect(charged, summary).toHaveLength(AFFORDABLE);
    for (const r of charged) expect(r.body.charge).toMatchObject({ status: 'charged', amount: PRICE });
    for (const r of results.filter((x) => x.status === 402)) expect(r.body.code).toBe('INSUFFICIENT_FUNDS');
    // Queued, not stalled: 60 short transactions one after another (generous for a loaded machine).
    expect(elapsed).toBeLessThan(20_000);

    const orgId = instances[0]!.org!.organizationId;
    const wallet = await port.get<{ balance: number }>('SELECT balance FROM wallets WHERE organization_id = ?', [orgId]);
    const ledger = await port.get<{ n: number; total: number }>('SELECT count(*) AS n, COALESCE(sum(amount), 0) AS total FROM ledger_entries WHERE organization_id = ?', [orgId]);
    expect(wallet!.balance).toBe(ledger!.total);
    expect(wallet!.balance).toBe(0);
    expect(ledger!.n).toBe(1 + AFFORDABLE);
    // Every charge has its audit entry, in one unbroken chain.
    const live = await port.get<{ n: number }>("SELECT count(*) AS n FROM audit_events WHERE organization_id = ? AND action = 'verification.live_check'", [orgId]);
    expect(live!.n).toBe(AFFORDABLE);
    expect((await verifyOrganizationChain(port, orgId)).ok).toBe(true);
  });
});
