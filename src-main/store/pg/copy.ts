// `vconsole db copy --from FILE.sqlite --to postgres://…`: a desktop store moved whole into an empty team database
// (docs/team-server.md, "Moving a desktop store up").
//
// - The source is read through a read-only connection inside one read transaction: a consistent snapshot, even while
//   a service keeps writing to it. It must be at this app's schema version (an older store is migrated first by
//   opening it with this app, or `vconsole migrate --data-dir`), pass `PRAGMA quick_check` and have no foreign key
//   violations.
// - A target holding tables but no record of this app's migrations (another application's database) is refused
//   before anything is written to it. The target is then migrated to this app's version (under the migration lock),
//   then everything happens in one PostgreSQL transaction under the copy's advisory lock: the target must be empty
//   (a second copy waits, then finds it full and refuses); every table is copied in foreign-key order (constraints deferred to the commit, so a
//   ledger reversal may precede nothing it refers to), in multi-row INSERTs; identity columns continue after the
//   highest copied value; each table's row count is compared with the source's; the caller's checks run (the
//   audit chain verifies, the balances match); and only then does it commit. Any failure leaves the target as empty
//   as it was.
// - Values are copied exactly: integers as 64-bit (read as BigInt, never rounded), JSON and timestamps as the very
//   text the core wrote (so the audit chain's hashes still verify), sealed secrets as sealed (they open with the data
//   folder's secret.key, which the copy does not carry).
// - Derived data is not copied: the FTS5 search index and its shadow tables, and its indexer's state (migration 20:
//   the watermark and the rows to re-index); PostgreSQL indexes the rows itself.
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../migrations';
import { sqliteOpenOptions } from '../database';
import { createSqlitePort } from '../sqlite-port';
import type { SqlQueries, SqlValue } from '../sql-port';
import { appliedMigrations, migratePostgres, type MigrateResult } from './migrate';
import type { PgPort } from './pg-port';

/** The copy's advisory lock: beside the migration lock ("vc", 1). */
export const COPY_LOCK = [0x7663, 2] as const;

/**
 * Tables that migrations fill with rows of their own, and what "empty" means for them: table_versions starts with a
 * counter at 0 per listed table. The copy replaces their rows with the source's.
 */
export const SEEDED_BY_MIGRATIONS: Readonly<Record<string, string>> = { table_versions: 'version <> 0' };

/** Tables never compared or copied: the migration record belongs to each database. */
const NOT_COPIED = new Set(['schema_migrations']);

/** SQLite tables of derived data, beside FTS5's own: the search indexer's state (migration 20). */
const DERIVED = new Set(['verification_search_state', 'verification_search_dirty']);

export class CopyRefused extends Error {
  override name = 'CopyRefused';
}

export interface CopyOptions {
  /** The SQLite store file. */
  from: string;
  to: PgPort;
  /** Rows per INSERT statement at most (default 500; fewer for wide tables: 60,000 values per statement at most). */
  batchRows?: number;
  /**
   * Runs inside the copy's transaction after every row is in and counted, with the source snapshot and the target
   * transaction; throwing rolls the whole copy back.
   */
  verify?: (source: SqlQueries, target: SqlQueries) => Promise<void>;
  /** Called after each table is copied. */
  onTable?: (table: string, rows: number) => void;
  /** Called if another migrator holds the migration lock. */
  onWait?: () => void;
}

export interface CopyReport {
  from: string;
  to: string;
  schemaVersion: number;
  migrated: MigrateResult;
  tables: { name: string; rows: number }[];
  rows: number;
  ms: number;
}

interface SourceTable {
  name: string;
  columns: string[];
  withoutRowid: boolean;
}

function sourceTables(db: Database.Database): SourceTable[] {
  const list = db.prepare("SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite_%'").all() as { name: string; type: string; wr: number }[];
  // Only ordinary tables: FTS5 is a virtual table whose storage is 'shadow' tables, all derived data.
  return list
    .filter((t) => t.type === 'table' && !NOT_COPIED.has(t.name) && !DERIVED.has(t.name))
    .map((t) => ({ name: t.name, withoutRowid: t.wr === 1, columns: (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(t.name) as { name: string }[]).map((c) => c.name) }));
}

