// Seeds a bootstrapped data folder directly through SQLite before the service starts: extra API keys (so load
// spread over several keys stays under the per-key rate limit, which is policy, not cost) and bulk verification
// records written by the real repository code (insertKey, insertVerification) into the real schema.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { VerificationRecord } from '../../src-shared/schemas/verification';
import { systemClock } from '../../src-main/core/clock';
import type { CoreDeps } from '../../src-main/core/context';
import { insertKey } from '../../src-main/core/keys/keys-service';
import { insertVerification } from '../../src-main/core/verification/records';
import { createServicePort } from '../../src-main/store/service-port';
import { catchUpSearchIndex } from '../../src-main/core/verification/search-index';
import { SEARCH_INDEX_COLUMNS, searchDocumentSql } from '../../src-main/store/migrations/010-search-provenance';

/**
 * Opens the service's store without migrating: the service that bootstrapped the folder owns the schema (the
 * built service and the sources may be at different migration versions while features land).
 */
export function openStore(dataDir: string): { db: Database.Database; organizationId: string; close(): void } {
  const db = new Database(join(dataDir, 'verification-console.sqlite'));
  db.pragma('journal_mode = WAL');
  // The repository helpers prepare at the point of use; the service caches statements, so does this.
  const prepare = db.prepare.bind(db);
  const statements = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let st = statements.get(sql);
    if (!st) statements.set(sql, (st = prepare(sql)));
    return st;
  }) as typeof db.prepare;
  const org = db.prepare('SELECT id FROM organizations ORDER BY created_at LIMIT 1').get() as { id: string } | undefined;
  if (!org) throw new Error('no organization: bootstrap the folder first');
  return { db, organizationId: org.id, close: () => db.close() };
}

/** Adds `n` API keys of an environment to the first organization; returns their full values. */
/**
 * API keys benchmark 2 (the reads) spreads its load over. The per-key budget (6,000 requests a minute,
 * docs/api-decisions.md) is policy, not cost: 64 keys allow 6,400 requests a second, which the reads passed on a quiet
 * machine (32,000/s), so most of what they measured was 429s. 1,024 keys allow 102,400 a second (the key cache holds up
 * to 10,000). The POST benchmarks keep 64, well within their budget, so their figures stay comparable (each key writes
 * its lastUsedAt at most once a second).
 */
export const BENCH_KEYS = 1024;

export async function addKeys(dataDir: string, n: number, environment: 'sandbox' | 'live' = 'sandbox'): Promise<string[]> {
  const s = openStore(dataDir);
  const sql = createServicePort(s.db);
  const deps = { db: s.db, sql, clock: systemClock } as unknown as CoreDeps;
  try {
    return await sql.transaction(async (tx) => {
      const keys: string[] = [];
      for (let i = 0; i < n; i++) keys.push((await insertKey({ ...deps, sql: tx }, s.organizationId, `bench ${i}`, environment)).key);
      return keys;
    });
  } finally {
    s.close();
  }
}

/**
 * Writes `n` finished sandbox account verifications (one per second of history, newest now) in chunks of one
 * transaction each; synchronous=OFF while seeding since a crash only loses the fixture. Returns some ids.
 */
export async function seedVerifications(dataDir: string, n: number): Promise<{ sampleIds: string[]; organizationId: string }> {
  const s = openStore(dataDir);
  const sql = createServicePort(s.db);
  s.db.pragma('synchronous = OFF');
  const start = Date.now() - n * 1000;
  const sampleIds: string[] = [];
  const chunk = 50_000;
  // Indexes and triggers are dropped while seeding and recreated from their own SQL afterwards (much faster).
  const derived = s.db
    .prepare("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'verifications' AND type IN ('index', 'trigger') AND sql IS NOT NULL")
    .all() as { type: string; name: string; sql: string }[];
  for (const d of derived) s.db.exec(`DROP ${d.type.toUpperCase()} ${d.name}`);
  const before = (s.db.prepare('SELECT coalesce(max(rowid), 0) AS r FROM verifications').get() as { r: number }).r;
  try {
    for (let done = 0; done < n; done += chunk) {
      await sql.transaction(async (tx) => {
        for (let i = done; i < Math.min(n, done + chunk); i++) {
          const id = `ver_seed${String(i).padStart(10, '0')}`;
          const at = new Date(start + i * 1000).toISOString();
          const failed = i % 5 === 0;
          const record: VerificationRecord = {
            id,
            status: failed ? 'failed' : 'success',
            verified: !failed,
            verificationType: 'ACCOUNT_NUMBER',
            identifier: String(1_000_000_000 + i),
            country: 'NG',
            bankCode: '058',
            environment: 'sandbox',
            mode: 'sync',
            createdAt: at,
            completedAt: at,
            source: 'live',
            charge: { amount: 0, currency: 'USD', status: 'not_charged' },
            ...(failed
              ? { error: { code: 'ACCOUNT_NOT_FOUND', message: 'No account with this number exists in the sandbox test data.' } }
              : { accountName: 'ADAEZE OKAFOR', bankName: 'Guaranty Trust Bank' }),
          } as VerificationRecord;
          await insertVerification(tx, {
            kind: 'account',
            organizationId: s.organizationId,
            request: { country: 'NG', accountNumber: record.identifier, bankCode: '058' },
            record,
          });
          if (i % Math.max(1, Math.floor(n / 1000)) === 0) sampleIds.push(id);
        }
      });
    }
    for (const d of derived) s.db.exec(d.sql);
    // The History search index covers the seeded rows, as a service would: its indexer (migration 20), or, in a
    // store from before migration 20 (BENCH_SERVICE_ROOT), the rows of the dropped trigger indexed in one pass.
    if (s.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'verification_search_state'").get()) {
      await catchUpSearchIndex(sql, { batchRows: 50_000 });
    } else if (s.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'verification_search'").get()) {
      s.db.prepare(`INSERT INTO verification_search (${SEARCH_INDEX_COLUMNS}) SELECT v.rowid, ${searchDocumentSql('v')} FROM verifications v WHERE v.rowid > ?`).run(before);
    }
    if (s.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'table_versions'").get()) {
      s.db.prepare("UPDATE table_versions SET version = version + 1 WHERE name = 'verifications'").run();
    }
    s.db.pragma('wal_checkpoint(TRUNCATE)');
    return { sampleIds, organizationId: s.organizationId };
  } finally {
    s.close();
  }
}
