// The two schemas cannot drift apart: after every migration, each SQLite table, column (type, NOT NULL, default),
// primary key, unique constraint, foreign key, CHECK count, index and trigger has its PostgreSQL counterpart
// (docs/team-server.md, "Schema"). What PostgreSQL has beyond SQLite is listed here, each with its reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../src-main/store/database';
import { createPgPort, type PgPort } from '../../../src-main/store/pg/pg-port';
import { migratePostgres } from '../../../src-main/store/pg/migrate';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';

/** SQLite triggers whose job PostgreSQL does another way. */
const TRIGGER_COUNTERPARTS: Record<string, string> = {
  // The FTS5 index's upkeep (migration 20: an indexer fills it; these note changed rows and remove deleted ones).
  verification_search_changed: 'index verifications_search (an expression index is kept by PostgreSQL itself)',
  verification_search_delete: 'index verifications_search',
  // Migration 19: a counter row updated by every insert serialises concurrent writers; PostgreSQL counts instead.
  verifications_version_insert: 'none: list pages count their rows (store/list-query.ts)',
  verifications_version_delete: 'none: list pages count their rows',
  verifications_version_update: 'none: list pages count their rows',
};
/** PostgreSQL-only objects, and why. */
const PG_ONLY_TRIGGERS = new Set([
  // TRUNCATE does not exist in SQLite.
  'ledger_no_truncate',
  'audit_events_no_truncate',
  // Changes announced to the other instances with NOTIFY (migration 18). SQLite's counterparts are temporary
  // triggers of the service's own connection (core/events/live-events.ts), and a SQLite store has one service.
  'verifications_live_insert',
  'verifications_live_update',
  'webhook_deliveries_live_insert',
  'webhook_deliveries_live_update',
  'webhook_attempts_live_insert',
  'webhooks_live_insert',
  'webhooks_live_update',
  'wallets_live_insert',
  'wallets_live_update',
  'settings_notify',
]);
const PG_ONLY_INDEXES = new Set(['verifications_search']); // FTS5's counterpart
/**
 * Indexes whose PostgreSQL twin ends with the primary key `id`: the list they serve breaks ties in insertion order
 * (dialect.insertionOrder), which is the rowid every SQLite index entry already ends with, and `id` on PostgreSQL.
 */
const PG_TIE_BREAK_ID = new Set(['webhook_deliveries_list', 'webhook_deliveries_hook_status']); // migration 25
/** SQLite tables that are derived data (FTS5, its shadow tables and its indexer's state): never copied, not mirrored. */
const isDerived = (t: string) => t === 'verification_search' || t.startsWith('verification_search_');

let sqlite: Db;
let port: PgPort;
let db: TestDatabase;

beforeAll(async () => {
  sqlite = openDatabase(':memory:');
  db = await freshDatabase();
  port = createPgPort(db.url);
  await migratePostgres(port);
});
afterAll(async () => {
  sqlite?.close();
  await port?.close();
  await db?.drop();
});

interface SqliteColumn {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

function sqliteTables(): string[] {
  return (sqlite.prepare("SELECT name, type FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite_%'").all() as { name: string; type: string }[])
    .filter((t) => t.type === 'table' && !isDerived(t.name))
    .map((t) => t.name)
    .sort();
}

const tableSql = (t: string) => (sqlite.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) as { sql: string }).sql;

/** The type PostgreSQL must have for a SQLite column. */
function pgTypeFor(table: string, c: SqliteColumn): string {
  const nocase = new RegExp(`\\b${c.name}\\s+TEXT[^,]*COLLATE\\s+NOCASE`, 'i').test(tableSql(table));
  switch (c.type.toUpperCase()) {
    case 'TEXT':
      return nocase ? 'citext' : 'text';
    case 'INTEGER':
      return 'bigint';
    case 'REAL':
      return 'double precision';
    default:
      return `unmapped ${c.type}`;
  }
}

const normDefault = (d: string | null) => (d === null ? null : d.replace(/::[a-z ]+$/i, '').replace(/^\((.*)\)$/, '$1'));

