// `vconsole db backup|backups|restore|check`: backups a user can restore, and a look at the store
// (docs/reliability.md, "Backups"). A backup runs beside a running service; a restore refuses while one runs.
import { existsSync } from 'node:fs';
import { backupsDir, createBackup, inspectStoreFile, listBackups, restoreBackup } from '../core/backups/backups';
import { storeFile } from '../store/store-open';
import { MIGRATIONS } from '../store/migrations';
import type { ExtraCommand } from './extra-commands';
import { formatBytes } from '../../src-shared/format-bytes';

const USAGE = [
  'vconsole db backup [--out FILE] [--include-key] [--data-dir DIR] [--json]',
  'vconsole db backups [--data-dir DIR] [--json]',
  'vconsole db restore FILE [--data-dir DIR] [--json]',
  'vconsole db check [--data-dir DIR] [--json]',
].join('\n  ');

function usage(message: string): number {
  process.stderr.write(`vconsole: ${message}\nUsage: ${USAGE}\n`);
  return 2;
}

const COUNTED_TABLES = ['organizations', 'users', 'api_keys', 'verifications', 'routing_checks', 'ledger_entries', 'webhooks', 'outbox_events', 'webhook_deliveries', 'webhook_attempts', 'jobs'];

export const dbCommand: ExtraCommand = {
  name: 'db',
  usage: USAGE,
  async run(args, kit) {
    const [sub, ...rest] = args;
    if (sub === 'backup') {
      const { values } = kit.parse(rest, { out: { type: 'string' }, 'include-key': { type: 'boolean' } });
      const dir = kit.dataDir(values);
      if (!existsSync(storeFile(dir))) return usage(`no store in ${dir} to back up`);
      const made = await kit.withCore(values, (core) =>
        createBackup(core.deps.db, dir, { ...(typeof values['out'] === 'string' ? { out: values['out'] } : {}), includeKey: values['include-key'] === true }),
      );
      kit.print(values, made, [`Backup written and verified (integrity ok, schema ${made.schemaVersion}): ${made.file} (${formatBytes(made.bytes)})`, made.keyNote].join('\n'));
      return 0;
    }
    if (sub === 'backups') {
      const { values } = kit.parse(rest, {});
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
      const dir = kit.dataDir(values);
      const r = restoreBackup(dir, file);
      kit.print(values, r, [`Restored ${r.restoredFrom} (schema ${r.schemaVersion}) into ${storeFile(dir)}.`, ...(r.keptAside.length > 0 ? [`The previous files were kept as: ${r.keptAside.join(', ')}`] : [])].join('\n'));
      return 0;
    }
    if (sub === 'check') {
      const { values } = kit.parse(rest, {});
      const dir = kit.dataDir(values);
      const file = storeFile(dir);
      const { integrity, schemaVersion } = inspectStoreFile(file);
      const counts = await kit.withCore(values, (core) => {
        const out: Record<string, number> = {};
        for (const t of COUNTED_TABLES) out[t] = (core.deps.db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
        return out;
      });
      const report = { engine: 'sqlite', file, schemaVersion, appSchemaVersion: MIGRATIONS[MIGRATIONS.length - 1]!.version, integrity, rows: counts };
      kit.print(values, report, [`Engine: SQLite (${file})`, `Schema version: ${schemaVersion} (this app: ${report.appSchemaVersion})`, `Integrity: ${integrity}`, ...Object.entries(counts).map(([t, n]) => `  ${t.padEnd(20)} ${n}`)].join('\n'));
      return integrity === 'ok' ? 0 : 1;
    }
    return usage(sub ? `unknown db command: ${sub}` : 'db needs a command');
  },
};

