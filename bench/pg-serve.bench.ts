// Benchmark 10 of docs/performance.md: the service on PostgreSQL (issue 17). One throw-away PostgreSQL cluster with
// its durability on (bench/lib/pg-bench.ts), started and always stopped by this process; the real headless service
// as child processes on 127.0.0.1: one on SQLite, two `serve --database` instances on the one PostgreSQL database
// (each its own data folder, the same secret.key). In every round, back to back and each against the bare Fastify
// baseline of the same round (bench/baseline-server.mjs): the sync sandbox POST /verify/account on SQLite, on one
// PostgreSQL instance, and spread over both instances (the same connections in all, split between the instances).
// CPU per request of the service(s), of PostgreSQL (every backend, from /proc) and of this load generator, so the
// figures can size a team server; the load average beside every run. With --async: bursts of async sandbox
// verifications through one and through both instances to a local signed-webhook receiver (accepted/s,
// delivered/s); what could not run is reported, not hidden. Every load run is bounded; the run ends by itself.
// Usage: npx tsx bench/pg-serve.bench.ts [--quick] [--seconds 5] [--rounds 3] [--connections 32]
//          [--async] [--count 3000] [--burst-seconds 20] [--drain-seconds 30] [--drop-table-versions] [--statements] [--tsx]
import autocannon from 'autocannon';
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { arg, bootstrap, cpuMs, flag, freshDataDir, median, ratio, round2, serviceEntry, sleep, startBaseline, startChild, startService, writeResult, type Child } from './lib/harness';
import { bootstrapPostgres, dropTableVersionTriggers, migrate, startBenchPostgres } from './lib/pg-bench';
import { addKeys } from './lib/seed';

const seconds = arg('--seconds', 5, 3);
const rounds = arg('--rounds', 3, 1);
const connections = arg('--connections', 32);
const withAsync = flag('--async');
const asyncCount = arg('--count', 3_000, 600);
const burstLimitMs = arg('--burst-seconds', 20, 8) * 1000;
const drainLimitMs = arg('--drain-seconds', 30, 10) * 1000;
// An experiment (bench/lib/pg-bench.ts): without the table_versions counter's contention, what would the path do?
const withoutTableVersions = flag('--drop-table-versions');
// PostgreSQL's statement counts (pg_stat_statements) during the last round's one-instance run: what a request costs it.
const withStatements = flag('--statements');
const KEYS = 64;

const load1 = () => round2(loadavg()[0]!);
const loadNow = () => loadavg().map(round2);
console.log(`load average at start: ${loadNow().join(', ')} (${serviceEntry().label})`);
const loadAtStart = loadNow();

// SQLite: a bootstrapped data folder and its keys, as benchmark 1.
const sqliteDir = freshDataDir();
const dataDirs = [sqliteDir];
const sqliteKeys = [bootstrap(sqliteDir).sandboxKey, ...(await addKeys(sqliteDir, KEYS - 1))];