/** Tables ordered so that each comes after the tables its foreign keys point to (self-references aside). */
function foreignKeyOrder(db: Database.Database, tables: SourceTable[]): SourceTable[] {
  const names = new Set(tables.map((t) => t.name));
  const deps = new Map<string, Set<string>>();
  for (const t of tables) {
    const refs = (db.prepare('SELECT "table" AS ref FROM pragma_foreign_key_list(?)').all(t.name) as { ref: string }[]).map((r) => r.ref).filter((r) => r !== t.name && names.has(r));
    deps.set(t.name, new Set(refs));
  }
  const out: SourceTable[] = [];
  const done = new Set<string>();
  const visiting = new Set<string>();
  const visit = (t: SourceTable) => {
    if (done.has(t.name)) return;
    if (visiting.has(t.name)) throw new CopyRefused(`the store's foreign keys form a cycle through ${t.name}`);
    visiting.add(t.name);
    for (const d of deps.get(t.name) ?? []) visit(tables.find((x) => x.name === d)!);
    visiting.delete(t.name);
    done.add(t.name);
    out.push(t);
  };
  // Alphabetical start, so the order is the same on every run; seeded tables last (the copy replaces their rows).
  const sorted = [...tables].sort((a, b) => Number(a.name in SEEDED_BY_MIGRATIONS) - Number(b.name in SEEDED_BY_MIGRATIONS) || a.name.localeCompare(b.name));
  for (const t of sorted) visit(t);
  return out;
}

const quote = (id: string) => `"${id.replace(/"/g, '""')}"`;

function toPgValue(v: unknown): SqlValue {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || Buffer.isBuffer(v)) return v;
  throw new CopyRefused(`a value of an unexpected type (${typeof v}) in the store`);
}

/** Opens the source read-only and checks it can be copied as it is. */
function openSource(file: string): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(file, { ...sqliteOpenOptions(), readonly: true, fileMustExist: true });
  } catch (e) {
    throw new CopyRefused(`cannot open the store ${file}: ${(e as Error).message}`, { cause: e });
  }
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    const latest = MIGRATIONS[MIGRATIONS.length - 1]!.version;
    if (version > latest) throw new CopyRefused(`the store ${file} is at schema version ${version}, newer than this app (${latest}): copy it with the app that wrote it.`);
    if (version < latest) {
      throw new CopyRefused(
        `the store ${file} is at schema version ${version}, older than this app (${latest}): bring it up to date first (\`vconsole migrate --data-dir FOLDER\`, or open it once with this app), then copy.`,
      );
    }
    const check = (db.prepare('PRAGMA quick_check').all() as { quick_check: string }[]).map((r) => r.quick_check);
    if (check.join() !== 'ok') throw new CopyRefused(`the store ${file} is damaged (quick_check: ${check.slice(0, 3).join('; ')}): restore a backup before copying it.`);
    const fk = db.prepare('PRAGMA foreign_key_check').all() as { table: string; parent: string }[];
    if (fk.length > 0) throw new CopyRefused(`the store ${file} has ${fk.length} rows whose foreign key points nowhere (first: ${fk[0]!.table} → ${fk[0]!.parent}); PostgreSQL would refuse them.`);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** The first table holding rows, or null when the database is as empty as a fresh migration leaves it. */
export async function firstNonEmptyTable(q: SqlQueries): Promise<{ table: string; rows: number } | null> {
  const tables = await q.all<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name");
  for (const { t } of tables) {
    if (NOT_COPIED.has(t)) continue;
    const seeded = SEEDED_BY_MIGRATIONS[t];
    const r = await q.get<{ n: number }>(`SELECT count(*) AS n FROM ${quote(t)}${seeded ? ` WHERE ${seeded}` : ''}`);
    if (r && r.n > 0) return { table: t, rows: r.n };
  }
  return null;
}

/**
 * Refuses, before anything is written, a target whose schema holds tables but no record of this app's migrations:
 * another application's database (a mistyped URL). Migrating first would create this app's tables in it and only
 * then find it "not empty".
 */
