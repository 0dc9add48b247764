// `vconsole audit verify [--file EXPORT]`, `audit export [--format json|csv] [--out F]`, `audit list`: the audit trail
// from the command line (docs/audit.md). `verify --file` checks an export offline, without any store.
import { readFileSync, writeFileSync } from 'node:fs';
import { exportAuditText, listAudit, NotAnAuditExport, verifyExport, verifyStore, type VerifyResult } from '../core/audit/audit-log';
import type { ExtraCommand } from './extra-commands';

const USAGE = [
  'vconsole audit verify [--file EXPORT.json] [--data-dir DIR] [--json]',
  'vconsole audit export [--format json|csv] [--out FILE] [--data-dir DIR]',
  'vconsole audit list [--action A] [--actor A] [--limit N] [--data-dir DIR] [--json]',
].join('\n  ');

function usage(message: string): number {
  process.stderr.write(`vconsole: ${message}\nUsage: ${USAGE}\n`);
  return 2;
}

/** A failed `verify --file` that is not about the chain (no file, not JSON, not an export): exit 1, no usage text. */
function failed(message: string): number {
  process.stderr.write(`vconsole: ${message}\n`);
  return 1;
}

function describe(r: VerifyResult): string {
  if (r.ok) return `Organization ${r.organizationId}: ${r.entries} entries verified. Head: #${r.head.seq} ${r.head.hash} (keep it to detect a later truncation).`;
  const bad = r.firstBad!;
  // An export cut short at the end: every entry it holds verifies (r.entries of them), up to r.head.
  if (bad.id === '(head)') {
    return `Organization ${r.organizationId}: NOT VERIFIED: ${bad.reason} (the export states head #${bad.seq}, its last entry is #${r.head.seq}). The ${r.entries} entries it holds verify.`;
  }
  // No entry where one should be (an organization with none left): r.entries verified before it.
  if (bad.id === '(missing)') return `Organization ${r.organizationId}: NOT VERIFIED at entry #${bad.seq} (missing): ${bad.reason}. The ${r.entries} entries before it verify.`;
  return `Organization ${r.organizationId}: NOT VERIFIED at entry #${bad.seq} (${bad.id}): ${bad.reason}. The ${r.entries - 1} entries before it verify.`;
}

export const auditCommand: ExtraCommand = {
  name: 'audit',
  usage: USAGE,
  async run(args, kit) {
    const [sub, ...rest] = args;
    if (sub === 'verify') {
      const { values } = kit.parse(rest, { file: { type: 'string' } });
      let results: VerifyResult[];
      if (typeof values['file'] === 'string') {
        const file = values['file'];
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch (e) {
          return failed(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
        }
        let x: unknown;
        try {
          x = JSON.parse(text);
        } catch (e) {
          return failed(`${file} is not an audit export: it is not JSON (${(e as Error).message})`);
        }
        try {
          results = [verifyExport(x)];
        } catch (e) {
          if (e instanceof NotAnAuditExport) return failed(`${file} is ${e.message}`);
          throw e;
        }
      } else {
        results = await kit.withCore(values, (core) => verifyStore(core.deps.sql));
      }
      kit.print(values, { ok: results.every((r) => r.ok), chains: results }, results.length === 0 ? 'The audit trail is empty.' : results.map(describe).join('\n'));
      return results.every((r) => r.ok) ? 0 : 1;
    }
    if (sub === 'export') {
      const { values } = kit.parse(rest, { format: { type: 'string' }, out: { type: 'string' } });
      const format = values['format'] ?? 'json';
      if (format !== 'json' && format !== 'csv') return usage('--format is json or csv');
      const x = await kit.withCore(values, async (core) => exportAuditText(core.deps.sql, (await kit.ownerPrincipal(core)).organizationId, core.deps.clock.now(), format));
      if (typeof values['out'] === 'string' && values['out'] !== '') {
        writeFileSync(values['out'], x.text);
        process.stderr.write(`${x.entries} entries written to ${values['out']}.\n`);
      } else process.stdout.write(x.text);
      return 0;
    }
    if (sub === 'list') {
      const { values } = kit.parse(rest, { action: { type: 'string' }, actor: { type: 'string' }, limit: { type: 'string' } });
      const limit = values['limit'] === undefined ? 20 : Number(values['limit']);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return usage('--limit is a whole number from 1 to 1000');
      const page = await kit.withCore(values, async (core) =>
        listAudit(core.deps.sql, (await kit.ownerPrincipal(core)).organizationId, {
          limit,
          offset: 0,
          ...(typeof values['action'] === 'string' ? { action: values['action'] } : {}),
          ...(typeof values['actor'] === 'string' ? { actor: values['actor'] } : {}),
        }),
      );
      kit.print(values, page, page.data.map((e) => `#${e.seq}  ${e.at}  ${e.action.padEnd(26)} ${e.actor.label} (${e.door})${e.target.id ? `  → ${e.target.id}` : ''}`).join('\n') || 'No entries.');
      return 0;
    }
    return usage(sub ? `unknown audit command: ${sub}` : 'audit needs a command');
  },
};
