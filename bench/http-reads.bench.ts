// Benchmark 2 of docs/performance.md: reads on a large store. Seeds 1,000,000 verifications (--quick: 100,000)
// straight into a bootstrapped data folder through the real repository code, starts the real headless service
// on it, and loads GET /verify/{id} (random ids) and GET /verify?limit=100 with autocannon; baseline: the bare
// Fastify app's GET routes returning JSON of the same shape and size. Medians over rounds, ratios, results JSON.
// Usage: npx tsx bench/http-reads.bench.ts [--quick] [--rows 1000000] [--seconds 5] [--rounds 3] [--connections 32] [--tsx]
import autocannon from 'autocannon';
import { arg, bootstrap, freshDataDir, median, ratio, serviceEntry, startBaseline, startService, writeResult } from './lib/harness';
import { addKeys, BENCH_KEYS, seedVerifications } from './lib/seed';

const rows = arg('--rows', 1_000_000, 100_000);
const seconds = arg('--seconds', 5, 3);
const rounds = arg('--rounds', 3, 1);
const connections = arg('--connections', 32);

const dataDir = freshDataDir();
const { sandboxKey } = bootstrap(dataDir);
const keys = [sandboxKey, ...(await addKeys(dataDir, BENCH_KEYS - 1))];
const seedStart = Date.now();
const { sampleIds } = await seedVerifications(dataDir, rows);
console.log(`seeded ${rows} verifications in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(port: number, path: (i: number) => string, withKeys: boolean): Promise<Load> {
  let turn = 0;
  const r = await autocannon({
    url: `http://127.0.0.1:${port}${path(0)}`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          const i = turn++;
          return { ...req, path: path(i), headers: { ...req.headers, ...(withKeys ? { 'x-api-key': keys[i % keys.length]! } : {}) } };
        },
      },
    ],
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

const routes = {
  'GET /verify/{id}': (i: number) => `/api/v1/verify/${sampleIds[(i * 7919) % sampleIds.length]}`,
  'GET /verify?limit=100': () => '/api/v1/verify?limit=100',
};

const baseline = await startBaseline();
const service = await startService(dataDir);
const out: Record<string, { baselineRps: number; serviceRps: number; ratio: number; serviceP50Ms: number; serviceP99Ms: number; baselineP99Ms: number; non2xx: number }> = {};
try {
  for (const [name, path] of Object.entries(routes)) {
    const b: Load[] = [];
    const s: Load[] = [];
    for (let i = 0; i < rounds; i++) {
      b.push(await load(baseline.port, path, false));
      s.push(await load(service.port, path, true));
    }
    const sr = median(s.map((x) => x.rps));
    const br = median(b.map((x) => x.rps));
    out[name] = {
      baselineRps: br,
      serviceRps: sr,
      ratio: ratio(sr, br),
      serviceP50Ms: median(s.map((x) => x.p50)),
      serviceP99Ms: median(s.map((x) => x.p99)),
      baselineP99Ms: median(b.map((x) => x.p99)),
      non2xx: s.reduce((a, x) => a + x.non2xx + x.errors, 0),
    };
  }
} finally {
  await Promise.all([baseline.stop(), service.stop()]);
}
console.table(out);
// A refused request (429, an error) is not a read: a ratio that counts them measures the refusal.
const refused = Object.entries(out).filter(([, r]) => r.non2xx > 0);
for (const [name, r] of refused) console.log(`INVALID: ${name} got ${r.non2xx} answers that were not 2xx (or errors); its ratio does not measure the read`);
if (refused.length > 0) process.exitCode = 1;
writeResult('http-reads', { benchmark: `reads on a store of ${rows} verifications`, service: serviceEntry().label, rows, connections, seconds, rounds, routes: out });