async function refuseForeignTarget(to: PgPort): Promise<void> {
  const tables = (await to.all<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name")).map((r) => r.t);
  const others = tables.filter((t) => t !== 'schema_migrations');
  if (others.length === 0) return;
  let ours = false;
  if (tables.includes('schema_migrations')) {
    try {
      ours = (await appliedMigrations(to.pool)).length > 0;
    } catch {
      ours = false;
    }
  }
  if (!ours) {
    throw new CopyRefused(
      `the target database ${to.where} holds tables that are not this app's (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}) and no record of its migrations: nothing was written to it. db copy only copies into an empty team database: create a new database (CREATE DATABASE …) and copy into it.`,
    );
  }
}

export async function copySqliteToPostgres(o: CopyOptions): Promise<CopyReport> {
  const started = Date.now();
  const source = openSource(o.from);
  try {
    await refuseForeignTarget(o.to);
    const migrated = await migratePostgres(o.to, { ...(o.onWait ? { onWait: o.onWait } : {}) });
    // One read transaction: every table is read from the same snapshot, whatever a running service writes meanwhile.
    source.exec('BEGIN');
    const tables = foreignKeyOrder(source, sourceTables(source));
    const sourceCounts = new Map(tables.map((t) => [t.name, (source.prepare(`SELECT count(*) AS n FROM ${quote(t.name)}`).get() as { n: number }).n]));
    const report = await o.to.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, $2)', [...COPY_LOCK]);
      const full = await firstNonEmptyTable(tx);
      if (full) {
        throw new CopyRefused(
          `the target database ${o.to.where} is not empty (table ${full.table} has ${full.rows} row${full.rows === 1 ? '' : 's'}). db copy only copies into an empty team database: create a new database (CREATE DATABASE …) and copy into it.`,
        );
      }
      const targetColumns = new Map<string, Set<string>>();
      for (const r of await tx.all<{ t: string; c: string }>('SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema()')) {
        const set = targetColumns.get(r.t) ?? new Set<string>();
        set.add(r.c);
        targetColumns.set(r.t, set);
      }
      for (const t of tables) {
        const have = targetColumns.get(t.name);
        if (!have) throw new CopyRefused(`the target has no table ${t.name}: its schema does not match this app's`);
        const missing = t.columns.filter((c) => !have.has(c));
        if (missing.length > 0) throw new CopyRefused(`the target's table ${t.name} lacks the column(s) ${missing.join(', ')}: its schema does not match this app's`);
      }
      await tx.exec('SET CONSTRAINTS ALL DEFERRED');
      for (const seeded of Object.keys(SEEDED_BY_MIGRATIONS)) await tx.run(`DELETE FROM ${quote(seeded)}`);
      const copied: { name: string; rows: number }[] = [];
      for (const t of tables) {
        const n = await copyTable(source, tx, t, o.batchRows ?? 500);
        copied.push({ name: t.name, rows: n });
        o.onTable?.(t.name, n);
      }
      // Identity columns (SQLite's INTEGER PRIMARY KEY) go on after the highest copied value.
      for (const r of await tx.all<{ t: string; c: string }>("SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'")) {
        await tx.query(`SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max(${quote(r.c)}) FROM ${quote(r.t)}), 0) + 1, false)`, [quote(r.t), r.c]);
      }
      for (const t of tables) {
        const there = (await tx.get<{ n: number }>(`SELECT count(*) AS n FROM ${quote(t.name)}`))!.n;
        const here = sourceCounts.get(t.name)!;
        if (there !== here) throw new Error(`table ${t.name}: ${here} rows in the store but ${there} in the copy; nothing was committed`);
      }
      if (o.verify) await o.verify(createSqlitePort(source), tx);
      return copied;
    });
    // Statistics of the copied rows before a service plans a query on them: without, until autovacuum's first
    // analyze, PostgreSQL plans with none (the dispatcher's next due time read 50,000 pending deliveries with a bitmap
    // scan, 12 ms on every pass of its loop, instead of one index step).
    await o.to.exec('ANALYZE');
    return {
      from: o.from,
      to: o.to.where,
      schemaVersion: migrated.to,
      migrated,
      tables: report,
      rows: report.reduce((a, t) => a + t.rows, 0),
      ms: Date.now() - started,
    };
  } finally {
    if (source.inTransaction) source.exec('COMMIT');
    source.close();
  }
}

/** Copies one table in batches of multi-row INSERTs; returns the rows copied. */
async function copyTable(source: Database.Database, tx: SqlQueries, t: SourceTable, batchRows: number): Promise<number> {
  const cols = t.columns.map(quote).join(', ');
  const perStatement = Math.max(1, Math.min(batchRows, Math.floor(60_000 / t.columns.length)));
  const stmt = source.prepare(`SELECT ${cols} FROM ${quote(t.name)}${t.withoutRowid ? '' : ' ORDER BY rowid'}`).raw(true).safeIntegers(true);
  let batch: SqlValue[] = [];
  let rowsInBatch = 0;
  let bytes = 0;
  let total = 0;
  const flush = async () => {
    if (rowsInBatch === 0) return;
    const width = t.columns.length;
    const tuples: string[] = [];
    for (let r = 0; r < rowsInBatch; r++) tuples.push(`(${t.columns.map((_, c) => `$${r * width + c + 1}`).join(', ')})`);
    try {
      await tx.query(`INSERT INTO ${quote(t.name)} (${cols}) VALUES ${tuples.join(', ')}`, batch);
    } catch (e) {
      throw new Error(`copying table ${t.name} failed: ${(e as Error).message}`, { cause: e });
    }
    total += rowsInBatch;
    batch = [];
    rowsInBatch = 0;
    bytes = 0;
  };
  for (const row of stmt.iterate() as IterableIterator<unknown[]>) {
    for (const v of row) {
      const pv = toPgValue(v);
      batch.push(pv);
      if (typeof pv === 'string') bytes += pv.length;
      else if (Buffer.isBuffer(pv)) bytes += pv.length;
    }
    rowsInBatch += 1;
    // Wide text (request and result JSON, webhook bodies) keeps a statement within a few megabytes.
    if (rowsInBatch >= perStatement || bytes > 4_000_000) await flush();
  }
  await flush();
  return total;
}
