// Backups a user can restore (docs/reliability.md, "Backups"). A backup is a consistent online copy of the store
// made while the service runs (`VACUUM INTO` on a thread of its own), written as `<name>.partial`, checked with
// `integrity_check`, synced, and only then renamed to its final name: a crash or `kill -9` in the middle leaves a
// complete, verified backup or none (a leftover `.partial` is never listed and is removed by the next backup).
// Restoring needs the data folder's lock (no service may run on it), refuses a damaged backup or one from a newer
// app, and keeps the current files aside. Sealed secrets need `secret.key` of the data folder, which a backup does
// not carry unless asked to (it is the key to the credentials: keep it apart).
import Database from 'better-sqlite3';
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { open } from 'node:fs/promises';
import { AppError } from '../../../src-shared/app-error';
import { acquireDataFolderLock, DataFolderLockedError, type DataFolderLock } from '../../store/data-folder-lock';
import { migrationHash, openDatabase, sqliteOpenOptions, StoreError, type Db } from '../../store/database';
import { MIGRATIONS } from '../../store/migrations';
import { STORE_FILE, storeFile } from '../../store/store-open';
import { ReaderThread } from '../../store/reader-thread';

export const BACKUPS_DIR = 'backups';
export const KEY_FILE = 'secret.key';
const PENDING_RESTORE = 'restore-pending.json';
const RESTORE_RESULT = 'restore-result.json';

export interface BackupInfo {
  name: string;
  file: string;
  bytes: number;
  createdAt: string;
  /** Made by the automatic schedule (pruned to the kept number), or by hand (never pruned). */
  auto: boolean;
  /** A copy of the sealing key lies beside it (`<file>.key`). */
  hasKey: boolean;
}

export interface BackupResult extends BackupInfo {
  integrity: 'ok';
  schemaVersion: number;
  /** What a person must know about the sealing key for this backup. */
  keyNote: string;
}

export function backupsDir(dataDir: string): string {
  return join(dataDir, BACKUPS_DIR);
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:]/g, '').replace(/\..*$/, 'Z');
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function fsyncDir(dir: string): void {
  // Directories cannot be opened for fsync on Windows; the rename is durable enough there.
  if (process.platform === 'win32') return;
  fsyncFile(dir);
}

const INTEGRITY = 'PRAGMA integrity_check';
const SCHEMA_VERSION = 'PRAGMA user_version';
/**
 * This app's record of its migrations, as its stores keep it. A table merely named `schema_migrations` is not enough:
 * other applications keep one too (with other columns, or empty), and taking such a file as a store replaced the
 * data folder's store with another application's file (the third review, 27 Nov 2026).
 */
const OWN_MIGRATIONS = 'SELECT version, name, hash FROM schema_migrations ORDER BY version';
type MigrationRow = { version: number; name: string; hash: string };

/** Why the migrations a file records are not this app's, or null when they are (a prefix of MIGRATIONS, any newer beyond). */
function notOurMigrations(rows: MigrationRow[] | null): string | null {
  if (rows === null) return 'it has no record of this app\'s migrations';
  if (rows.length === 0 || rows[0]!.version !== 1) return 'its record of migrations does not start with this app\'s first';
  for (const row of rows) {
    const m = MIGRATIONS.find((x) => x.version === row.version);
    // A version this app does not know is a newer app's: judged by the schema version, not here.
    if (m && (m.name !== row.name || migrationHash(m) !== row.hash)) return `its migration ${row.version} (${row.name}) is not this app's`;
  }
  return null;
}

/** What a store file's check read, judged: its integrity and schema version, or why it is no store. */
function judgeStoreFile(file: string, integrity: { integrity_check: string }[], version: { user_version: number } | undefined, migrations: MigrationRow[] | null): { integrity: string; schemaVersion: number } {
  const why = notOurMigrations(migrations);
  if (why) throw new AppError('VALIDATION_ERROR', { message: `${file} is an SQLite file but not a Verification Console store: ${why}. Nothing was changed.`, details: [{ field: 'file', message: 'not a Verification Console store' }] });
  return { integrity: integrity.map((r) => r.integrity_check).join('; '), schemaVersion: version?.user_version ?? 0 };
}

/** The migrations a file records, or null when it has no such table of this app's shape. */
function readMigrations(all: () => MigrationRow[]): MigrationRow[] | null {
  try {
    return all();
  } catch (e) {
    if (/no such (table|column)/.test((e as Error).message)) return null;
    throw e;
  }
}