const pgb = await startBenchPostgres({ statements: withStatements });
console.log(`PostgreSQL: ${pgb.description}`);
const children: Child[] = [];
const errorsOf = new Map<Child, ReturnType<typeof countErrors>>();
let result: Record<string, unknown> | undefined;
try {
  migrate(pgb.url);
  const { sandboxKeys: pgKeys } = await bootstrapPostgres(pgb.url, KEYS);
  if (withoutTableVersions) await dropTableVersionTriggers(pgb.url);

  // Each instance its own data folder, all with one data box key (webhook secrets sealed by one are opened by the
  // other). The box writes the key on first use; the benchmark writes it first, the same way, and copies it.
  const pgDirs = [freshDataDir(), freshDataDir()];
  dataDirs.push(...pgDirs);
  writeFileSync(join(pgDirs[0]!, 'secret.key'), randomBytes(32), { mode: 0o600, flag: 'wx' });
  copyFileSync(join(pgDirs[0]!, 'secret.key'), join(pgDirs[1]!, 'secret.key'));

  const receiver = withAsync ? await startChild(['bench/lib/receiver.mjs'], /PORT (\d+)/) : null;
  if (receiver) children.push(receiver);
  const allow = receiver ? ['--allow-webhook-host', `127.0.0.1:${receiver.port}`] : [];
  const baseline = await startBaseline();
  children.push(baseline);
  const sqlite = await startService(sqliteDir, allow);
  children.push(sqlite);
  const pgA = await startService(pgDirs[0]!, ['--database', pgb.url, ...allow]);
  children.push(pgA);
  const pgB = await startService(pgDirs[1]!, ['--database', pgb.url, ...allow]);
  children.push(pgB);
  for (const c of [sqlite, pgA, pgB]) errorsOf.set(c, countErrors(c));

  // What two idle instances cost PostgreSQL (their job and delivery loops poll the database).
  const idleCpu0 = pgb.cpuMs();
  const idleSvc0 = [pgA, pgB].map((c) => cpuMs(c.proc.pid) ?? NaN);
  await sleep(3000);
  const idleCpu1 = pgb.cpuMs();
  const idleSvc1 = [pgA, pgB].map((c) => cpuMs(c.proc.pid) ?? NaN);
  const idlePgCpuPct = idleCpu0 !== null && idleCpu1 !== null ? round2(((idleCpu1 - idleCpu0) / 3000) * 100) : null;
  const idleServiceCpuPct = round2(((idleSvc1[0]! - idleSvc0[0]! + idleSvc1[1]! - idleSvc0[1]!) / 2 / 3000) * 100);

  let statements: ReturnType<typeof perRequest> = null;
  let waits: Record<string, number> | null = null;
  const sync = { baseline: [] as Run[], sqlite: [] as Run[], pg1: [] as Run[], pg2: [] as Run[] };
  for (let i = 0; i < rounds; i++) {
    sync.baseline.push(await load([baseline], null, null));
    sync.sqlite.push(await load([sqlite], sqliteKeys, null));
    const diagnose = withStatements && i === rounds - 1;
    if (diagnose) await pgb.resetStatements();
    sync.pg1.push(await load([pgA], pgKeys, pgb, diagnose));
    if (diagnose) {
      statements = perRequest(await pgb.statements(), sync.pg1[i]!.requests);
      waits = sync.pg1[i]!.connectionStates ?? null;
    }
    sync.pg2.push(await load([pgA, pgB], pgKeys, pgb));
    console.log(
      `round ${i + 1}: baseline ${sync.baseline[i]!.rps} req/s; SQLite ${sync.sqlite[i]!.rps}; PostgreSQL 1 instance ${sync.pg1[i]!.rps}; 2 instances ${sync.pg2[i]!.rps} (load ${sync.pg2[i]!.load1})`,
    );
  }

  const summary = (runs: Run[], base: Run[]) => ({
    rps: median(runs.map((r) => r.rps)),
    ratio: median(runs.map((r, i) => ratio(r.rps, base[i]!.rps))),
    p50Ms: median(runs.map((r) => r.p50)),
    p99Ms: median(runs.map((r) => r.p99)),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
    serviceCpuUsPerRequest: median(runs.map((r) => r.serviceCpuUs ?? NaN)),
    loopCpuUsPerRequest: median(runs.map((r) => r.loopCpuUs ?? NaN)),
    postgresCpuUsPerRequest: median(runs.map((r) => r.pgCpuUs ?? NaN)),
    clientCpuUsPerRequest: median(runs.map((r) => r.clientCpuUs)),
    transactionsPerRequest: median(runs.map((r) => r.xactsPerRequest ?? NaN)),
    rollbacks: runs.reduce((a, r) => a + (r.rollbacks ?? 0), 0),
    load1: runs.map((r) => r.load1),
    serviceErrors: runs.reduce<Record<string, number>>((a, r) => {
      for (const [k, n] of Object.entries(r.serviceErrors)) a[k] = (a[k] ?? 0) + n;
      return a;
    }, {}),
    rounds: runs.map(({ rps, p50, p99, serviceCpuUs, pgCpuUs, load1: l }) => ({ rps, p50, p99, serviceCpuUs, pgCpuUs, load1: l })),
  });
  const baselineSummary = { rps: median(sync.baseline.map((r) => r.rps)), p99Ms: median(sync.baseline.map((r) => r.p99)), load1: sync.baseline.map((r) => r.load1) };
  const sqliteSummary = summary(sync.sqlite, sync.baseline);
  const pg1 = summary(sync.pg1, sync.baseline);
  const pg2 = summary(sync.pg2, sync.baseline);

  const asyncResult = withAsync ? await asyncBursts(receiver!, [pgA, pgB], pgKeys) : { ran: false, reason: 'not asked for (--async)' };

  // Sizing (docs/team-server.md): CPU per request is steadier than throughput on a shared machine.
  const svcUs = pg1.serviceCpuUsPerRequest;
  const pgUs = pg1.postgresCpuUsPerRequest;
  const sizing = {
    perInstanceRps: { oneInstance: pg1.rps, twoInstances: round2(pg2.rps / 2) },
    cpuUsPerRequest: { service: svcUs, postgres: pgUs, loadGenerator: pg1.clientCpuUsPerRequest },
    coresPer1000Rps: { service: round2(svcUs / 1000), postgres: round2(pgUs / 1000) },
    // Service and PostgreSQL alone on a 2-core box, both saturated, clients elsewhere: 2 s of CPU a second.
    twoCoreBoxCpuBoundRps: Number.isFinite(svcUs + pgUs) ? Math.round(2_000_000 / (svcUs + pgUs)) : null,
    measuredHereRps: { oneInstance: pg1.rps, twoInstances: pg2.rps, note: 'this box: 2 cores shared with the load generator and other work' },
  };

  result = {
    benchmark: 'service on PostgreSQL: sync POST /verify/account (SQLite, 1 and 2 PostgreSQL instances) vs bare Fastify; optional async bursts',
    service: serviceEntry().label,
    postgres: pgb.description,
    ...(withoutTableVersions ? { experiment: 'table_versions triggers dropped in the PostgreSQL database (--drop-table-versions): not the product' } : {}),
    durability: 'PostgreSQL fsync=on, synchronous_commit=on (its defaults); SQLite WAL synced before every answer',
    connections,
    seconds,
    rounds,
    loadAverage: { start: loadAtStart, end: loadNow() },
    idle: { postgresCpuPercentForTwoInstances: idlePgCpuPct, serviceCpuPercentPerInstance: idleServiceCpuPct },
    baseline: baselineSummary,
    sqlite: sqliteSummary,
    postgresOneInstance: pg1,
    postgresTwoInstances: pg2,
    async: asyncResult,
    ...(statements ? { postgresStatementsOneInstance: statements, postgresConnectionStatesOneInstance: waits } : {}),
    sizing,
  };
  const row = (name: string, s: ReturnType<typeof summary>) => ({
    'req/s': s.rps,
    ratio: s.ratio,
    'p50 ms': s.p50Ms,
    'p99 ms': s.p99Ms,
    'svc µs/req': s.serviceCpuUsPerRequest,
    'pg µs/req': name === 'SQLite' ? '—' : s.postgresCpuUsPerRequest,
    'client µs/req': s.clientCpuUsPerRequest,
    non2xx: s.non2xx + s.errors,
  });
  console.table({ baseline: { 'req/s': baselineSummary.rps, 'p99 ms': baselineSummary.p99Ms }, SQLite: row('SQLite', sqliteSummary), 'PG 1 instance': row('PG', pg1), 'PG 2 instances': row('PG', pg2) });
  for (const [name, x] of [['SQLite', sqliteSummary], ['PostgreSQL 1 instance', pg1], ['PostgreSQL 2 instances', pg2]] as const) {
    if (Object.keys(x.serviceErrors).length) console.log(`${name}: errors logged by the service: ${JSON.stringify(x.serviceErrors)}`);
  }
  console.log(`PostgreSQL transactions per request ≈ ${pg1.transactionsPerRequest} (1 instance), ${pg2.transactionsPerRequest} (2); rollbacks ${pg1.rollbacks} / ${pg2.rollbacks}; two idle instances cost PostgreSQL ${idlePgCpuPct} % of a core, each instance itself ${idleServiceCpuPct} %`);
  if (statements) {
    console.log(
      `PostgreSQL statements per request (1 instance, last round): ${statements.perRequest} from the service, ${statements.nestedPerRequest} inside them (pg_stat_statements; the figures above include its overhead)`,
    );
    console.table(statements.top);
    console.log(`the instance's PostgreSQL connections on an average sample (of the 10 in its pool): ${JSON.stringify(waits)}`);
  }
  console.log(`sizing: ${JSON.stringify(sizing)}`);
  if (!asyncResult.ran) console.log(`async: ${JSON.stringify(asyncResult)}`);
  console.log(`load average at end: ${loadNow().join(', ')}`);
} finally {
  await Promise.all(children.map((c) => c.stop()));
  await pgb.stop();
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
}
// The experiment's figures are kept apart from the product's.
if (result) writeResult(withoutTableVersions ? 'pg-serve-experiment' : 'pg-serve', result);

