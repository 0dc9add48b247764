// The dialect helpers give the same answers on both engines, and History search on PostgreSQL (expression index,
// store/pg/search.ts) finds what SQLite's FTS5 search finds, in the same order: identifier prefixes with separators
// ignored, name prefixes with accents and case folded (Latin and Cyrillic), country codes, scope per organization
// and environment.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchVerifications } from '../../../src-main/core/verification/search';
import { openDatabase, type Db } from '../../../src-main/store/database';
import { dialectOf } from '../../../src-main/store/pg/dialect';
import { migratePostgres } from '../../../src-main/store/pg/migrate';
import { createPgPort, type PgPort } from '../../../src-main/store/pg/pg-port';
import { PG_SEARCH_DOCUMENT, pgSearchQuery } from '../../../src-main/store/pg/search';
import { createSqlitePort } from '../../../src-main/store/sqlite-port';
import type { SqlPort } from '../../../src-main/store/sql-port';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';

let dir: string;
let sqlite: Db;
let sqlitePort: SqlPort;
let pgDb: TestDatabase;
let pg: PgPort;

const ORG = 'org_Search-1';
const OTHER = 'org_other';
const ROWS: { org: string; env: string; country: string; identifier: string; request: object; result: object | null }[] = [
  { org: ORG, env: 'live', country: 'NG', identifier: '0123456789', request: { accountName: 'JOHN ADEBAYO' }, result: { accountName: 'JOHN A. ADEBAYO' } },
  { org: ORG, env: 'live', country: 'GB', identifier: '12-34-56 87654321', request: { accountName: "Siobhán O’Brien" }, result: null },
  { org: ORG, env: 'live', country: 'FR', identifier: '+33 6 12 34 56 78', request: {}, result: { fullName: 'Éloïse Dupont-Aignan' } },
  { org: ORG, env: 'live', country: 'RU', identifier: '(495) 123.45.67', request: { subject: { firstName: 'Иван', lastName: 'Петров' } }, result: { firstName: 'ИВАН' } },
  { org: ORG, env: 'live', country: 'NG', identifier: '0123999999', request: { validation: { firstName: 'Ngozi', lastName: 'Okafor' } }, result: { lastName: 'Okafor' } },
  { org: ORG, env: 'sandbox', country: 'NG', identifier: '0123456789', request: { accountName: 'JOHN ADEBAYO' }, result: {} },
  { org: OTHER, env: 'live', country: 'NG', identifier: '0123456789', request: { accountName: 'JOHN ADEBAYO' }, result: {} },
  { org: ORG, env: 'live', country: 'GB', identifier: 'GB29NWBK60161331926819', request: { accountName: 'Gbenga Ltd' }, result: { accountName: 'GBENGA LIMITED' } },
];

const QUERIES = ['0123', '0123456789', '012399', '2348', '1234', '123456', '495', '4951234567', 'john', 'ADE', 'john ade', 'eloise', 'ÉLOÏ', 'dupont', 'aignan', 'иван', 'ИВА', 'петр', 'brien', 'siob', 'ng', 'gb', 'fr', 'gbe', 'okafor ngo', 'ng 0123', 'zzz', 'jo zzz', 'gb29'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vc-search-'));
  sqlite = openDatabase(join(dir, 'store.sqlite'));
  sqlitePort = createSqlitePort(sqlite);
  pgDb = await freshDatabase();
  pg = createPgPort(pgDb.url);
  await migratePostgres(pg);
  for (const port of [sqlitePort, pg]) {
    for (const org of [ORG, OTHER]) await port.run('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)', [org, org, '2026-01-01T00:00:00.000Z']);
    let i = 0;
    for (const r of ROWS) {
      i += 1;
      const id = `ver_${String(i).padStart(4, '0')}`;
      const created = `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`;
      const result = r.result === null ? null : JSON.stringify({ id, ...r.result });
      await port.run(
        "INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode, request, result, created_at) VALUES (?, ?, ?, 'account', 'account', ?, ?, 'success', 'sync', ?, ?, ?)",
        [id, r.org, r.env, r.country, r.identifier, JSON.stringify(r.request), result ?? JSON.stringify({ id }), created],
      );
    }
  }
});

afterAll(async () => {
  await sqlitePort?.close();
  sqlite?.close();
  await pg?.close();
  await pgDb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('dialect helpers', () => {
  it('read JSON arrays and paths, and match case-insensitively, the same on both engines', async () => {
    for (const port of [sqlitePort, pg]) {
      const d = dialectOf(port.engine);
      expect(await port.all(`SELECT id AS value FROM verifications WHERE id IN ${d.jsonArrayValues()} ORDER BY id`, [JSON.stringify(['ver_0002', 'ver_0001', 'nope'])]), port.engine).toEqual([
        { value: 'ver_0001' },
        { value: 'ver_0002' },
      ]);
      expect(await port.get(`SELECT ${d.jsonText('request', ['subject', 'lastName'])} AS n FROM verifications WHERE id = ?`, ['ver_0004']), port.engine).toEqual({ n: 'Петров' });
      expect(await port.get(`SELECT count(*) AS n FROM verifications WHERE identifier ${d.caseInsensitiveLike} ?`, ['gb29%']), port.engine).toEqual({ n: 1 });
    }
  });
});

describe('History search on PostgreSQL', () => {
  it('finds what FTS5 finds on SQLite, newest first, for every query', async () => {
    const compared: string[] = [];
    for (const env of ['live', 'sandbox']) {
      for (const text of QUERIES) {
        const want = (await searchVerifications(sqlitePort, ORG, env, { q: text, limit: 50, offset: 0 })).data.map((r) => r.id);
        const s = await pgSearchQuery(pg, text, ORG, env);
        const have = s.tsquery
          ? (
              await pg.all<{ id: string }>(
                `SELECT v.id FROM verifications v WHERE v.organization_id = ? AND v.environment = ? AND ${PG_SEARCH_DOCUMENT('v')} @@ ?::tsquery ORDER BY v.created_at DESC, v.id DESC LIMIT 50`,
                [ORG, env, s.tsquery],
              )
            ).map((r) => r.id)
          : [];
        expect(have, `${env} "${text}" → ${s.tsquery}`).toEqual(want);
        compared.push(`${text}:${want.length}`);
      }
    }
    // The comparison is not vacuous: most queries find something, some find nothing.
    expect(compared.filter((c) => !c.endsWith(':0')).length).toBeGreaterThan(25);
    expect(compared.filter((c) => c.endsWith(':0')).length).toBeGreaterThan(3);
  });

  it('answers from the index', async () => {
    const s = await pgSearchQuery(pg, 'john', ORG, 'live');
    // A table this small would be read whole; with sequential scans off, the plan shows the index is usable.
    const plan = await pg.transaction(async (tx) => {
      await tx.exec('SET LOCAL enable_seqscan = off');
      return (await tx.all<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT id FROM verifications v WHERE ${PG_SEARCH_DOCUMENT('v')} @@ '${s.tsquery!.replace(/'/g, "''")}'::tsquery`)).map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('verifications_search');
  });
});