describe('SQLite and PostgreSQL schemas', () => {
  it('have the same tables', async () => {
    const pg = (await port.all<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'")).map((r) => r.t).sort();
    expect(pg).toEqual(sqliteTables());
  });

  it('have the same columns, in the same order, with matching types, NOT NULL and defaults', async () => {
    for (const t of sqliteTables()) {
      const want = (sqlite.prepare(`PRAGMA table_info(${t})`).all() as SqliteColumn[]).map((c) => ({
        name: c.name,
        type: pgTypeFor(t, c),
        notnull: c.notnull === 1 || c.pk > 0,
        dflt: normDefault(c.dflt_value),
      }));
      const have = (
        await port.all<{ name: string; data_type: string; udt_name: string; is_nullable: string; column_default: string | null }>(
          'SELECT column_name AS name, data_type, udt_name, is_nullable, column_default FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position',
          [t],
        )
      ).map((c) => ({ name: c.name, type: c.data_type === 'USER-DEFINED' ? c.udt_name : c.data_type, notnull: c.is_nullable === 'NO', dflt: normDefault(c.column_default) }));
      expect(have, t).toEqual(want);
    }
  });

  it('have the same primary keys, unique constraints, foreign keys and number of CHECK constraints', async () => {
    const cons = await port.all<{ tbl: string; contype: string; cols: string[]; ref: string | null; refcols: string[] | null; deltype: string; deferrable: number }>(
      `SELECT c.conrelid::regclass::text AS tbl, c.contype::text AS contype,
              array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o) AS cols,
              c.confrelid::regclass::text AS ref,
              array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o) AS refcols,
              c.confdeltype::text AS deltype, c.condeferrable AS deferrable
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
       WHERE n.nspname = current_schema() AND c.contype IN ('p','u','f','c')`,
    );
    for (const t of sqliteTables()) {
      const mine = cons.filter((c) => c.tbl === t);
      const cols = sqlite.prepare(`PRAGMA table_info(${t})`).all() as SqliteColumn[];
      const pk = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
      expect(mine.filter((c) => c.contype === 'p').map((c) => c.cols), `${t} primary key`).toEqual(pk.length > 0 ? [pk] : []);
      const uniques = (sqlite.prepare(`PRAGMA index_list(${t})`).all() as { name: string; origin: string }[])
        .filter((i) => i.origin === 'u')
        .map((i) => (sqlite.prepare(`PRAGMA index_info(${i.name})`).all() as { name: string }[]).map((c) => c.name))
        .sort();
      expect(mine.filter((c) => c.contype === 'u').map((c) => c.cols).sort(), `${t} unique`).toEqual(uniques);
      const fks = new Map<number, { cols: string[]; ref: string; refcols: string[]; deltype: string }>();
      for (const f of sqlite.prepare(`PRAGMA foreign_key_list(${t})`).all() as { id: number; table: string; from: string; to: string; on_delete: string }[]) {
        const e = fks.get(f.id) ?? { cols: [], ref: f.table, refcols: [], deltype: f.on_delete === 'CASCADE' ? 'c' : 'a' };
        e.cols.push(f.from);
        e.refcols.push(f.to);
        fks.set(f.id, e);
      }
      const sortKey = (x: { cols: string[]; ref: string }) => `${x.cols.join(',')}>${x.ref}`;
      expect(
        mine.filter((c) => c.contype === 'f').map((c) => ({ cols: c.cols, ref: c.ref!, refcols: c.refcols!, deltype: c.deltype })).sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
        `${t} foreign keys`,
      ).toEqual([...fks.values()].sort((a, b) => sortKey(a).localeCompare(sortKey(b))));
      // Every foreign key can be deferred to the end of a transaction (db copy does), and is checked per statement otherwise.
      for (const f of mine.filter((c) => c.contype === 'f')) expect(f.deferrable, `${t} ${f.cols.join(',')} deferrable`).toBe(1);
      const checks = (tableSql(t).match(/\bCHECK\s*\(/gi) ?? []).length;
      expect(mine.filter((c) => c.contype === 'c').length, `${t} CHECK constraints`).toBe(checks);
    }
  });

  it('have the same indexes (columns, order, uniqueness, partial)', async () => {
    const pgIdx = await port.all<{ name: string; tbl: string; uniq: number; partial: number; backed: number; cols: string[] }>(
      `SELECT i.relname::text AS name, t.relname::text AS tbl, ix.indisunique AS uniq, (ix.indpred IS NOT NULL) AS partial,
              EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = ix.indexrelid) AS backed,
              array(SELECT pg_get_indexdef(ix.indexrelid, k, true) || CASE WHEN (ix.indoption[k - 1] & 1) = 1 THEN ' DESC' ELSE '' END
                    FROM generate_series(1, ix.indnkeyatts) k ORDER BY k) AS cols
       FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
       WHERE n.nspname = current_schema()`,
    );
    const named = pgIdx.filter((i) => i.backed === 0);
    const sqliteIdx = (sqlite.prepare("SELECT name, tbl_name AS tbl, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as { name: string; tbl: string; sql: string }[]).filter(
      (i) => !isDerived(i.tbl),
    );
    for (const s of sqliteIdx) {
      const cols = (sqlite.prepare(`PRAGMA index_xinfo(${s.name})`).all() as { name: string; desc: number; key: number }[]).filter((c) => c.key === 1).map((c) => `${c.name}${c.desc ? ' DESC' : ''}`);
      if (PG_TIE_BREAK_ID.has(s.name)) cols.push('id');
      const p = named.find((i) => i.name === s.name);
      expect(p, `index ${s.name}`).toBeDefined();
      expect({ tbl: p!.tbl, cols: p!.cols, uniq: p!.uniq === 1, partial: p!.partial === 1 }, s.name).toEqual({ tbl: s.tbl, cols, uniq: /CREATE UNIQUE/i.test(s.sql), partial: /\bWHERE\b/i.test(s.sql) });
    }
    expect(named.map((i) => i.name).filter((n) => !sqliteIdx.some((s) => s.name === n)).sort()).toEqual([...PG_ONLY_INDEXES].sort());
  });

  it('have a counterpart for every SQLite trigger', async () => {
    const pgTriggers = (await port.all<{ name: string }>('SELECT tgname::text AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND n.nspname = current_schema()')).map((r) => r.name);
    const sqliteTriggers = (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as { name: string }[]).map((r) => r.name);
    for (const t of sqliteTriggers) expect(pgTriggers.includes(t) || t in TRIGGER_COUNTERPARTS, `trigger ${t}`).toBe(true);
    expect(pgTriggers.filter((t) => !sqliteTriggers.includes(t)).sort()).toEqual([...PG_ONLY_TRIGGERS].sort());
  });
});