/** Statement counts per request (the service's own, and in all), the 20 costliest first (time: wall time in the server). */
function perRequest(rows: { query: string; calls: number; totalMs: number; toplevel: boolean }[], requests: number) {
  if (rows.length === 0 || requests === 0) return null;
  return {
    perRequest: round2(rows.filter((r) => r.toplevel).reduce((a, r) => a + r.calls, 0) / requests),
    nestedPerRequest: round2(rows.filter((r) => !r.toplevel).reduce((a, r) => a + r.calls, 0) / requests),
    top: rows.slice(0, 20).map((r) => ({
      query: `${r.toplevel ? '' : '(nested) '}${r.query}`.slice(0, 100),
      perRequest: round2(r.calls / requests),
      usPerRequest: Math.round((r.totalMs * 1000) / requests),
    })),
  };
}

interface Run {
  requests: number;
  rps: number;
  p50: number;
  /** The worst of the instances' p99 when the load is spread over several. */
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU per request, µs: the service processes (all instances together), their event loops, PostgreSQL, this process. */
  serviceCpuUs?: number;
  loopCpuUs?: number;
  pgCpuUs?: number;
  clientCpuUs: number;
  xactsPerRequest?: number;
  rollbacks?: number;
  load1: number;
  /** --statements: the instance's PostgreSQL connections by state and wait event, on an average sample. */
  connectionStates?: Record<string, number>;
  /** What the services logged at level error during the run, by message. */
  serviceErrors: Record<string, number>;
}

