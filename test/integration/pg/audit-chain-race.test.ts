// The audit chain on a team server (docs/audit.md, docs/team-server.md): entries appended at once to one
// organization's chain — from transactions of one instance and of two — all land, with no gap and no fork. Each
// append reads the chain's head and writes head + 1; two that read the same head collide on (organization_id, seq).
// PostgreSQL reports that either as a serialization failure or, when the head was read by a scan it does not count as
// reading the key, as a unique violation on audit_events_pkey (seen once as a failed sign-in: SQLSTATE 23505);
// either way the transaction is run again and reads the new head.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAudit, verifyOrganizationChain } from '../../../src-main/core/audit/audit-log';
import type { TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';
import { startInstances } from '../../helpers/team-instances';

let db: TestDatabase;
const instances: TestService[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  instances.push(...(await startInstances(db.url, 2)));
}, 60_000);

afterAll(async () => {
  for (const t of instances) await t.stop();
  await db?.drop();
});

/**
 * Resolves once a connection of the database waits, inside an INSERT into audit_events, for another transaction to end
 * (the unique key's check): polled, no timer bet, and no other connection's wait mistaken for it.
 */
async function someoneWaitsForALock(deps: TestService['service']['deps']): Promise<void> {
  for (let i = 0; i < 1_000; i++) {
    const row = await deps.sql.get<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
         AND wait_event = 'transactionid' AND query LIKE 'INSERT INTO audit_events%'`,
    );
    if (row!.n > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no connection came to wait for a lock');
}

describe('audit entries appended at once to one chain', () => {
  it('two appends that read the same head: the second meets the unique violation, is run again and lands on the new head', async () => {
    // READ COMMITTED makes the collision a unique violation every time (SERIALIZABLE makes it one only sometimes): B
    // reads the head while A's entry is written but not committed, then waits on A's key; A commits; B's INSERT fails
    // with 23505 on audit_events_pkey, and its transaction is run again.
    const deps = instances[0]!.service.deps;
    const org = instances[0]!.org!.organizationId;
    let releaseA!: () => void;
    const aMayCommit = new Promise<void>((r) => (releaseA = r));
    let aWrote!: () => void;
    const aHasWritten = new Promise<void>((r) => (aWrote = r));
    let bRuns = 0;
    const record = (who: string) => ({ action: 'auth.login_failed', target: { type: 'user', id: null }, detail: { email: `${who}@team.test` } });
    const a = deps.sql.transaction(
      async (tx) => {
        const entry = await appendAudit({ ...deps, sql: tx }, org, record('a'));
        aWrote();
        await aMayCommit;
        return entry.seq;
      },
      { isolation: 'read committed' },
    );
    await aHasWritten;
    const b = instances[1]!.service.deps.sql.transaction(
      async (tx) => {
        bRuns++;
        return (await appendAudit({ ...instances[1]!.service.deps, sql: tx }, org, record('b'))).seq;
      },
      { isolation: 'read committed' },
    );
    await someoneWaitsForALock(deps);
    releaseA();
    const [seqA, seqB] = await Promise.all([a, b]);
    expect(Number(seqB)).toBe(Number(seqA) + 1);
    expect(bRuns).toBe(2);
    expect((await verifyOrganizationChain(deps.sql, org)).ok).toBe(true);
  });

  it('all land, gap-free, from many transactions of two instances, each writing something else first', async () => {
    const org = instances[0]!.org!.organizationId;
    const before = (await instances[0]!.service.deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM audit_events WHERE organization_id = ?', [org]))!.n;
    const n = 60;
    await Promise.all(
      Array.from({ length: n }, (_, i) => {
        const deps = instances[i % 2]!.service.deps;
        return deps.sql.transaction(async (tx) => {
          // As a failed sign-in does: a row of its own first, then the entry.
          await tx.run('INSERT INTO login_failures (email, at_ms, ip) VALUES (?, ?, ?)', [`race-${i}@team.test`, Date.now(), null]);
          await appendAudit({ ...deps, sql: tx }, org, { action: 'auth.login_failed', target: { type: 'user', id: null }, detail: { email: `race-${i}@team.test` } });
        });
      }),
    );
    const rows = await instances[1]!.service.deps.sql.all<{ seq: number }>('SELECT seq FROM audit_events WHERE organization_id = ? ORDER BY seq', [org]);
    expect(rows).toHaveLength(before + n);
    // No gap: the seqs are consecutive.
    rows.forEach((r, i) => expect(Number(r.seq)).toBe(Number(rows[0]!.seq) + i));
    const verdict = await verifyOrganizationChain(instances[0]!.service.deps.sql, org);
    expect(verdict.ok).toBe(true);
  });
});
