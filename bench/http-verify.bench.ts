// Benchmark 1 of docs/performance.md: sync sandbox POST /verify/account through the real headless service (auth,
// idempotency, durable record with synchronous=FULL) against a bare Fastify JSON-schema POST, both loaded from
// this process with autocannon at 32 connections. Prints medians over rounds and the ratio; writes results JSON.
// The load is spread over 64 keys: the per-key budget (6,000/min) is policy, and one key would measure 429s.
// Usage: npx tsx bench/http-verify.bench.ts [--quick] [--seconds 5] [--rounds 3] [--connections 32] [--tsx]
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { arg, bootstrap, cpuMs, freshDataDir, median, ratio, serviceEntry, startBaseline, startDurableBaseline, startService, writeResult } from './lib/harness';
import { addKeys } from './lib/seed';

const seconds = arg('--seconds', 5, 3);
const rounds = arg('--rounds', 3, 1);
const connections = arg('--connections', 32);

const dataDir = freshDataDir();
const { sandboxKey } = bootstrap(dataDir);
const keys = [sandboxKey, ...(await addKeys(dataDir, 63))];

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** The service's CPU per request, µs: the whole process and its main thread (the event loop). */
  cpuUs?: number;
  loopCpuUs?: number;
}

async function load(port: number, service: boolean, pid?: number): Promise<Load> {
  let turn = 0;
  const cpu0 = cpuMs(pid);
  const loop0 = cpuMs(pid, true);
  const r = await autocannon({
    url: `http://127.0.0.1:${port}/api/v1/verify/account`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058' }),
        setupRequest: (req) =>
          service ? { ...req, headers: { ...req.headers, 'x-api-key': keys[turn++ % keys.length]!, 'idempotency-key': randomUUID() } } : req,
      },
    ],
  });
  const out: Load = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
  const cpu1 = cpuMs(pid);
  const loop1 = cpuMs(pid, true);
  if (service && cpu0 !== null && cpu1 !== null && loop0 !== null && loop1 !== null && r.requests.total > 0) {
    out.cpuUs = Math.round(((cpu1 - cpu0) * 1000) / r.requests.total);
    out.loopCpuUs = Math.round(((loop1 - loop0) * 1000) / r.requests.total);
  }
  return out;
}

const baseline = await startBaseline();
const durableBaseline = await startDurableBaseline();
const service = await startService(dataDir);
const b: Load[] = [];
const d: Load[] = [];
const s: Load[] = [];
try {
  for (let i = 0; i < rounds; i++) {
    b.push(await load(baseline.port, false));
    d.push(await load(durableBaseline.port, false, durableBaseline.proc.pid));
    s.push(await load(service.port, true, service.proc.pid));
  }
} finally {
  await Promise.all([baseline.stop(), durableBaseline.stop(), service.stop()]);
}
const result = {
  benchmark: 'sync sandbox POST /verify/account',
  service: serviceEntry().label,
  connections,
  seconds,
  rounds,
  baseline: { rps: median(b.map((x) => x.rps)), p99Ms: median(b.map((x) => x.p99)) },
  /** The least a durable POST does here (bench/durable-baseline-server.mjs): context for the ratio, not its target. */
  durableBaseline: { rps: median(d.map((x) => x.rps)), p50Ms: median(d.map((x) => x.p50)), p99Ms: median(d.map((x) => x.p99)), errors: d.reduce((a, x) => a + x.errors + x.non2xx, 0) },
  serviceFigures: {
    rps: median(s.map((x) => x.rps)),
    p50Ms: median(s.map((x) => x.p50)),
    p99Ms: median(s.map((x) => x.p99)),
    errors: s.reduce((a, x) => a + x.errors, 0),
    non2xx: s.reduce((a, x) => a + x.non2xx, 0),
    cpuUsPerRequest: median(s.map((x) => x.cpuUs ?? NaN)),
    loopCpuUsPerRequest: median(s.map((x) => x.loopCpuUs ?? NaN)),
  },
  ratio: 0,
  ratioToDurable: 0,
  targets: { ratio: 0.4, p99Ms: 15 },
};
result.ratio = ratio(result.serviceFigures.rps, result.baseline.rps);
result.ratioToDurable = ratio(result.serviceFigures.rps, result.durableBaseline.rps);
console.table({
  baseline: result.baseline,
  'durable baseline': { rps: result.durableBaseline.rps, p99Ms: result.durableBaseline.p99Ms },
  service: { rps: result.serviceFigures.rps, p99Ms: result.serviceFigures.p99Ms },
});
console.log(`ratio service/baseline = ${result.ratio} (target ≥ ${result.targets.ratio}); service p99 = ${result.serviceFigures.p99Ms} ms (target ≤ 15)`);
console.log(
  `durable baseline/baseline = ${ratio(result.durableBaseline.rps, result.baseline.rps)} (p50 ${result.durableBaseline.p50Ms} ms, p99 ${result.durableBaseline.p99Ms} ms); service/durable baseline = ${result.ratioToDurable}`,
);
console.log(`service CPU per request: ${result.serviceFigures.cpuUsPerRequest} µs (event loop ${result.serviceFigures.loopCpuUsPerRequest} µs)`);
if (result.serviceFigures.non2xx + result.serviceFigures.errors > 0) {
  // A refused request (429, an error) is not a verification: the ratio would measure the refusal.
  console.log(`INVALID: the service answered ${result.serviceFigures.non2xx} requests with a status that was not 2xx and ${result.serviceFigures.errors} with errors`);
  process.exitCode = 1;
}
writeResult('http-verify', result);
