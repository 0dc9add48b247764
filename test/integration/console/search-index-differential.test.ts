// History search with its index off the write path (migration 20, core/verification/search-index.ts) answers exactly
// what it answered when migration 10's triggers kept the index: a seeded random differential test. Two real store
// files get the same operations — sync and async checks of two organizations and both environments, async ones
// completed, names rewritten, deletes (single rows, the newest rows, random sets, a whole scope: one statement
// each), VACUUM, a restart, a backup taken while the index lags and restored later — and every search (name,
// identifier and country prefixes, with and without filters) must give the same page and count on both:
// - the store under test: every migration; its index is brought up to date only by indexer batches of random sizes
//   run at random moments, and by the searches themselves;
// - the reference: the same store at migration 19, where the triggers write the index with each row (given an
//   indexer state that never lags, so the same search function reads it without catching anything up).
// A failure names its seed and step; VC_SEARCH_SEED=<n> replays one seed, VC_SEARCH_SEEDS=<count> runs more.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createBackup, restoreBackup } from '../../../src-main/core/backups/backups';
import { insertVerification, updateVerification } from '../../../src-main/core/verification/records';
import { searchVerifications, type SearchInput } from '../../../src-main/core/verification/search';
import { catchUpSearchIndex, indexSearchBatch, searchIndexBehind } from '../../../src-main/core/verification/search-index';
import { openDatabase, type Db } from '../../../src-main/store/database';
import { MIGRATIONS } from '../../../src-main/store/migrations';
import { createServicePort } from '../../../src-main/store/service-port';
import type { SqlQueries } from '../../../src-main/store/sql-port';
import { storeFile } from '../../../src-main/store/store-open';
import { seededRandom } from '../../../src-shared/seeded-random';
import type { VerificationRecord } from '../../../src-shared/schemas/verification';
import { sqliteOnly } from '../../helpers/harness';

const SEEDS: number[] = process.env['VC_SEARCH_SEED']
  ? [Number(process.env['VC_SEARCH_SEED'])]
  : Array.from({ length: Number(process.env['VC_SEARCH_SEEDS'] ?? 12) }, (_, i) => 1 + i * 7919);
const STEPS = Number(process.env['VC_SEARCH_STEPS'] ?? 160);

const ORGS = ['org_alpha', 'org_beta'] as const;
const ENVS = ['sandbox', 'live'] as const;
const COUNTRIES = ['NG', 'KE', 'GB', 'DE'] as const;
// Shared first names and prefixes (kof/kofi, oka/okafor), accents (remove_diacritics), names in either order.
const NAMES = ['KOFI MENSAH', 'KOFI ASANTE', 'ADAEZE OKAFOR', 'OKAFOR KOFI', 'AMARA NDLOVU', 'JOSÉ ÁLVAREZ', 'ZOË MÜLLER', 'TENDAI MOYO', 'MOYO TENDAI NDLOVU'];
const IDENT_HEADS = ['0690', '0123', '5550', '+234 80', '44-20', '0690 1'];

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** One store and its port; the reference's migrations stop before 20 (the triggers of migration 10 stay). */
class Store {
  db!: Db;
  sql!: SqlQueries;
  constructor(
    readonly dir: string,
    readonly reference: boolean,
  ) {
    this.open();
  }
  open(): void {
    this.db = openDatabase(storeFile(this.dir), this.reference ? MIGRATIONS.filter((m) => m.version < 20) : MIGRATIONS);
    // Durability is not what is tested here: no fsync per step keeps the run short.
    this.db.pragma('synchronous = OFF');
    if (this.reference && !this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'verification_search_state'").get()) {
      // An indexer state that never lags, so searchVerifications reads the trigger-kept index as it is.
      this.db.exec(`CREATE TABLE verification_search_state (id INTEGER PRIMARY KEY, indexed_through INTEGER NOT NULL);
        INSERT INTO verification_search_state VALUES (1, ${Number.MAX_SAFE_INTEGER});
        CREATE TABLE verification_search_dirty (verification_rowid INTEGER PRIMARY KEY);`);
    }
    this.sql = createServicePort(this.db);
  }
  close(): void {
    this.db.close();
  }
}

