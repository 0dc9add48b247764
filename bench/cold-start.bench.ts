// Benchmark 6 of docs/performance.md: cold start of `vconsole serve` (on an existing data folder) to its first
// answered request (GET /api/v1/health): the production build (out/main/headless.js) without and with the web
// console, `bin/vconsole.mjs` (what `vconsole` and `npm run serve` run: it checks the build is current, then imports
// it) and the sources through tsx (VCONSOLE_TSX=1, development). Baseline (issue 16): a bare Fastify + SQLite app
// started with `node -e` (better-sqlite3 opens the same store; /health answers from a query); a bare Fastify app
// without SQLite is reported beside it. BENCH_SERVICE_ROOT=<checkout> adds that checkout's build (before/after).
//
// Besides the wall time, the CPU time the process used by its first answer (all its threads, from /proc on Linux):
// on a shared machine the wall time is mostly the share of a core the process got, the CPU time much less so.
//
// Then "first use": what the first request of a lazily loaded part costs after a cold start (docs/performance.md,
// "Cold start"), against the same request asked again: the OpenAPI document, a sandbox account and phone check, a
// BIC check and a sign-in. Median of 5 starts each (--quick: 3), interleaved.
// Usage: npx tsx bench/cold-start.bench.ts [--quick] [--runs 5]
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

const BARE_SQLITE = `
const Database = require('better-sqlite3');
const db = new Database(require('node:path').join(process.argv[1], 'verification-console.sqlite'));
const ok = db.prepare('SELECT 1 AS ok');
const app = require('fastify')({ logger: false });
app.get('/api/v1/health', async () => ({ status: ok.get().ok === 1 ? 'ok' : 'degraded' }));
app.listen({ host: '127.0.0.1', port: 0 }).then(() => console.log('http://127.0.0.1:' + app.server.address().port + '/api/v1'));
process.on('SIGTERM', () => app.close().then(() => { db.close(); process.exit(0); }));
`;

/** CPU time (ms) used so far by every thread of a process; null where /proc is not there. */
function cpuMsOf(pid: number): number | null {
  try {
    let ns = 0;
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // The thread ended meanwhile.
      }
    }
    return ns / 1e6;
  } catch {
    return null;
  }
}

interface Started {
  proc: ChildProcess;
  api: string;
  /** ms from spawn to the first answered GET /health, and the CPU the process had used by then. */
  ms: number;
  cpuMs: number | null;
}

/** Spawns, waits for the printed URL, then asks /health until it answers. */
function coldStart(args: string[], env: Record<string, string> = {}): Promise<Started> {
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
      const api = m[1]!;
      const ask = (): void => {
        fetch(`${api}/health`)
          .then(async (r) => {
            if (r.status !== 200) throw new Error(`status ${r.status}`);
            await r.text();
            const ms = nowMs() - t0;
            clearTimeout(timer);
            resolve({ proc, api, ms, cpuMs: cpuMsOf(proc.pid!) });
          })
          .catch(() => setTimeout(ask, 5));
      };
      ask();
    };
    proc.stdout!.on('data', on);
    proc.stderr!.on('data', on);
  });
}

function stop(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}

const dataDir = freshDataDir();
const { sandboxKey } = bootstrap(dataDir);
const serve = (entry: string, ...extra: string[]) => [entry, 'serve', '--port', '0', '--data-dir', dataDir, ...extra];
const other = process.env['BENCH_SERVICE_ROOT'];
const otherBuilt = other ? join(other, 'out', 'main', 'headless.js') : null;
const BASELINE = 'bare Fastify + SQLite (node -e)';
const variants: Record<string, { args: string[]; env?: Record<string, string> }> = {
  [BASELINE]: { args: ['-e', BARE_SQLITE, dataDir] },
  'bare Fastify (node -e)': { args: ['-e', BARE] },
  ...(existsSync(BUILT_ENTRY)
    ? {
        'vconsole serve (built)': { args: serve(BUILT_ENTRY, '--no-console') },
        'vconsole serve (built, web console)': { args: serve(BUILT_ENTRY) },
        'vconsole serve (bin/vconsole.mjs)': { args: serve(join(root, 'bin', 'vconsole.mjs'), '--no-console') },
      }
    : {}),
  ...(otherBuilt && existsSync(otherBuilt) ? { [`vconsole serve (built, ${other})`]: { args: serve(otherBuilt, '--no-console') } } : {}),
  'vconsole serve (tsx)': { args: serve(join(root, 'bin', 'vconsole.mjs'), '--no-console'), env: { VCONSOLE_TSX: '1' } },
};

