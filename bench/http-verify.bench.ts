// Benchmark 1 of docs/performance.md: sync sandbox POST /verify/account through the real headless service (auth,
// idempotency, durable record with synchronous=FULL) against a bare Fastify JSON-schema POST, both loaded from
// this process with autocannon at 32 connections. Prints medians over rounds and the ratio; writes results JSON.
// Usage: npx tsx bench/http-verify.bench.ts [--seconds 5] [--rounds 3] [--connections 32]
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
function arg(name: string, d: number): number {
  const i = process.argv.indexOf(name);
  return i === -1 ? d : Number(process.argv[i + 1]);
}
const seconds = arg('--seconds', 5);
const rounds = arg('--rounds', 3);
const connections = arg('--connections', 32);

function start(cmd: string, args: string[], re: RegExp): Promise<{ proc: ChildProcess; port: number }> {
  return new Promise((res, rej) => {
    const proc = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'error' } });
    let out = '';
    const on = (b: Buffer) => {
      out += b.toString();
      const m = re.exec(out);
      if (m) res({ proc, port: Number(m[1]) });
    };
    proc.stdout!.on('data', on);
    proc.stderr!.on('data', on);
    proc.on('exit', (c) => rej(new Error(`exited ${c}: ${out}`)));
  });
}

async function load(port: number, headers: Record<string, string>, unique: boolean): Promise<{ rps: number; p99: number; errors: number; non2xx: number }> {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}/api/v1/verify/account`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058' }),
        setupRequest: (req) => (unique ? { ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } } : req),
      },
    ],
  });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dataDir = mkdtempSync(join(tmpdir(), 'vc-bench-'));
const boot = spawnSync(process.execPath, ['bin/vconsole.mjs', 'bootstrap', '--data-dir', dataDir, '--email', 'bench@example.com', '--password', 'benchmark-password', '--json'], { cwd: root, encoding: 'utf8' });
const key = (JSON.parse(boot.stdout) as { keys: { sandbox: string } }).keys.sandbox;

const baseline = await start(process.execPath, ['bench/baseline-server.mjs'], /PORT (\d+)/);
const service = await start(process.execPath, ['bin/vconsole.mjs', 'serve', '--port', '0', '--data-dir', dataDir, '--no-console'], /127\.0\.0\.1:(\d+)\/api\/v1/);
const b: { rps: number; p99: number }[] = [];
const s: { rps: number; p99: number; errors: number; non2xx: number }[] = [];
try {
  for (let i = 0; i < rounds; i++) {
    b.push(await load(baseline.port, {}, false));
    s.push(await load(service.port, { 'x-api-key': key }, true));
  }
} finally {
  baseline.proc.kill('SIGTERM');
  service.proc.kill('SIGTERM');
}
const result = {
  benchmark: 'sync sandbox POST /verify/account',
  connections,
  seconds,
  rounds,
  baseline: { rps: median(b.map((x) => x.rps)), p99Ms: median(b.map((x) => x.p99)) },
  service: { rps: median(s.map((x) => x.rps)), p99Ms: median(s.map((x) => x.p99)), errors: s.reduce((a, x) => a + x.errors, 0), non2xx: s.reduce((a, x) => a + x.non2xx, 0) },
  ratio: 0,
  targets: { ratio: 0.4, p99Ms: 15 },
  at: new Date().toISOString(),
};
result.ratio = Number((result.service.rps / result.baseline.rps).toFixed(3));
console.table({ baseline: result.baseline, service: { rps: result.service.rps, p99Ms: result.service.p99Ms } });
console.log(`ratio service/baseline = ${result.ratio} (target ≥ ${result.targets.ratio}); service p99 = ${result.service.p99Ms} ms (target ≤ 15)`);
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(join(root, 'bench', 'results', 'http-verify.json'), `${JSON.stringify(result, null, 2)}\n`);
