// Benchmark 8 of docs/performance.md: do failed logins slow other principals? The real headless service (scrypt at
// its production cost, N = 2^17); a Bearer-authenticated GET and an API-key GET are loaded by 8 closed-loop
// clients, first alone (the baseline, same run), then while 16 clients send failed logins back to back (unknown
// emails, so every one costs a full hash and none is throttled). Target: Bearer p99 ≤ 50 ms under the logins.
// Each failed login leaves from a fresh loopback address (127.x.y.z): the sign-in throttle lets one address hold only
// two places on the password pool and fail 50 times in 15 minutes (docs/team-server.md), so the pile of hashes this
// measures is a distributed one.
// Every request is timed to its answer, including those still waiting when the period ends (autocannon leaves
// those out, and a request stuck behind password hashing is exactly what this measures).
// Usage: npx tsx bench/auth-isolation.bench.ts [--quick] [--seconds 5] [--rounds 3] [--connections 8] [--tsx]
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Agent, request } from 'undici';
import { arg, bootstrap, freshDataDir, median, quantile, ratio, serviceEntry, startService, writeResult } from './lib/harness';

const seconds = arg('--seconds', 5, 3);
const rounds = arg('--rounds', 3, 1);
const connections = arg('--connections', 8);
const LOGINS = 16;

const dataDir = freshDataDir();
const { sandboxKey } = bootstrap(dataDir);

interface Load {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
}

const agent = new Agent({ connections: connections * 2 });

/** `connections` clients, each sending the next request when the previous one is answered, for `seconds`. */
async function load(port: number, headers: Record<string, string>, path: string): Promise<Load> {
  const latencies: number[] = [];
  let non2xx = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const r = await request(`http://127.0.0.1:${port}${path}`, { headers, dispatcher: agent });
        await r.body.dump();
        latencies.push(performance.now() - t);
        if (r.statusCode >= 300) non2xx++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const r1 = (x: number) => Math.round(x * 10) / 10;
  return { rps: latencies.length / elapsed, p50: r1(quantile(latencies, 0.5)), p99: r1(quantile(latencies, 0.99)), max: r1(Math.max(...latencies)), non2xx };
}

/** 16 clients, each sending a failed login as soon as its previous one was answered, until stopped. */
function failedLogins(port: number): { stop(): Promise<number> } {
  let running = true;
  let done = 0;
  let next = 0;
  const loops = Array.from({ length: LOGINS }, async () => {
    while (running) {
      const n = ++next;
      const localAddress = `127.${1 + ((n >> 16) & 0xff)}.${(n >> 8) & 0xff}.${(n & 0xff) || 1}`;
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, method: 'POST', path: '/api/v1/auth/login', localAddress, agent: false, headers: { 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            res.on('end', () => resolve());
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ email: `nobody-${randomUUID()}@example.com`, password: 'not the password' }));
      });
      done++;
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return done;
    },
  };
}

const service = await startService(dataDir, ['--rate-limit', '0']);
const idle: { bearer: Load; key: Load }[] = [];
const busy: { bearer: Load; key: Load; loginsPerSecond: number }[] = [];
try {
  const login = await fetch(`http://127.0.0.1:${service.port}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'benchmark-password' }),
  });
  const { accessToken } = (await login.json()) as { accessToken: string };
  if (!accessToken) throw new Error(`login failed: ${login.status}`);
  const bearer = { authorization: `Bearer ${accessToken}` };
  const key = { 'x-api-key': sandboxKey };
  for (let i = 0; i < rounds; i++) {
    idle.push({ bearer: await load(service.port, bearer, '/api/v1/client/api-keys'), key: await load(service.port, key, '/api/v1/verify?limit=1') });
    const logins = failedLogins(service.port);
    const started = Date.now();
    const b = await load(service.port, bearer, '/api/v1/client/api-keys');
    const k = await load(service.port, key, '/api/v1/verify?limit=1');
    const n = await logins.stop();
    busy.push({ bearer: b, key: k, loginsPerSecond: Math.round((n / (Date.now() - started)) * 1000) });
  }
} finally {
  await service.stop();
  await agent.close();
}

const tenth = (x: number) => Math.round(x * 10) / 10;
const med = (xs: Load[]) => ({
  rps: Math.round(median(xs.map((x) => x.rps))),
  p50Ms: tenth(median(xs.map((x) => x.p50))),
  p99Ms: tenth(median(xs.map((x) => x.p99))),
  maxMs: Math.max(...xs.map((x) => x.max)),
  non2xx: xs.reduce((a, x) => a + x.non2xx, 0),
});
const result = {
  benchmark: 'Bearer and API-key requests while 16 failed logins run',
  service: serviceEntry().label,
  connections,
  seconds,
  rounds,
  baseline: { bearer: med(idle.map((x) => x.bearer)), apiKey: med(idle.map((x) => x.key)) },
  underFailedLogins: {
    bearer: med(busy.map((x) => x.bearer)),
    apiKey: med(busy.map((x) => x.key)),
    failedLoginsPerSecond: median(busy.map((x) => x.loginsPerSecond)),
  },
  bearerP99Ratio: 0,
  /** Bearer throughput under the logins / alone: how much of the service the logins take from other principals. */
  bearerRpsRatio: 0,
  targets: { bearerP99Ms: 50 },
};
result.bearerP99Ratio = ratio(result.underFailedLogins.bearer.p99Ms, result.baseline.bearer.p99Ms);
result.bearerRpsRatio = ratio(result.underFailedLogins.bearer.rps, result.baseline.bearer.rps);
console.table({
  'Bearer alone': result.baseline.bearer,
  'Bearer, 16 failed logins': result.underFailedLogins.bearer,
  'API key alone': result.baseline.apiKey,
  'API key, 16 failed logins': result.underFailedLogins.apiKey,
});
console.log(
  `Bearer p99 under 16 failed logins = ${result.underFailedLogins.bearer.p99Ms} ms (target ≤ 50; alone ${result.baseline.bearer.p99Ms} ms); ` +
    `Bearer throughput under the logins = ${result.bearerRpsRatio} of alone; ${result.underFailedLogins.failedLoginsPerSecond} failed logins/s`,
);
writeResult('auth-isolation', result);