function unreadableStore(file: string, e: unknown): AppError {
  if (e instanceof AppError) return e;
  return new AppError('VALIDATION_ERROR', { message: `${file} cannot be read as a store: ${(e as Error).message}.`, details: [{ field: 'file', message: (e as Error).message }] });
}

/** Integrity and schema version of a store file, opened read-only; throws AppError VALIDATION_ERROR when unusable. */
export function inspectStoreFile(file: string): { integrity: string; schemaVersion: number } {
  if (!existsSync(file)) throw new AppError('NOT_FOUND', { message: `No backup file at ${file}.` });
  let db: Db | null = null;
  try {
    db = new Database(file, { ...sqliteOpenOptions(), readonly: true, fileMustExist: true });
    const integrity = db.prepare(INTEGRITY).all() as { integrity_check: string }[];
    const open = db;
    return judgeStoreFile(file, integrity, db.prepare(SCHEMA_VERSION).get() as { user_version: number }, readMigrations(() => open.prepare(OWN_MIGRATIONS).all() as MigrationRow[]));
  } catch (e) {
    throw unreadableStore(file, e);
  } finally {
    db?.close();
  }
}

/** The thread could not serve the reads: inspectStoreFile does them here instead. */
const NO_THREAD = new Error('no reader thread');

/**
 * inspectStoreFile with its reads on a thread of their own (a ReaderThread on the file): the integrity check reads
 * every page of the copy, 4.5 s for a store of 1.3 GB, during which the service answered nothing — and the daily
 * automatic backup ran it with nobody watching. Where no thread can open the file, the check runs here.
 */
export async function inspectStoreFileOffLoop(file: string): Promise<{ integrity: string; schemaVersion: number }> {
  if (!existsSync(file)) throw new AppError('NOT_FOUND', { message: `No backup file at ${file}.` });
  const refuse = () => Promise.reject(NO_THREAD);
  const reader = new ReaderThread({ file, fallback: { all: refuse, get: refuse } });
  try {
    const integrity = await reader.all<{ integrity_check: string }>(INTEGRITY);
    let migrations: MigrationRow[] | null;
    try {
      migrations = await reader.all<MigrationRow>(OWN_MIGRATIONS);
    } catch (e) {
      if (e === NO_THREAD) throw e;
      migrations = readMigrations(() => {
        throw e;
      });
    }
    return judgeStoreFile(file, integrity, await reader.get<{ user_version: number }>(SCHEMA_VERSION), migrations);
  } catch (e) {
    if (e === NO_THREAD) return inspectStoreFile(file);
    throw unreadableStore(file, e);
  } finally {
    await reader.close();
  }
}

/**
 * The online copy of the running store into `partial`, on a thread of its own: `VACUUM INTO` on a read-only connection
 * of a ReaderThread (one read transaction: writers go on, and the copy is the store as of its start — committed
 * transactions only — compacted). It used to be `db.backup()` on the service's connection: that steps between turns
 * of the loop, but its last step commits and syncs the whole copy there, 606–669 ms for a store of 1.4 GB (the second
 * walk of the console, 26 Nov 2026). A fresh thread, not the service's long reads: a copy of seconds would hold up
 * every console read behind it. Where no thread can open the store (or it is in memory), `db.backup()` as before.
 */
async function copyStoreOffLoop(db: Db, partial: string): Promise<void> {
  const onTheLoop = async () => {
    await db.backup(partial);
  };
  if (db.memory) return onTheLoop();
  const refuse = () => Promise.reject(NO_THREAD);
  const reader = new ReaderThread({ file: db.name, fallback: { all: refuse, get: refuse } });
  try {
    await reader.copyInto(partial, onTheLoop);
  } finally {
    await reader.close();
  }
}