// The bench process's own first fetch loads its HTTP client: done before anything is timed.
await fetch('http://127.0.0.1:9/').catch(() => undefined);
const times: Record<string, { ms: number[]; cpu: number[] }> = Object.fromEntries(Object.keys(variants).map((k) => [k, { ms: [], cpu: [] }]));
for (let i = 0; i < runs; i++) {
  for (const [name, v] of Object.entries(variants)) {
    const s = await coldStart(v.args, v.env);
    await stop(s.proc);
    times[name]!.ms.push(s.ms);
    if (s.cpuMs !== null) times[name]!.cpu.push(s.cpuMs);
  }
}
const base = median(times[BASELINE]!.ms);
const baseCpu = times[BASELINE]!.cpu.length > 0 ? median(times[BASELINE]!.cpu) : null;
const bareFastify = median(times['bare Fastify (node -e)']!.ms);
const table = Object.fromEntries(
  Object.entries(times).map(([name, { ms, cpu }]) => {
    const cpuMedian = cpu.length > 0 ? median(cpu) : null;
    return [
      name,
      {
        medianMs: round2(median(ms)),
        minMs: round2(Math.min(...ms)),
        maxMs: round2(Math.max(...ms)),
        vsBaseline: ratio(median(ms), base),
        vsBareFastify: ratio(median(ms), bareFastify),
        cpuMs: cpuMedian === null ? null : round2(cpuMedian),
        cpuVsBaseline: cpuMedian === null || baseCpu === null ? null : ratio(cpuMedian, baseCpu),
      },
    ];
  }),
);
console.log(`Cold start to the first answered GET /api/v1/health, median of ${runs} (baseline: ${BASELINE})`);
console.table(table);

// First use of what loads lazily, after a cold start: first answer against the same request asked again.
interface Probe {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: () => unknown;
  auth?: boolean;
}
const fixtures = await (async () => {
  const s = await coldStart(serve(BUILT_ENTRY, '--no-console'));
  try {
    const r = await fetch(`${s.api}/sandbox/fixtures`, { headers: { 'x-api-key': sandboxKey } });
    return ((await r.json()) as { data: { kind: string; request: unknown; expected: { status: string } }[] }).data;
  } finally {
    await stop(s.proc);
  }
})();
const fixture = (kind: string) => fixtures.find((f) => f.kind === kind && f.expected.status === 'success')?.request ?? fixtures.find((f) => f.kind === kind)!.request;
const probes: Probe[] = [
  { name: 'GET /openapi.json', method: 'GET', path: '/openapi.json' },
  { name: 'POST /verify/account (sandbox)', method: 'POST', path: '/verify/account', body: () => fixture('account'), auth: true },
  { name: 'POST /verify/phone (sandbox)', method: 'POST', path: '/verify/phone', body: () => fixture('phone'), auth: true },
  { name: 'POST /verifications/bic (sandbox)', method: 'POST', path: '/verifications/bic', body: () => fixture('bic'), auth: true },
  { name: 'POST /auth/login', method: 'POST', path: '/auth/login', body: () => ({ email: 'bench@example.com', password: 'benchmark-password' }) },
];
async function timed(api: string, p: Probe): Promise<number> {
  const t0 = nowMs();
  const r = await fetch(`${api}${p.path}`, {
    method: p.method,
    headers: { ...(p.body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}), ...(p.auth ? { 'x-api-key': sandboxKey } : {}) },
    ...(p.body ? { body: JSON.stringify(p.body()) } : {}),
  });
  await r.text();
  if (r.status >= 400) throw new Error(`${p.name}: status ${r.status}`);
  return nowMs() - t0;
}
const firstUseEntries: Record<string, string> = { built: BUILT_ENTRY, ...(otherBuilt && existsSync(otherBuilt) ? { [`built ${other}`]: otherBuilt } : {}) };
const firstUse: Record<string, Record<string, { firstMs: number; againMs: number }>> = {};
const samples: Record<string, Record<string, { first: number[]; again: number[] }>> = Object.fromEntries(
  Object.keys(firstUseEntries).map((label) => [label, Object.fromEntries(probes.map((p) => [p.name, { first: [], again: [] }]))]),
);
for (let i = 0; i < runs; i++) {
  // One cold start per probe, so that each first request is the first anything asked of that part; the entries
  // interleaved, so that they share the machine's load.
  for (const p of probes) {
    for (const [label, entry] of Object.entries(firstUseEntries)) {
      const s = await coldStart(serve(entry, '--no-console'));
      try {
        samples[label]![p.name]!.first.push(await timed(s.api, p));
        samples[label]![p.name]!.again.push(await timed(s.api, p));
      } finally {
        await stop(s.proc);
      }
    }
  }
}
for (const label of Object.keys(firstUseEntries)) {
  firstUse[label] = Object.fromEntries(Object.entries(samples[label]!).map(([n, v]) => [n, { firstMs: round2(median(v.first)), againMs: round2(median(v.again)) }]));
  console.log(`First request after a cold start, then the same request again (${label}), median of ${runs}`);
  console.table(firstUse[label]);
}
writeResult('cold-start', { benchmark: 'cold start to the first answered request (GET /api/v1/health)', baseline: BASELINE, runs, variants: table, firstUse });
