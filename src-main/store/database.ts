// Opens the SQLite store: WAL with synchronous=FULL and foreign keys on every open, then applies pending
// migrations in one transaction. Refuses a database written by a newer app or whose applied migrations changed.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS, type Migration } from './migrations';

export type Db = Database.Database;

export class StoreError extends Error {
  override name = 'StoreError';
}

export function migrationHash(m: Migration): string {
  return createHash('sha256').update(`${m.version}\n${m.name}\n${m.sql}`).digest('hex');
}

let electronBinding: string | null = null;

/**
 * Electron's main process points this at the Electron-ABI build of better-sqlite3 (docs/packaging.md); it applies
 * only inside Electron, so headless mode and tests keep the Node build in node_modules.
 */
export function useNativeBinding(path: string | null): void {
  electronBinding = path;
}

/** better-sqlite3's options for this process (the Electron-ABI binding inside Electron). */
export function sqliteOpenOptions(): Database.Options {
  return electronBinding && process.versions['electron'] ? { nativeBinding: electronBinding } : {};
}

/** The native binding every connection of this process uses (null: better-sqlite3's own), for worker connections. */
export function nativeBindingPath(): string | null {
  return electronBinding && process.versions['electron'] ? electronBinding : null;
}

export function openDatabase(file: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, sqliteOpenOptions());
  cachePreparedStatements(db);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, migrations);
    // Statement journals (the savepoint of every write in a group commit, and each INSERT whose triggers write
    // other tables) stay in memory: past 64 KiB SQLite otherwise spills them to a temp file, created, written and
    // removed per transaction — about a quarter of a request's store CPU (docs/performance.md, item 2). Set after
    // the migrations and before any TEMP object is created (changing it later drops them).
    db.pragma('temp_store = MEMORY');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Statements kept per database; SQL built from varying filters beyond this many is prepared each time. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Makes db.prepare() return one compiled statement per SQL text: compiling costs more than running most of
 * our statements, and callers prepare at the point of use. A statement busy in an iterate() is never shared,
 * and a reader's result modes (pluck, raw, expand) are reset so a cached statement behaves like a fresh one.
 */
function cachePreparedStatements(db: Db): void {
  const prepare = db.prepare.bind(db) as (sql: string) => Database.Statement;
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    const hit = cache.get(sql);
    if (hit && !hit.busy) {
      if (hit.reader) hit.pluck(false).expand(false).raw(false);
      return hit;
    }
    const fresh = prepare(sql);
    if (!hit && cache.size < STATEMENT_CACHE_SIZE) cache.set(sql, fresh);
    return fresh;
  }) as Db['prepare'];
}

function migrate(db: Db, migrations: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`);
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version;
  if (current > latest) {
    throw new StoreError(
      `The database is at schema version ${current}, newer than this app (${latest}). Update the app; refusing to open.`,
    );
  }
  const applied = db.prepare('SELECT version, name, hash FROM schema_migrations ORDER BY version').all() as {
    version: number;
    name: string;
    hash: string;
  }[];
  for (const row of applied) {
    const m = migrations.find((x) => x.version === row.version);
    if (!m || migrationHash(m) !== row.hash) {
      throw new StoreError(
        `Migration ${row.version} (${row.name}) was changed after it ran. Migrations are forward-only; add a new one.`,
      );
    }
  }
  const pending = migrations.filter((m) => m.version > current);
  if (pending.length === 0) return;
  const insert = db.prepare('INSERT INTO schema_migrations (version, name, hash, applied_at) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const m of pending) {
      db.exec(m.sql);
      insert.run(m.version, m.name, migrationHash(m), new Date().toISOString());
      db.pragma(`user_version = ${m.version}`);
    }
  })();
}
