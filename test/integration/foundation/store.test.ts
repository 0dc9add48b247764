// The SQLite store on a real file: durability pragmas on every open, STRICT tables, and refusal of a database
// from a newer app or whose applied migrations were edited (forward-only migrations).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, StoreError } from '../../../src-main/store/database';
import { MIGRATIONS } from '../../../src-main/store/migrations';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vc-'));
  file = join(dir, 'store.sqlite');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('openDatabase', () => {
  it('uses WAL, synchronous FULL and foreign keys, on a fresh connection too', () => {
    openDatabase(file).close();
    const db = openDatabase(file);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      // Foreign keys are enforced, not only switched on.
      expect(() =>
        db.prepare("INSERT INTO users (id, organization_id, email, password_hash, role, created_at) VALUES ('u', 'org_missing', 'a@b.c', 'h', 'OWNER', 'now')").run(),
      ).toThrow(/FOREIGN KEY/);
    } finally {
      db.close();
    }
    // The journal mode is persistent in the file itself.
    const plain = new Database(file);
    try {
      expect(plain.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      plain.close();
    }
  });

  it('applies every migration and makes every table STRICT', () => {
    const db = openDatabase(file);
    try {
      const latest = MIGRATIONS[MIGRATIONS.length - 1]!.version;
      expect(db.pragma('user_version', { simple: true })).toBe(latest);
      const tables = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string; sql: string }[];
      const names = tables.map((t) => t.name);
      for (const t of ['settings', 'organizations', 'users', 'api_keys', 'sessions', 'refresh_tokens', 'login_failures', 'idempotency_keys', 'verifications', 'outbox_events', 'jobs']) {
        expect(names).toContain(t);
      }
      // The table options follow the closing parenthesis: `) STRICT` (optionally with WITHOUT ROWID).
      // A full-text index (FTS5, migration 10) is a virtual table with shadow tables SQLite creates itself: neither
      // can be STRICT.
      const virtual = tables.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql)).map((t) => t.name);
      const own = tables.filter((t) => !virtual.some((v) => t.name === v || t.name.startsWith(`${v}_`)));
      const notStrict = own.filter((t) => !/\)\s*(WITHOUT\s+ROWID\s*,\s*)?STRICT(\s*,\s*WITHOUT\s+ROWID)?\s*;?$/i.test(t.sql.trim()));
      expect(notStrict.map((t) => t.name)).toEqual([]);
      // SQLite's own view agrees (PRAGMA table_list has a strict column since 3.37).
      const list = db.pragma('table_list') as { schema: string; name: string; type: string; strict: number }[];
      const loose = list.filter((t) => t.schema === 'main' && t.type === 'table' && !t.name.startsWith('sqlite_') && t.strict !== 1);
      expect(loose.map((t) => t.name)).toEqual([]);
      // STRICT is really in force: a text in an INTEGER column is refused.
      expect(() =>
        db.prepare("INSERT INTO jobs (id, kind, payload, state, run_at_ms, created_at_ms, updated_at_ms) VALUES ('j', 'k', '{}', 'queued', 'soon', 0, 0)").run(),
      ).toThrow();
    } finally {
      db.close();
    }
  });

  it('opens an up-to-date database again without re-running migrations', () => {
    const db = openDatabase(file);
    db.prepare("INSERT INTO settings (key, value) VALUES ('probe', 'kept')").run();
    db.close();
    const again = openDatabase(file);
    try {
      expect((again.prepare("SELECT value FROM settings WHERE key = 'probe'").get() as { value: string }).value).toBe('kept');
      const n = (again.prepare('SELECT count(*) AS n FROM schema_migrations').get() as { n: number }).n;
      expect(n).toBe(MIGRATIONS.length);
    } finally {
      again.close();
    }
  });

  it('refuses a database written by a newer app with StoreError', () => {
    openDatabase(file).close();
    const raw = new Database(file);
    raw.pragma('user_version = 9999');
    raw.close();
    expect(() => openDatabase(file)).toThrow(StoreError);
    expect(() => openDatabase(file)).toThrow(/newer/);
  });

  it('refuses a database whose applied migration was edited with StoreError', () => {
    openDatabase(file).close();
    const edited = MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- edited after release` } : m));
    expect(() => openDatabase(file, edited)).toThrow(StoreError);
    const removed = MIGRATIONS.length > 1 ? [MIGRATIONS[0]!, ...MIGRATIONS.slice(2)] : [];
    if (removed.length > 0) expect(() => openDatabase(file, removed)).toThrow(StoreError);
    // The unedited list still opens it.
    openDatabase(file).close();
  });

  it('applies a new migration forward on an existing database', () => {
    openDatabase(file).close();
    const latest = MIGRATIONS[MIGRATIONS.length - 1]!.version;
    const next = [...MIGRATIONS, { version: latest + 1, name: 'probe', sql: 'CREATE TABLE probe (x INTEGER) STRICT;' }];
    const db = openDatabase(file, next);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(latest + 1);
      expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'probe'").get()).toBeDefined();
    } finally {
      db.close();
    }
  });
});