/** fsync through libuv's pool: the copy's pages (a whole store) are written out without holding the event loop. */
async function fsyncFileOffLoop(file: string): Promise<void> {
  const fh = await open(file, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

const keyNote = (dataDir: string, keyCopied: string | null) =>
  keyCopied
    ? `The sealing key was copied to ${keyCopied}: whoever has both files can open the sealed credentials and webhook secrets. Keep them somewhere safe.`
    : `Sealed credentials and webhook secrets in this backup open only with ${join(dataDir, KEY_FILE)}, which is not in the backup: keep a copy of that file apart (or back up with --include-key). Restored where that key is missing, those secrets do not open until the key is put back (or they are rotated and entered again); a team server's instance does not start without it.`;

/**
 * The default file of a backup made at `now`: timestamped to the second, with `-2`, `-3`… when a backup of the same
 * second exists already (two clicks on "Back up now" make two backups, not an error).
 */
function defaultBackupFile(dataDir: string, now: number, auto: boolean): string {
  const base = join(backupsDir(dataDir), `verification-console-${stamp(now)}`);
  const tail = auto ? '-auto.sqlite' : '.sqlite';
  let file = `${base}${tail}`;
  for (let n = 2; existsSync(file); n++) file = `${base}-${n}${tail}`;
  return file;
}

/** The backup in progress of each data folder: backups of one folder run one after the other. */
const backupsRunning = new Map<string, Promise<unknown>>();

/**
 * An online, verified backup of `db` (the running store). `out` is a file path; by default a timestamped file in
 * the data folder's backups/ folder. SQLite engine only: a copy of the store's file (copyStoreOffLoop; a PostgreSQL
 * team database is backed up with its own tools, docs/team-server.md). Two backups of a folder asked at once (two
 * clicks, the daily one beside one by hand) run one after the other: each clears what a crash left unfinished, which
 * would otherwise be the other's copy in progress.
 */
export async function createBackup(db: Db | undefined, dataDir: string, o: { out?: string; auto?: boolean; includeKey?: boolean; now?: number } = {}): Promise<BackupResult> {
  if (!db) {
    throw new AppError('VALIDATION_ERROR', {
      message: 'This service stores its data in PostgreSQL: back it up with pg_dump or the server\'s point-in-time recovery (docs/team-server.md, "Backups"), not from the console.',
    });
  }
  const key = resolve(dataDir);
  const before = backupsRunning.get(key) ?? Promise.resolve();
  const run = before.then(
    () => backupNow(db, dataDir, o),
    () => backupNow(db, dataDir, o),
  );
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  backupsRunning.set(key, settled);
  void settled.then(() => {
    if (backupsRunning.get(key) === settled) backupsRunning.delete(key);
  });
  return run;
}

async function backupNow(db: Db, dataDir: string, o: { out?: string; auto?: boolean; includeKey?: boolean; now?: number }): Promise<BackupResult> {
  const now = o.now ?? Date.now();
  const dest = resolve(o.out ?? defaultBackupFile(dataDir, now, !!o.auto));
  if (existsSync(dest)) throw new AppError('VALIDATION_ERROR', { message: `${dest} exists already; choose another name.`, details: [{ field: 'out', message: 'exists already' }] });
  mkdirSync(dirname(dest), { recursive: true });
  removePartials(dirname(dest));
  const partial = `${dest}.partial`;
  try {
    await copyStoreOffLoop(db, partial);
    const { integrity, schemaVersion } = await inspectStoreFileOffLoop(partial);
    // A read-only check of a WAL-mode copy (the online backup API's, where no thread can make the copy) leaves an
    // empty -wal and its -shm beside it (they were left in backups/).
    removeCheckLeftovers(partial);
    if (integrity !== 'ok') throw new Error(`the copy failed its integrity check (${integrity})`);
    await fsyncFileOffLoop(partial);
    renameSync(partial, dest);
    fsyncDir(dirname(dest));
    let keyCopied: string | null = null;
    if (o.includeKey && existsSync(join(dataDir, KEY_FILE))) {
      keyCopied = `${dest}.key`;
      copyFileSync(join(dataDir, KEY_FILE), keyCopied);
      fsyncFile(keyCopied);
    }
    const st = statSync(dest);
    return { name: basename(dest), file: dest, bytes: st.size, createdAt: new Date(now).toISOString(), auto: !!o.auto, hasKey: keyCopied !== null, integrity: 'ok', schemaVersion, keyNote: keyNote(dataDir, keyCopied) };
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  }
}

/** An empty -wal and the -shm a read-only connection left beside `file` (nothing in them: only read). */
function removeCheckLeftovers(file: string): void {
  const wal = `${file}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) return;
  rmSync(wal, { force: true });
  rmSync(`${file}-shm`, { force: true });
}

/** Removes copies a crash left unfinished, and what checking them left beside them. */
export function removePartials(dir: string): void {
  if (!existsSync(dir)) return;
  for (const f of readdirSync(dir)) if (/\.partial(-wal|-shm|-journal)?$/.test(f)) rmSync(join(dir, f), { force: true });
}

/** The finished backups in the data folder's backups/ folder, newest first. */
export function listBackups(dataDir: string): BackupInfo[] {
  const dir = backupsDir(dataDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sqlite'))
    .map((name) => {
      const file = join(dir, name);
      const st = statSync(file);
      return { name, file, bytes: st.size, createdAt: st.mtime.toISOString(), auto: name.endsWith('-auto.sqlite'), hasKey: existsSync(`${file}.key`) };
    })
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.name.localeCompare(a.name));
}

/** Keeps the newest `keep` automatic backups; backups made by hand are never removed. */
export function pruneAutoBackups(dataDir: string, keep: number): string[] {
  const removed: string[] = [];
  for (const b of listBackups(dataDir).filter((x) => x.auto).slice(keep)) {
    rmSync(b.file, { force: true });
    rmSync(`${b.file}.key`, { force: true });
    removed.push(b.name);
  }
  return removed;
}

export interface RestoreResult {
  restoredFrom: string;
  schemaVersion: number;
  /** Where the files that were current went. */
  keptAside: string[];
  /** The backup's `.key` became this folder's secret.key (a backup made with --include-key). */
  keyRestored: boolean;
}

/**
 * Restores `file` as the data folder's store. Takes the folder's lock (refused while a service runs on it), checks
 * the backup's integrity and schema version, moves the current files aside, and copies the backup in.
 */
export function restoreBackup(dataDir: string, file: string, o: { lock?: DataFolderLock; now?: number } = {}): RestoreResult {
  let lock = o.lock ?? null;
  let ownLock = false;
  if (!lock) {
    try {
      lock = acquireDataFolderLock(dataDir, 'cli');
      ownLock = true;
    } catch (e) {
      if (e instanceof DataFolderLockedError) {
        throw new StoreError(`${e.message.split('\n')[0]}\nA backup cannot be restored while a service runs on the folder: stop it first, or schedule the restore from the console's Settings (it happens at the next start).`);
      }
      throw e;
    }
  }
  try {
    const source = resolve(file);
    const { integrity, schemaVersion } = inspectStoreFile(source);
    if (integrity !== 'ok') throw new AppError('VALIDATION_ERROR', { message: `${source} failed its integrity check (${integrity}); it was not restored.`, details: [{ field: 'file', message: 'integrity check failed' }] });
    const latest = MIGRATIONS[MIGRATIONS.length - 1]!.version;
    if (schemaVersion > latest) {
      throw new AppError('VALIDATION_ERROR', { message: `${source} is at schema version ${schemaVersion}, newer than this app (${latest}). Update the app first; it was not restored.`, details: [{ field: 'file', message: 'newer schema' }] });
    }
    const target = storeFile(dataDir);
    const partial = `${target}.restoring`;
    // The copy is made ready before anything of the current store moves: copied, migrated (a backup from an older app
    // lacks the newer migrations) and synced. A copy that cannot be opened or migrated is removed, and the current
    // store stays exactly as it was.
    try {
      copyFileSync(source, partial);
      const db = openDatabase(partial);
      try {
        // The migrations into the file itself, so that it moves in alone (its WAL emptied and left behind).
        db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.close();
      }
      if (existsSync(`${partial}-wal`) && statSync(`${partial}-wal`).size > 0) throw new Error('its migrations could not be checkpointed into the file');
      fsyncFile(partial);
    } catch (e) {
      for (const ext of ['', '-wal', '-shm']) rmSync(`${partial}${ext}`, { force: true });
      throw new AppError('VALIDATION_ERROR', {
        message: `${source} could not be opened as this app's store (${(e as Error).message}); it was not restored, and the current store is untouched.`,
        details: [{ field: 'file', message: 'cannot be opened as a store' }],
      });
    }
    for (const ext of ['-wal', '-shm']) rmSync(`${partial}${ext}`, { force: true });
    const keptAside: string[] = [];
    const stem = join(dataDir, STORE_FILE);
    // Two restores in one second must not share a name: the second would overwrite what the first kept aside.
    const at = `.before-restore-${stamp(o.now ?? Date.now())}`;
    let suffix = at;
    for (let n = 2; ['', '-wal', '-shm'].some((ext) => existsSync(`${stem}${suffix}${ext}`)); n++) suffix = `${at}-${n}`;
    const moved: { from: string; to: string }[] = [];
    try {
      for (const ext of ['', '-wal', '-shm']) {
        const f = `${target}${ext}`;
        if (!existsSync(f)) continue;
        const aside = `${stem}${suffix}${ext}`;
        renameSync(f, aside);
        moved.push({ from: f, to: aside });
        keptAside.push(aside);
      }
      renameSync(partial, target);
    } catch (e) {
      // The swap itself failed (a file held open, a full disk): what was moved aside goes back.
      for (const m of moved) renameSync(m.to, m.from);
      rmSync(partial, { force: true });
      throw e;
    }
    // A backup made with --include-key carries the key its secrets are sealed with (`<file>.key`): it comes in too,
    // this folder's key kept aside beside the store's files, so the restored secrets open on this machine.
    let keyRestored = false;
    const backupKey = `${source}.key`;
    const folderKey = join(dataDir, KEY_FILE);
    if (existsSync(backupKey) && resolve(backupKey) !== resolve(folderKey)) {
      if (existsSync(folderKey)) {
        const aside = `${folderKey}${suffix}`;
        copyFileSync(folderKey, aside);
        keptAside.push(aside);
      }
      const partialKey = `${folderKey}.restoring`;
      copyFileSync(backupKey, partialKey);
      chmodSync(partialKey, 0o600);
      fsyncFile(partialKey);
      renameSync(partialKey, folderKey);
      keyRestored = true;
    }
    fsyncDir(dataDir);
    return { restoredFrom: source, schemaVersion, keptAside, keyRestored };
  } finally {
    if (ownLock) lock?.release();
  }
}

