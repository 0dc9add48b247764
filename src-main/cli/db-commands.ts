// `vconsole db backup|backups|restore|check|copy` and `vconsole migrate`: backups a user can restore, a look at the
// store (docs/reliability.md, "Backups"), and the PostgreSQL team database (docs/team-server.md): its migrations,
// its check, and the copy of a desktop store into it. A backup runs beside a running service; a restore refuses
// while one runs. The PostgreSQL engine is loaded only by the commands that use it.
import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { backupsDir, createBackup, inspectStoreFile, listBackups, restoreBackup } from '../core/backups/backups';
import { openStoreForService, storeFile } from '../store/store-open';
import { MIGRATIONS } from '../store/migrations';
import { openDatabase, sqliteOpenOptions } from '../store/database';
import { DATABASE_URL_ENV, isPostgresUrl, redactUrl } from '../store/pg/url';
import type { ExtraCommand } from './extra-commands';
import { formatBytes } from '../../src-shared/format-bytes';

const USAGE = [
  'vconsole db backup [--out FILE] [--include-key] [--data-dir DIR] [--json]',
  'vconsole db backups [--data-dir DIR] [--json]',
  'vconsole db restore FILE [--data-dir DIR] [--json]',
  'vconsole db check [--data-dir DIR | --database postgres://…] [--json]',
  'vconsole db copy --from FILE.sqlite|DIR --to postgres://… [--json]',
].join('\n  ');

const MIGRATE_USAGE = 'vconsole migrate [--data-dir DIR | --database postgres://…] [--json]';

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

class DbUsageError extends Error {}

/**
 * The PostgreSQL database a command works on: --database, else $VCONSOLE_DATABASE_URL unless --data-dir names a data
 * folder; null for the SQLite data folder.
 */
export function postgresTarget(values: Values, flag = 'database'): string | null {
  const given = values[flag];
  if (typeof given === 'string' && given !== '') {
    if (!isPostgresUrl(given)) throw new DbUsageError(`--${flag} expects a postgres:// (or postgresql://) URL`);
    return given;
  }
  if (typeof values['data-dir'] === 'string') return null;
  const env = process.env[DATABASE_URL_ENV];
  if (env) {
    if (!isPostgresUrl(env)) throw new DbUsageError(`${DATABASE_URL_ENV} must be a postgres:// (or postgresql://) URL`);
    return env;
  }
  return null;
}

async function openPg(url: string) {
  const { createPgPort } = await import('../store/pg/pg-port');
  return createPgPort(url, { max: 2 });
}

function usage(message: string, forms = USAGE): number {
  process.stderr.write(`vconsole: ${message}\nUsage: ${forms}\n`);
  return 2;
}

const COUNTED_TABLES = ['organizations', 'users', 'api_keys', 'verifications', 'routing_checks', 'ledger_entries', 'webhooks', 'outbox_events', 'webhook_deliveries', 'webhook_attempts', 'jobs'];

export const dbCommand: ExtraCommand = {
  name: 'db',
  usage: USAGE,
  async run(args, kit) {
    try {
      return await dbRun(args, kit);
    } catch (e) {
      if (e instanceof DbUsageError) return usage(e.message);
      throw e;
    }
  },
};

/**
 * backup, backups and restore copy a SQLite store's file. On a team server's database (VCONSOLE_DATABASE_URL, and no
 * --data-dir naming a SQLite store) they are refused with the way that applies: before, `db restore` "restored" into
 * a new SQLite folder, told the operator it had, and left the database as it was.
 */
function sqliteOnly(sub: string, values: Values): number | null {
  const dir = values['data-dir'];
  if (typeof dir === 'string' && existsSync(storeFile(dir))) return null;
  const url = postgresTarget(typeof dir === 'string' ? { ...values, 'data-dir': undefined } : values);
  if (!url) return null;
  process.stderr.write(
    `vconsole: db ${sub} copies a SQLite store's file; ${DATABASE_URL_ENV} points this command line at PostgreSQL (${redactUrl(url)}).\n` +
      (sub === 'restore'
        ? 'Restore a PostgreSQL dump with pg_restore into an empty database (docs/team-server.md, "Backups").\n'
        : 'Back the database up with pg_dump --format=custom (docs/team-server.md, "Backups").\n'),
  );
  return 1;
}

