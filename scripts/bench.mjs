// `npm run bench`: runs every benchmark under bench/ in turn; each prints its table and ratio to a baseline
// measured in the same run and writes bench/results/<name>.json. Pass a name to run one: npm run bench -- http-verify
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const only = process.argv[2];
const files = readdirSync('bench').filter((f) => f.endsWith('.bench.ts') && (!only || f.startsWith(only)));
let failed = 0;
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  const r = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', `bench/${f}`, ...process.argv.slice(3)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