/** Asks the next start to restore `file` (the console cannot replace the store under the running service). */
export function scheduleRestore(dataDir: string, file: string): void {
  inspectStoreFile(file);
  writeFileSync(join(dataDir, PENDING_RESTORE), JSON.stringify({ file: resolve(file), requestedAt: new Date().toISOString() }));
}

/** scheduleRestore for a backup of the data folder's backups/ folder, by its name (what the console lists). */
export function scheduleRestoreByName(dataDir: string, name: string): void {
  const b = listBackups(dataDir).find((x) => x.name === name);
  if (!b) throw new AppError('NOT_FOUND', { message: `No backup named ${name} in ${backupsDir(dataDir)}.` });
  scheduleRestore(dataDir, b.file);
}

export function pendingRestore(dataDir: string): { file: string; requestedAt: string } | null {
  try {
    return JSON.parse(readFileSync(join(dataDir, PENDING_RESTORE), 'utf8')) as { file: string; requestedAt: string };
  } catch {
    return null;
  }
}

export function cancelPendingRestore(dataDir: string): void {
  rmSync(join(dataDir, PENDING_RESTORE), { force: true });
}

export interface RestoreOutcome {
  ok: boolean;
  at: string;
  file: string;
  message: string;
}

/** The outcome of the last restore done at start, for the console. */
export function lastRestoreOutcome(dataDir: string): RestoreOutcome | null {
  try {
    return JSON.parse(readFileSync(join(dataDir, RESTORE_RESULT), 'utf8')) as RestoreOutcome;
  } catch {
    return null;
  }
}

/**
 * At start, with the folder's lock held and before the store is opened: carries out a restore the console
 * scheduled. A failed restore leaves the current store in place and says why (log and console).
 */
export function applyPendingRestore(dataDir: string, lock: DataFolderLock, log: { warn(o: object, m: string): void; error(o: object, m: string): void }): RestoreOutcome | null {
  const pending = pendingRestore(dataDir);
  if (!pending) return null;
  cancelPendingRestore(dataDir);
  let outcome: RestoreOutcome;
  try {
    const r = restoreBackup(dataDir, pending.file, { lock });
    outcome = { ok: true, at: new Date().toISOString(), file: pending.file, message: `Restored ${pending.file}; the previous store was kept as ${r.keptAside[0] ?? '(none)'}.` };
    log.warn({ file: pending.file, keptAside: r.keptAside }, 'backup restored at start');
  } catch (e) {
    outcome = { ok: false, at: new Date().toISOString(), file: pending.file, message: `The scheduled restore of ${pending.file} was not done: ${(e as Error).message}` };
    log.error({ file: pending.file, err: (e as Error).message }, 'scheduled restore failed; the current store is kept');
  }
  writeFileSync(join(dataDir, RESTORE_RESULT), JSON.stringify(outcome));
  return outcome;
}