async function dbRun(args: string[], kit: Parameters<ExtraCommand['run']>[1]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'backup') {
    const { values } = kit.parse(rest, { out: { type: 'string' }, 'include-key': { type: 'boolean' } });
    const refused = sqliteOnly(sub, values);
    if (refused !== null) return refused;
    const dir = kit.dataDir(values);
    if (!existsSync(storeFile(dir))) return usage(`no store in ${dir} to back up`);
    // SQLite engine only: a copy of the store's file (core/backups/backups.ts).
    const made = await kit.withCore(values, (core) =>
      createBackup(core.deps.db, dir, { ...(typeof values['out'] === 'string' ? { out: values['out'] } : {}), includeKey: values['include-key'] === true }),
    );
    kit.print(values, made, [`Backup written and verified (integrity ok, schema ${made.schemaVersion}): ${made.file} (${formatBytes(made.bytes)})`, made.keyNote].join('\n'));
    return 0;
  }
  if (sub === 'backups') {
    const { values } = kit.parse(rest, {});
    const refused = sqliteOnly(sub, values);
    if (refused !== null) return refused;
    const dir = kit.dataDir(values);
    const list = listBackups(dir);
    kit.print(
      values,
      { dir: backupsDir(dir), backups: list },
      list.length === 0
        ? `No backups in ${backupsDir(dir)}. Make one with \`vconsole db backup\`.`
        : [`Backups in ${backupsDir(dir)} (newest first):`, ...list.map((b) => `  ${b.name}  ${formatBytes(b.bytes)}  ${b.auto ? 'automatic' : 'by hand'}${b.hasKey ? '  + key' : ''}`)].join('\n'),
    );
    return 0;
  }
  if (sub === 'restore') {
    const { values, positionals } = kit.parse(rest, {});
    const file = positionals[0];
    if (!file) return usage('db restore needs the backup FILE');
    const refused = sqliteOnly(sub, values);
    if (refused !== null) return refused;
    const dir = kit.dataDir(values);
    const r = restoreBackup(dir, file);
    kit.print(
      values,
      r,
      [
        `Restored ${r.restoredFrom} (schema ${r.schemaVersion}) into ${storeFile(dir)}.`,
        ...(r.keyRestored ? [`Its key (${r.restoredFrom}.key) is now this folder's secret.key.`] : []),
        ...(r.keptAside.length > 0 ? [`The previous files were kept as: ${r.keptAside.join(', ')}`] : []),
      ].join('\n'),
    );
    return 0;
  }
  if (sub === 'check') {
    const { values } = kit.parse(rest, { database: { type: 'string' } });
    const url = postgresTarget(values);
    if (url) return checkPostgres(url, values, kit);
    const dir = kit.dataDir(values);
    const file = storeFile(dir);
    if (!existsSync(file)) {
      process.stderr.write(`vconsole: no store in ${dir} (${file} does not exist).\n`);
      return 1;
    }
    let inspected: { integrity: string; schemaVersion: number };
    try {
      inspected = inspectStoreFile(file);
    } catch (e) {
      // A check's job is to report: a store that cannot be read is a report too (with --json on stdout), exit 1.
      const why = (e as Error).message;
      kit.print(values, { engine: 'sqlite', file, integrity: why, readable: false }, `Engine: SQLite (${file})\nIntegrity: cannot be read: ${why}`);
      return 1;
    }
    const { integrity, schemaVersion } = inspected;
    const counts = await kit.withCore(values, async (core) => {
      const out: Record<string, number> = {};
      for (const t of COUNTED_TABLES) out[t] = (await core.deps.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${t}`))!.n;
      return out;
    });
    const report = { engine: 'sqlite', file, schemaVersion, appSchemaVersion: MIGRATIONS[MIGRATIONS.length - 1]!.version, integrity, rows: counts };
    kit.print(values, report, [`Engine: SQLite (${file})`, `Schema version: ${schemaVersion} (this app: ${report.appSchemaVersion})`, `Integrity: ${integrity}`, ...Object.entries(counts).map(([t, n]) => `  ${t.padEnd(20)} ${n}`)].join('\n'));
    return integrity === 'ok' ? 0 : 1;
  }
  if (sub === 'copy') {
    const { values } = kit.parse(rest, { from: { type: 'string' }, to: { type: 'string' } });
    const fromArg = values['from'];
    if (typeof fromArg !== 'string' || fromArg === '') return usage('db copy needs --from FILE.sqlite (or the data folder holding it)');
    const from = existsSync(fromArg) && statSync(fromArg).isDirectory() ? storeFile(fromArg) : fromArg;
    if (!existsSync(from)) return usage(`db copy: no store at ${from}`);
    const to = postgresTarget({ to: values['to'] }, 'to');
    if (!to) return usage(`db copy needs --to postgres://… (or ${DATABASE_URL_ENV})`);
    return copyToPostgres(from, to, values, kit);
  }
  return usage(sub ? `unknown db command: ${sub}` : 'db needs a command');
}

async function checkPostgres(url: string, values: Values, kit: Parameters<ExtraCommand['run']>[1]): Promise<number> {
  const { inspectPostgres } = await import('../store/pg/check');
  const port = await openPg(url);
  try {
    const r = await inspectPostgres(port, COUNTED_TABLES);
    kit.print(
      values,
      r,
      [
        `Engine: PostgreSQL ${r.server} (${r.database})`,
        `Schema version: ${r.schemaVersion} (this app: ${r.appSchemaVersion})${r.problem ? ` — ${r.problem}` : ''}`,
        ...(r.unicodeCase ? [] : ['Note: this database folds only ASCII letters to lower case (its locale is C): History search ignores case for Latin letters only. Create it with a UTF-8 locale (docs/team-server.md, "Set-up").']),
        ...Object.entries(r.rows).map(([t, n]) => `  ${t.padEnd(20)} ${n}`),
      ].join('\n'),
    );
    return r.schema === 'current' ? 0 : 1;
  } finally {
    await port.close();
  }
}

async function copyToPostgres(from: string, to: string, values: Values, kit: Parameters<ExtraCommand['run']>[1]): Promise<number> {
  const { copySqliteToPostgres, CopyRefused } = await import('../store/pg/copy');
  const { checkCopy } = await import('../core/store-invariants');
  const port = await openPg(to);
  let checked: Awaited<ReturnType<typeof checkCopy>> | null = null;
  try {
    const r = await copySqliteToPostgres({
      from,
      to: port,
      onWait: () => process.stderr.write('Another instance holds the migration lock: waiting for it…\n'),
      verify: async (source, target) => {
        checked = await checkCopy(source, target);
      },
    });
    const c = checked as Awaited<ReturnType<typeof checkCopy>> | null;
    kit.print(
      values,
      { ...r, checks: c },
      [
        `Copied ${r.rows} rows in ${r.tables.length} tables from ${r.from} into ${r.to} (schema version ${r.schemaVersion}) in ${(r.ms / 1000).toFixed(1)} s, in one transaction.`,
        ...r.tables.filter((t) => t.rows > 0).map((t) => `  ${t.name.padEnd(24)} ${t.rows}`),
        `Checked before committing: every table's row count matches the store; ${c?.auditEntries ?? 0} audit entries in ${c?.organizations ?? 0} chain(s) verify on PostgreSQL with the same heads; ${c?.wallets ?? 0} wallet balance(s) match their ledger and the store.`,
        'Sealed values (webhook signing secrets, provider credentials) were copied sealed: they open only with the secret.key of the data folder they came from. Keep that file for the team server (docs/team-server.md).',
      ].join('\n'),
    );
    return 0;
  } catch (e) {
    if (e instanceof CopyRefused) {
      process.stderr.write(`vconsole: db copy refused: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await port.close();
  }
}

/** `vconsole migrate`: brings the SQLite data folder's store, or a PostgreSQL database, to this app's schema. */
export const migrateCommand: ExtraCommand = {
  name: 'migrate',
  usage: MIGRATE_USAGE,
  async run(args, kit) {
    const { values } = kit.parse(args, { database: { type: 'string' } });
    let url: string | null;
    try {
      url = postgresTarget(values);
    } catch (e) {
      if (e instanceof DbUsageError) return usage(e.message, MIGRATE_USAGE);
      throw e;
    }
    if (url) {
      const { migratePostgres } = await import('../store/pg/migrate');
      const port = await openPg(url);
      try {
        const r = await migratePostgres(port, { onWait: () => process.stderr.write('Another instance holds the migration lock: waiting for it…\n') });
        kit.print(values, { engine: 'postgresql', database: port.where, ...r }, migratedText(`PostgreSQL ${port.where}`, r.from, r.to, r.applied.length));
        return 0;
      } finally {
        await port.close();
      }
    }
    const dir = kit.dataDir(values);
    const file = storeFile(dir);
    let before = 0;
    // SQLite engine only: the schema version of the folder's store file, read before opening migrates it.
    if (existsSync(file)) {
      const ro = new Database(file, { ...sqliteOpenOptions(), readonly: true, fileMustExist: true });
      try {
        before = ro.pragma('user_version', { simple: true }) as number;
      } finally {
        ro.close();
      }
    }
    openStoreForService(dir, (f) => openDatabase(f)).close();
    const after = MIGRATIONS[MIGRATIONS.length - 1]!.version;
    const applied = MIGRATIONS.filter((m) => m.version > before).map((m) => ({ version: m.version, name: m.name }));
    kit.print(values, { engine: 'sqlite', file, from: before, to: after, applied }, migratedText(`SQLite ${file}`, before, after, applied.length));
    return 0;
  },
};

function migratedText(where: string, from: number, to: number, n: number): string {
  return n === 0 ? `${where}: already at schema version ${to}; nothing to do.` : `${where}: schema version ${from} → ${to} (${n} migration${n === 1 ? '' : 's'} applied).`;
}