interface Check {
  id: string;
  org: string;
  env: string;
  country: string;
  identifier: string;
  pending: boolean;
  /** The names a search can find it by: the one it asked about (request) and the one it returned (result). */
  requestName: string | null;
  resultName: string | null;
  record: VerificationRecord;
}
const namesOf = (c: Check) => [c.requestName, c.resultName].filter((x): x is string => x !== null);

function makeRecord(c: Pick<Check, 'id' | 'env' | 'country' | 'identifier' | 'pending'>, resultName: string | null, at: string): VerificationRecord {
  return {
    id: c.id,
    status: c.pending ? 'pending' : 'success',
    verified: !c.pending,
    verificationType: 'ACCOUNT_NUMBER',
    identifier: c.identifier,
    country: c.country,
    environment: c.env,
    mode: c.pending ? 'async' : 'sync',
    createdAt: at,
    completedAt: c.pending ? null : at,
    ...(c.pending ? {} : { source: 'live' }),
    ...(resultName ? { accountName: resultName } : {}),
    charge: { amount: 0, currency: 'USD', status: 'not_charged' },
  } as VerificationRecord;
}

type Stats = Record<'searches' | 'deletes' | 'batches' | 'vacuums' | 'restarts' | 'restores', number>;

async function runSeed(seed: number): Promise<Stats> {
  const rnd = seededRandom(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const chance = (p: number) => rnd() < p;
  const mk = () => {
    const d = mkdtempSync(join(tmpdir(), 'vc-search-diff-'));
    dirs.push(d);
    return d;
  };
  const stores = [new Store(mk(), false), new Store(mk(), true)] as const;
  const [deferred, reference] = stores;
  const both = async (f: (s: Store) => Promise<unknown>) => {
    for (const s of stores) await f(s);
  };
  let checks: Check[] = [];
  let backup: { deferredFile: string; referenceFile: string; checks: Check[] } | null = null;
  let n = 0;
  let step = 0;
  const stats: Stats = { searches: 0, deletes: 0, batches: 0, vacuums: 0, restarts: 0, restores: 0 };
  const fail = (what: string) => `[seed ${seed}, step ${step}] ${what}`;

  try {
    await both((s) => s.sql.transaction(async (tx) => {
      for (const o of ORGS) await tx.run("INSERT INTO organizations (id, name, created_at) VALUES (?, ?, '2026-01-01T00:00:00.000Z')", [o, o]);
    }));

    const insert = async (pending: boolean) => {
      const at = new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
      const base = {
        id: `ver_d${String(seed).padStart(8, '0')}${String(n++).padStart(12, '0')}`,
        org: pick(ORGS),
        env: pick(ENVS),
        country: pick(COUNTRIES),
        identifier: `${pick(IDENT_HEADS)}${String(int(100000)).padStart(5, '0')}`,
        pending,
      };
      const requestName = chance(0.4) ? pick(NAMES) : null;
      const resultName = pending ? null : pick(NAMES);
      const record = makeRecord(base, resultName, at);
      const request = { country: base.country, accountNumber: base.identifier, bankCode: '058', ...(requestName ? { accountName: requestName } : {}) };
      await both((s) => s.sql.transaction((tx) => insertVerification(tx, { kind: 'account', organizationId: base.org, request, record })));
      checks.push({ ...base, record, requestName, resultName });
    };
    /** An async check completes, or a stored record is rewritten with other names (updateVerification). */
    const update = async (c: Check) => {
      const name = pick(NAMES);
      const record: VerificationRecord = { ...c.record, status: 'success', verified: true, completedAt: c.record.createdAt, source: 'live', accountName: name } as VerificationRecord;
      await both((s) => s.sql.transaction((tx) => updateVerification(tx, record)));
      c.record = record;
      c.pending = false;
      c.resultName = name;
    };
    const remove = async (ids: string[]) => {
      if (ids.length === 0) return;
      const gone = new Set(ids);
      // One statement, as demo data removal deletes its rows.
      await both((s) => s.sql.transaction((tx) => tx.run('DELETE FROM verifications WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(ids)])));
      checks = checks.filter((c) => !gone.has(c.id));
      stats.deletes++;
    };
    const query = (): Omit<SearchInput, 'limit' | 'offset'> => {
      const c = checks.length > 0 && chance(0.85) ? pick(checks) : null;
      const words = (c ? namesOf(c).join(' ') : pick(NAMES)).split(' ').filter(Boolean);
      const word = words.length > 0 ? pick(words) : 'kofi';
      const namePrefix = word.slice(0, 3 + int(Math.max(1, word.length - 2)));
      const ident = c ? c.identifier : pick(IDENT_HEADS);
      const digits = ident.replace(/[^0-9]/g, '');
      const identPrefix = chance(0.3) ? ident.slice(0, 4 + int(ident.length - 3)) : digits.slice(0, 3 + int(digits.length - 2));
      const country = c ? c.country : pick(COUNTRIES);
      const kind = int(6);
      const q =
        kind === 0 ? namePrefix
        : kind === 1 ? identPrefix
        : kind === 2 ? `${namePrefix} ${country}`
        : kind === 3 ? `${identPrefix} ${namePrefix.toLowerCase()}`
        : kind === 4 ? `${word} ${pick(NAMES).split(' ')[0]!.slice(0, 4)}`
        : country;
      return { q, ...(chance(0.2) ? { status: pick(['pending', 'success']) } : {}), ...(chance(0.15) ? { country: pick(COUNTRIES) } : {}) };
    };
    const search = async () => {
      const input = { ...query(), limit: 1 + int(40), offset: chance(0.2) ? int(5) : 0 };
      const org = checks.length > 0 && chance(0.8) ? pick(checks) : null;
      const scope = org ? { o: org.org, e: org.env } : { o: pick(ORGS), e: pick(ENVS) };
      const [got, want] = [
        await searchVerifications(deferred.sql, scope.o, scope.e, input),
        await searchVerifications(reference.sql, scope.o, scope.e, input),
      ];
      const shape = (r: typeof got) => ({ ids: r.data.map((x) => x.id), pagination: r.pagination });
      expect(shape(got), fail(`search ${JSON.stringify({ ...input, scope })}`)).toEqual(shape(want));
      // The search caught the index up completely.
      expect(await searchIndexBehind(deferred.sql), fail('the index lags after a search')).toBe(false);
      stats.searches++;
    };
    /** What must hold between steps: the watermark never passes the last row (a new row's rowid is above it). */
    const invariants = async () => {
      const s = (await deferred.sql.get<{ w: number; m: number; d: number }>(
        `SELECT (SELECT indexed_through FROM verification_search_state) AS w, (SELECT coalesce(max(rowid), 0) FROM verifications) AS m,
           (SELECT count(*) FROM verification_search_dirty WHERE verification_rowid > (SELECT indexed_through FROM verification_search_state)) AS d`,
      ))!;
      expect(s.w, fail(`watermark ${s.w} above the last rowid ${s.m}`)).toBeLessThanOrEqual(s.m);
      expect(s.d, fail('dirty rows above the watermark')).toBe(0);
    };

    for (step = 0; step < STEPS; step++) {
      const r = rnd();
      if (r < 0.3 || checks.length < 3) await insert(chance(0.4));
      else if (r < 0.4) {
        const c = checks.filter((x) => x.pending);
        if (c.length > 0) await update(pick(c));
      } else if (r < 0.45) await update(pick(checks));
      else if (r < 0.52) await remove([pick(checks).id]);
      else if (r < 0.57) await remove(checks.slice(-1 - int(5)).map((c) => c.id)); // the newest rows
      else if (r < 0.62) await remove(checks.filter(() => chance(0.3)).map((c) => c.id));
      else if (r < 0.64) {
        const c = pick(checks);
        await remove(checks.filter((x) => x.org === c.org && x.env === c.env).map((x) => x.id)); // a whole scope
      } else if (r < 0.76) {
        await indexSearchBatch(deferred.sql, 1 + int(12));
        stats.batches++;
      } else if (r < 0.77) {
        // A catch-up in small batches ends with nothing left behind.
        await catchUpSearchIndex(deferred.sql, { batchRows: 1 + int(5) });
        expect(await searchIndexBehind(deferred.sql), fail('the index lags after a catch-up')).toBe(false);
      } else if (r < 0.78) {
        // VACUUM rebuilds every table: the rowids (which the index and the watermark name) must survive it.
        await both(async (s) => void s.db.exec('VACUUM'));
        stats.vacuums++;
      } else if (r < 0.79) {
        // A restart (everything is in the file: the watermark, the dirty set, the unindexed rows).
        await both(async (s) => {
          s.close();
          s.open();
        });
        stats.restarts++;
      } else if (r < 0.8 && backup === null) {
        // A backup of each store, taken now (the index may lag), restored some steps later.
        const deferredFile = join(mk(), 'deferred.sqlite');
        const referenceFile = join(mk(), 'reference.sqlite');
        await createBackup(deferred.db, deferred.dir, { out: deferredFile });
        await reference.db.backup(referenceFile);
        backup = { deferredFile, referenceFile, checks: checks.map((c) => ({ ...c })) };
      } else if (r < 0.81 && backup !== null) {
        deferred.close();
        restoreBackup(deferred.dir, backup.deferredFile);
        deferred.open();
        reference.close();
        for (const ext of ['-wal', '-shm']) rmSync(`${storeFile(reference.dir)}${ext}`, { force: true });
        copyFileSync(backup.referenceFile, storeFile(reference.dir));
        reference.open();
        checks = backup.checks;
        backup = null;
        stats.restores++;
      } else await search();
      await invariants();
    }
    // At the end: everything indexed, FTS5's own check passes, and every name and identifier of every row finds it.
    await catchUpSearchIndex(deferred.sql);
    await deferred.sql.transaction((tx) => tx.run("INSERT INTO verification_search (verification_search, rank) VALUES ('integrity-check', 0)"));
    for (const c of checks) {
      for (const q of [...namesOf(c), c.identifier.replace(/[^0-9]/g, '')]) {
        const found = await searchVerifications(deferred.sql, c.org, c.env, { q, limit: 200, offset: 0 });
        expect(found.data.map((x) => x.id), fail(`${c.id} not found by ${q}`)).toContain(c.id);
      }
    }
    return stats;
  } finally {
    for (const s of stores) s.close();
  }
}

sqliteOnly.describe('History search off the write path answers as the trigger-kept index did (seeded differential)', () => {
  it(`holds for ${SEEDS.length} seeds of ${STEPS} steps`, async () => {
    const total: Stats = { searches: 0, deletes: 0, batches: 0, vacuums: 0, restarts: 0, restores: 0 };
    for (const seed of SEEDS) {
      const s = await runSeed(seed);
      for (const k of Object.keys(total) as (keyof Stats)[]) total[k] += s[k];
    }
    console.log(`search differential: seeds ${SEEDS.join(',')} × ${STEPS} steps: ${JSON.stringify(total)}`);
    // The run did what it claims (not a vacuous pass).
    if (SEEDS.length >= 12) {
      expect(total.searches).toBeGreaterThan(SEEDS.length * 10);
      expect(total.deletes).toBeGreaterThan(SEEDS.length * 5);
      expect(total.batches).toBeGreaterThan(SEEDS.length * 5);
      expect(Math.min(total.vacuums, total.restarts, total.restores)).toBeGreaterThan(0);
    }
  });
});
