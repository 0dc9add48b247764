// `vconsole config export [--out F]` and `vconsole config import F [--dry-run]`: the non-secret configuration
// file of docs/settings.md from the command line, with the same checks and the same plan as the console.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseConfigText, type ImportPlan } from '../../src-shared/schemas/settings';
import { exportConfig, importConfig } from '../core/settings/config-transfer';
import type { ExtraCommand } from './extra-commands';

function usage(message: string): number {
  process.stderr.write(`vconsole: ${message}\nRun \`vconsole help\` for usage.\n`);
  return 2;
}

export function describePlan(plan: ImportPlan): string {
  const lines = plan.changes.map((c) => `  ${c.action.padEnd(9)} ${c.kind.padEnd(7)} ${c.target}: ${c.detail}`);
  const changed = plan.changes.filter((c) => c.action !== 'unchanged').length;
  lines.push(
    plan.applied
      ? `${changed} change(s) applied.`
      : changed === 0
        ? 'Nothing to change: the configuration already matches the file.'
        : `${changed} change(s) would be applied (dry run: nothing was written).`,
  );
  if (plan.newWebhookSecrets > 0) {
    lines.push(`${plan.newWebhookSecrets} webhook(s) ${plan.applied ? 'got' : 'will get'} a new signing secret: secrets are never exported. To hand a secret to a receiver, rotate it (console: Webhooks → Rotate secret) and copy the one shown.`);
  }
  if (plan.restartRequired) lines.push('The listener address changes at the next start of the service.');
  return lines.join('\n');
}

export const configCommand: ExtraCommand = {
  name: 'config',
  usage: 'vconsole config export [--out FILE] [--data-dir DIR] | config import FILE [--dry-run] [--data-dir DIR] [--json]',
  async run(args, kit) {
    const [sub, ...rest] = args;
    if (sub === 'export') {
      const { values } = kit.parse(rest, { out: { type: 'string' } });
      const file = await kit.withCore(values, async (core) => exportConfig(core.rt, (await kit.ownerPrincipal(core)).organizationId));
      const text = `${JSON.stringify(file, null, 2)}\n`;
      const out = values['out'];
      if (typeof out === 'string' && out !== '') {
        writeFileSync(out, text, { mode: 0o600 });
        process.stderr.write(`Configuration written to ${out} (${file.webhooks.length} webhooks, ${file.prices.length} prices, ${file.services.length} services; no secrets).\n`);
      } else {
        process.stdout.write(text);
      }
      return 0;
    }
    if (sub === 'import') {
      const { values, positionals } = kit.parse(rest, { 'dry-run': { type: 'boolean' } });
      const path = positionals[0];
      if (!path) return usage('config import: give the configuration file (from `vconsole config export`)');
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (e) {
        process.stderr.write(`vconsole: cannot read ${path}: ${(e as Error).message}\n`);
        return 1;
      }
      const parsed = parseConfigText(text);
      if (!parsed.ok) {
        process.stderr.write(`vconsole: ${path} is not a valid configuration file; nothing was changed.${parsed.details.map((d) => `\n  ${d.field}: ${d.message}`).join('')}\n`);
        return 1;
      }
      const dryRun = values['dry-run'] === true;
      const plan = await kit.withCore(values, async (core) => importConfig(core.rt, (await kit.ownerPrincipal(core)).organizationId, parsed.file, { dryRun }));
      kit.print(values, plan, describePlan(plan));
      return 0;
    }
    return usage('config: expected `export` or `import FILE`');
  },
};
