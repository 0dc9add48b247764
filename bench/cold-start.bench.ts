// Benchmark 6 of docs/performance.md: cold start of `vconsole serve` (on an existing data folder) to its first
// answered request (GET /api/v1/health): the production build (out/main/headless.js), `bin/vconsole.mjs` (what
// `vconsole` and `npm run serve` run: it checks the build is current, then imports it) and the sources through tsx
// (VCONSOLE_TSX=1, development); baseline: `node -e` starting a bare Fastify app.
// Median of 5 starts each (--quick: 3), interleaved. Usage: npx tsx bench/cold-start.bench.ts [--quick] [--runs 5]
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_ENTRY, arg, bootstrap, freshDataDir, median, ratio, root, round2, writeResult } from './lib/harness';

const runs = arg('--runs', 5, 3);
const nowMs = () => performance.timeOrigin + performance.now();

const BARE = `
const app = require('fastify')({ logger: false });
app.get('/api/v1/health', async () => ({ status: 'ok' }));
app.listen({ host: '127.0.0.1', port: 0 }).then(() => console.log('http://127.0.0.1:' + app.server.address().port + '/api/v1'));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
`;

/** Spawns, waits for the printed URL, then asks /health until it answers; returns ms from spawn to the answer. */
function coldStart(args: string[], env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const proc = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'error', ...env } });
    let out = '';
    let asked = false;
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`no answer after 60 s: ${out}`));
    }, 60_000);
    const on = (b: Buffer) => {
      out += b.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/api\/v1)/.exec(out);
      if (!m || asked) return;
      asked = true;
      const url = `${m[1]}/health`;
      const ask = (): void => {
        fetch(url)
          .then(async (r) => {
            if (r.status !== 200) throw new Error(`status ${r.status}`);
            await r.text();
            const ms = nowMs() - t0;
            clearTimeout(timer);
            proc.once('exit', () => resolve(ms));
            proc.kill('SIGTERM');
          })
          .catch(() => setTimeout(ask, 5));
      };
      ask();
    };
    proc.stdout.on('data', on);
    proc.stderr.on('data', on);
  });
}

const dataDir = freshDataDir();
bootstrap(dataDir);
const variants: Record<string, string[]> = {
  'bare Fastify (node -e)': ['-e', BARE],
  ...(existsSync(BUILT_ENTRY) ? { 'vconsole serve (built)': [BUILT_ENTRY, 'serve', '--port', '0', '--data-dir', dataDir, '--no-console'] } : {}),
  ...(existsSync(BUILT_ENTRY) ? { 'vconsole serve (bin/vconsole.mjs)': [join(root, 'bin', 'vconsole.mjs'), 'serve', '--port', '0', '--data-dir', dataDir, '--no-console'] } : {}),
  'vconsole serve (tsx)': [join(root, 'bin', 'vconsole.mjs'), 'serve', '--port', '0', '--data-dir', dataDir, '--no-console'],
};
const envOf = (name: string): Record<string, string> => (name.endsWith('(tsx)') ? { VCONSOLE_TSX: '1' } : {});
const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let i = 0; i < runs; i++) {
  for (const [name, args] of Object.entries(variants)) times[name]!.push(await coldStart(args, envOf(name)));
}
const base = median(times['bare Fastify (node -e)']!);
const table = Object.fromEntries(
  Object.entries(times).map(([name, xs]) => [name, { medianMs: round2(median(xs)), minMs: round2(Math.min(...xs)), maxMs: round2(Math.max(...xs)), vsBaseline: ratio(median(xs), base) }]),
);
console.table(table);
writeResult('cold-start', { benchmark: 'cold start to the first answered request (GET /api/v1/health)', runs, variants: table });
