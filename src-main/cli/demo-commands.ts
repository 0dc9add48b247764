// `vconsole demo load [--days 30] [--seed N]`, `demo remove`, `demo status`: sandbox demo data from the command line
// (docs/demo.md). Progress goes to stderr line by line (as JSON lines with --json); the result to stdout.
import { demoStatus, loadDemo, removeDemo, DEMO_DAYS_DEFAULT, DEMO_DAYS_MAX } from '../core/demo/demo-data';
import { demoLoaderFor } from '../feature-demo';
import type { ExtraCommand } from './extra-commands';

const USAGE = [
  `vconsole demo load [--days N (1-${DEMO_DAYS_MAX}, default ${DEMO_DAYS_DEFAULT})] [--seed N] [--data-dir DIR] [--json]`,
  'vconsole demo remove [--data-dir DIR] [--json]',
  'vconsole demo status [--data-dir DIR] [--json]',
].join('\n  ');

function usage(message: string): number {
  process.stderr.write(`vconsole: ${message}\nUsage: ${USAGE}\n`);
  return 2;
}

function wholeNumber(raw: unknown, name: string, min: number, max: number): number | string {
  if (raw === undefined) return NaN;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || n < min || n > max) return `--${name} is a whole number from ${min} to ${max}`;
  return n;
}

export const demoCommand: ExtraCommand = {
  name: 'demo',
  usage: USAGE,
  async run(args, kit) {
    const [sub, ...rest] = args;
    if (sub === 'load') {
      const { values } = kit.parse(rest, { days: { type: 'string' }, seed: { type: 'string' } });
      const days = wholeNumber(values['days'], 'days', 1, DEMO_DAYS_MAX);
      if (typeof days === 'string') return usage(days);
      const seed = wholeNumber(values['seed'], 'seed', 0, 2 ** 32 - 1);
      if (typeof seed === 'string') return usage(seed);
      const json = values['json'] === true;
      const r = await kit.withCore(values, async (core) => {
        await kit.ownerPrincipal(core);
        return loadDemo(core.rt, demoLoaderFor(core.rt), {
          ...(Number.isNaN(days) ? {} : { days }),
          ...(Number.isNaN(seed) ? {} : { seed }),
          onProgress: (p) => process.stderr.write(json ? `${JSON.stringify(p)}\n` : `${p.message}\n`),
        });
      });
      kit.print(
        values,
        r,
        `Demo data loaded: ${r.checks} sandbox checks, ${r.routingChecks} routing lookups and a batch CSV of ${r.batch.rows} rows (${r.batch.invalid} invalid, ${r.batch.id}), ${r.records} records in ${(r.ms / 1000).toFixed(1)} s (seed ${r.seed}). Remove it with: vconsole demo remove`,
      );
      return 0;
    }
    if (sub === 'remove') {
      const { values } = kit.parse(rest, {});
      const r = await kit.withCore(values, async (core) => {
        await kit.ownerPrincipal(core);
        return removeDemo(core.rt);
      });
      const lines = Object.entries(r.removed).map(([t, n]) => `  ${t}: ${n}`);
      const folders = r.batchFolders > 0 ? [`  and the result files of ${r.batchFolders} batch${r.batchFolders === 1 ? '' : 'es'}`] : [];
      kit.print(values, r, r.total === 0 ? 'No demo data to remove.' : [`Removed ${r.total} demo records:`, ...lines, ...folders].join('\n'));
      return 0;
    }
    if (sub === 'status') {
      const { values } = kit.parse(rest, {});
      const s = await kit.withCore(values, (core) => demoStatus(core.deps.sql));
      kit.print(values, s, s.present ? `Demo data present: ${s.records} records (${Object.entries(s.byTable).map(([t, n]) => `${t} ${n}`).join(', ')}).` : 'No demo data.');
      return 0;
    }
    return usage(sub ? `unknown demo command: ${sub}` : 'demo needs a command: load, remove or status');
  },
};
