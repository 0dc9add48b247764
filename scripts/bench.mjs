// `npm run bench`: runs every benchmark under bench/ in turn; each prints its table and ratio to a baseline
// measured in the same run and writes bench/results/<name>.json. Names pick benchmarks, flags pass through:
//   npm run bench -- http-verify            one benchmark
//   npm run bench -- --quick                all of them, fewer rounds and smaller sizes
//   npm run bench -- http-reads --quick --tsx
// The service runs from the production build (out/main/headless.js) when it exists; --tsx runs the sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const args = process.argv.slice(2);
const names = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && /^--(rounds|seconds|connections|rows|count|rate|events|runs|drain-seconds|burst-seconds|warmup-seconds)$/.test(args[i - 1])));
const flags = args.filter((a) => !names.includes(a));
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts') && (names.length === 0 || names.some((n) => f.startsWith(n))))
  .sort();
if (files.length === 0) {
  console.error(`No benchmark matches ${names.join(', ')}. Available: ${readdirSync('bench').filter((f) => f.endsWith('.bench.ts')).join(', ')}`);
  process.exit(2);
}
if (!existsSync('out/main/headless.js') && !flags.includes('--tsx')) {
  console.log('No production build in out/ (run `npm run build` first to measure it); measuring the sources through tsx.');
}
let failed = 0;
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  const r = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', `bench/${f}`, ...flags], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.error(`${f} failed (exit ${r.status ?? r.signal})`);
  }
}
process.exit(failed ? 1 : 0);