/**
 * `seconds` of autocannon on each target at once, `connections` split between them; keys (null: the baseline, which
 * takes none) in turn, each request with a fresh Idempotency-Key. `pg`: also PostgreSQL's CPU and transactions.
 */
async function load(targets: Child[], keys: string[] | null, pg: Awaited<ReturnType<typeof startBenchPostgres>> | null, sampleWaits = false): Promise<Run> {
  let turn = 0;
  const per = Math.max(1, Math.round(connections / targets.length));
  const cpu0 = targets.map((t) => cpuMs(t.proc.pid));
  const loop0 = targets.map((t) => cpuMs(t.proc.pid, true));
  const pgCpu0 = pg?.cpuMs() ?? null;
  const stats0 = pg ? await pg.stats() : null;
  serviceErrors(targets);
  const client0 = process.cpuUsage();
  const sampler = pg && sampleWaits ? pg.sampleWaits() : null;
  const runs = await Promise.all(
    targets.map((t) =>
      autocannon({
        url: `http://127.0.0.1:${t.port}/api/v1/verify/account`,
        connections: per,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058' }),
            setupRequest: (req) => (keys ? { ...req, headers: { ...req.headers, 'x-api-key': keys[turn++ % keys.length]!, 'idempotency-key': randomUUID() } } : req),
          },
        ],
      }),
    ),
  );
  const connectionStates = await sampler?.stop();
  const client = process.cpuUsage(client0);
  const cpu1 = targets.map((t) => cpuMs(t.proc.pid));
  const loop1 = targets.map((t) => cpuMs(t.proc.pid, true));
  const pgCpu1 = pg?.cpuMs() ?? null;
  const total = runs.reduce((a, r) => a + r.requests.total, 0);
  const out: Run = {
    requests: total,
    rps: round2(runs.reduce((a, r) => a + r.requests.average, 0)),
    p50: Math.max(...runs.map((r) => r.latency.p50)),
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
    clientCpuUs: total > 0 ? Math.round((client.user + client.system) / total) : NaN,
    load1: load1(),
    serviceErrors: serviceErrors(targets),
    ...(connectionStates ? { connectionStates } : {}),
  };
  const sum = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : xs.reduce<number>((a, x) => a + x!, 0));
  const cpuA = sum(cpu0);
  const cpuB = sum(cpu1);
  const loopA = sum(loop0);
  const loopB = sum(loop1);
  if (keys && total > 0 && cpuA !== null && cpuB !== null && loopA !== null && loopB !== null) {
    out.serviceCpuUs = Math.round(((cpuB - cpuA) * 1000) / total);
    out.loopCpuUs = Math.round(((loopB - loopA) * 1000) / total);
  }
  if (pg && total > 0) {
    if (pgCpu0 !== null && pgCpu1 !== null) out.pgCpuUs = Math.round(((pgCpu1 - pgCpu0) * 1000) / total);
    // A busy backend reports its counts at most once a second: let the last second's arrive.
    await sleep(1100);
    const stats1 = await pg.stats();
    out.xactsPerRequest = round2((stats1.commits + stats1.rollbacks - stats0!.commits - stats0!.rollbacks) / total);
    out.rollbacks = stats1.rollbacks - stats0!.rollbacks;
  }
  return out;
}

/**
 * Async sandbox verifications (202, the durable queue, the provider, the outbox, a signed webhook) submitted as fast
 * as `connections` requests in flight allow, round robin over the instances — first through one instance, then
 * through both — and collected at the receiver. Bounded: submissions stop after burstLimitMs, waiting for
 * deliveries after drainLimitMs. Whatever fails is reported with the answers seen.
 */
async function asyncBursts(receiver: Child, instances: Child[], keys: string[]): Promise<Record<string, unknown>> {
  const rx = new Pool(`http://127.0.0.1:${receiver.port}`, { connections: 2 });
  const pools = instances.map((i) => new Pool(`http://127.0.0.1:${i.port}`, { connections, pipelining: 1 }));
  const call = async (pool: Pool, method: 'GET' | 'POST', path: string, body?: string, headers: Record<string, string> = {}) => {
    const r = await pool.request({ method, path, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { body }) });
    const text = await r.body.text();
    return { status: r.statusCode, text };
  };
  try {
    const hook = await call(pools[0]!, 'POST', '/api/v1/client/webhooks', JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hook`, events: ['verification.completed', 'verification.failed'] }), { 'x-api-key': keys[0]! });
    if (hook.status !== 201) return { ran: false, reason: `webhook registration answered ${hook.status}: ${hook.text.slice(0, 300)}` };
    await call(rx, 'POST', '/_secret', (JSON.parse(hook.text) as { secret: string }).secret);
    const out: Record<string, unknown> = { ran: true, count: asyncCount, connections };
    for (const n of [1, 2]) {
      const use = pools.slice(0, n);
      await call(rx, 'POST', '/_reset');
      const statuses: Record<string, number> = {};
      const firstErrors: string[] = [];
      const ids = new Set<string>();
      serviceErrors(instances);
      const cpu0 = instances.slice(0, n).map((i) => cpuMs(i.proc.pid) ?? NaN);
      const pgCpu0 = pgb.cpuMs();
      const t0 = performance.now();
      let next = 0;
      let turn = 0;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (next < asyncCount && performance.now() - t0 < burstLimitMs) {
            const i = next++;
            try {
              const r = await call(use[i % n]!, 'POST', '/api/v1/verify/account', JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058', mode: 'async' }), {
                'x-api-key': keys[turn++ % keys.length]!,
                'idempotency-key': randomUUID(),
              });
              statuses[r.status] = (statuses[r.status] ?? 0) + 1;
              if (r.status === 202) ids.add((JSON.parse(r.text) as { id: string }).id);
              else if (firstErrors.length < 3 && !firstErrors.includes(`${r.status} ${r.text.slice(0, 200)}`)) firstErrors.push(`${r.status} ${r.text.slice(0, 200)}`);
            } catch (e) {
              statuses['network'] = (statuses['network'] ?? 0) + 1;
              if (firstErrors.length < 3) firstErrors.push(String((e as Error).message));
            }
          }
        }),
      );
      const submitMs = performance.now() - t0;
      // Deliveries, polled until all arrived or the limit passed.
      const got = new Map<string, number>();
      const end = Date.now() + drainLimitMs;
      let badSignature = 0;
      while (ids.size > 0 && Date.now() < end) {
        const r = JSON.parse((await call(rx, 'GET', '/_results')).text) as { badSignature: number; receipts: Record<string, number> };
        badSignature = r.badSignature; // counted since the last reset
        for (const [id, t] of Object.entries(r.receipts)) if (ids.has(id)) got.set(id, t);
        if (got.size >= ids.size) break;
        await sleep(200);
      }
      const doneMs = performance.now() - t0;
      const cpu1 = instances.slice(0, n).map((i) => cpuMs(i.proc.pid) ?? NaN);
      const pgCpu1 = pgb.cpuMs();
      const svcCpu = cpu1.reduce((a, x, k) => a + x - cpu0[k]!, 0);
      out[n === 1 ? 'oneInstance' : 'twoInstances'] = {
        submitted: next,
        statuses,
        ...(firstErrors.length ? { firstErrors } : {}),
        serviceErrors: serviceErrors(instances),
        acceptedPerSec: round2((ids.size / submitMs) * 1000),
        delivered: got.size,
        // Until the last delivery arrived (or the wait ended): the pipeline's throughput, submissions included.
        deliveredPerSec: round2((got.size / doneMs) * 1000),
        badSignature,
        serviceCpuMsPerDelivered: got.size ? round2(svcCpu / got.size) : null,
        postgresCpuMsPerDelivered: got.size && pgCpu0 !== null && pgCpu1 !== null ? round2((pgCpu1 - pgCpu0) / got.size) : null,
        load1: load1(),
      };
      console.log(`async through ${n} instance(s): ${JSON.stringify(out[n === 1 ? 'oneInstance' : 'twoInstances'])}`);
    }
    return out;
  } catch (e) {
    return { ran: false, reason: (e as Error).message, serviceErrors: serviceErrors(instances) };
  } finally {
    await Promise.all([rx.close(), ...pools.map((p) => p.close())]);
  }
}

/**
 * The error lines an instance logs (LOG_LEVEL=error, JSON), counted by message as they arrive: why a run saw 500s,
 * what the async path ran into. `take()` returns the counts since the last take.
 */
function countErrors(child: Child): { take(): Record<string, number> } {
  let counts: Record<string, number> = {};
  let partial = '';
  const on = (b: Buffer) => {
    const lines = (partial + b.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        const o = JSON.parse(line) as { msg?: string; err?: string | { message?: string } };
        const err = typeof o.err === 'string' ? o.err : (o.err?.message ?? '');
        const k = `${o.msg ?? ''}: ${err}`.slice(0, 160);
        counts[k] = (counts[k] ?? 0) + 1;
      } catch {
        /* not a log line */
      }
    }
  };
  child.proc.stdout!.on('data', on);
  child.proc.stderr!.on('data', on);
  return {
    take() {
      const c = counts;
      counts = {};
      return c;
    },
  };
}

function serviceErrors(instances: Child[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of instances) for (const [k, n] of Object.entries(errorsOf.get(i)?.take() ?? {})) out[k] = (out[k] ?? 0) + n;
  return out;
}
