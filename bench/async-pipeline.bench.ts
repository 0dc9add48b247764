// Benchmark 3 of docs/performance.md: the async pipeline end to end. Async sandbox verifications go through the
// real headless service (202, durable queue, provider, outbox) and arrive signed at a local receiver process.
// Phase 1 offers a steady 1,000/s (after a warm-up at that rate) and measures submit→receipt latency (target p99 ≤
// 100 ms); phase 2 submits N as fast as possible (accepted/s, delivered/s). Waits are bounded, so the run ends by
// itself (~70 s, --quick ~25 s).
// Usage: npx tsx bench/async-pipeline.bench.ts [--quick] [--count 10000] [--burst-seconds 20] [--rate 1000] [--seconds 5] [--warmup-seconds 2] [--tsx]
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { arg, bootstrap, cpuMs, freshDataDir, quantile, round2, serviceEntry, sleep, startChild, startService, writeResult } from './lib/harness';
import { addKeys } from './lib/seed';

const count = arg('--count', 10_000, 1_000);
const rate = arg('--rate', 1_000);
const steadySeconds = arg('--seconds', 5, 2);
const warmupSeconds = arg('--warmup-seconds', 2, 1);
const drainLimitMs = arg('--drain-seconds', 30, 10) * 1000;
const concurrency = arg('--connections', 32);
// The burst stops early once this long has passed, so a slow pipeline cannot make the run unbounded.
const burstLimitMs = arg('--burst-seconds', 20, 8) * 1000;
const nowMs = () => performance.timeOrigin + performance.now();

const dataDir = freshDataDir();
const { sandboxKey } = bootstrap(dataDir);
// Spread over keys: the per-key budget (6,000/min) is policy, not cost.
const keys = [sandboxKey, ...(await addKeys(dataDir, 15))];
const receiver = await startChild(['bench/lib/receiver.mjs'], /PORT (\d+)/);
// BENCH_CPU_PROF_DIR=<dir> profiles the service (written when it exits; summarise with bench/lib/profile-summary.ts).
const profDir = process.env['BENCH_CPU_PROF_DIR'];
const service = await startService(dataDir, ['--allow-webhook-host', `127.0.0.1:${receiver.port}`], profDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] } : {});
const api = new Pool(`http://127.0.0.1:${service.port}`, { connections: concurrency, pipelining: 1 });
const rx = new Pool(`http://127.0.0.1:${receiver.port}`, { connections: 2 });
let turn = 0;

async function json(pool: Pool, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const r = await pool.request({
    method,
    path,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await r.body.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* plain text */
  }
  return { status: r.statusCode, body: parsed };
}

const REQUEST = JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058', mode: 'async' });

/** Submits one async verification; returns its id and when it was sent, or null when refused. */
async function submit(): Promise<{ id: string; sentMs: number } | null> {
  const sentMs = nowMs();
  const r = await api.request({
    method: 'POST',
    path: '/api/v1/verify/account',
    headers: { 'content-type': 'application/json', 'x-api-key': keys[turn++ % keys.length]!, 'idempotency-key': randomUUID() },
    body: REQUEST,
  });
  const body = (await r.body.json()) as { id?: string };
  return r.statusCode === 202 && body.id ? { id: body.id, sentMs } : null;
}

/** Polls the receiver until every id has arrived or the limit passes; returns receipt times by id. */
async function collect(ids: Set<string>, limitMs: number): Promise<Map<string, number>> {
  const got = new Map<string, number>();
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    const r = (await json(rx, 'GET', '/_results')).body as { receipts: Record<string, number> };
    for (const [id, t] of Object.entries(r.receipts)) if (ids.has(id)) got.set(id, t);
    if (got.size >= ids.size) break;
    await sleep(100);
  }
  return got;
}

let result: Record<string, unknown> | undefined;
try {
  const hook = await json(api, 'POST', '/api/v1/client/webhooks', { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['verification.completed', 'verification.failed'] }, { 'x-api-key': sandboxKey });
  if (hook.status !== 201) throw new Error(`webhook registration failed: ${JSON.stringify(hook.body)}`);
  await json(rx, 'POST', '/_secret', (hook.body as { secret: string }).secret);

  // Phase 1: an open-loop steady rate; each tick sends what is due, so a slow answer does not slow the offer.
  // A warm-up at the same rate first: a service that has just started compiles its code paths (V8) while it
  // serves, and the backlog of that first second or two would otherwise be most of the measured tail. Its figures
  // are reported too (`warmup`, the cold start).
  let phaseBad = 0;
  async function steadyPhase(seconds: number) {
    await json(rx, 'POST', '/_reset');
    const steadySent = new Map<string, number>();
    const pending: Promise<void>[] = [];
    const total = rate * seconds;
    const start = nowMs();
    let issued = 0;
    while (issued < total) {
      const due = Math.min(total, Math.floor(((nowMs() - start) / 1000) * rate));
      for (; issued < due; issued++) {
        pending.push(
          submit().then((s) => {
            if (s) steadySent.set(s.id, s.sentMs);
          }),
        );
      }
      await sleep(2);
    }
    const offeredFor = (nowMs() - start) / 1000;
    // Answers still queued after the drain limit are given up (counted as not accepted), so the run stays bounded.
    await Promise.race([Promise.all(pending), sleep(drainLimitMs)]);
    const steadyGot = await collect(new Set(steadySent.keys()), drainLimitMs);
    const lat = [...steadyGot.entries()].map(([id, t]) => t - steadySent.get(id)!);
    phaseBad += ((await json(rx, 'GET', '/_results')).body as { badSignature: number }).badSignature;
    return {
      offeredPerSec: rate,
      achievedOfferPerSec: round2(total / offeredFor),
      offered: total,
      accepted: steadySent.size,
      delivered: steadyGot.size,
      latencyMs: { p50: round2(quantile(lat, 0.5)), p99: round2(quantile(lat, 0.99)), max: round2(Math.max(...lat)) },
    };
  }
  const warmup = warmupSeconds > 0 ? await steadyPhase(warmupSeconds) : null;
  console.log('warmup', warmup);
  const steady = await steadyPhase(steadySeconds);
  console.log('steady', steady);
  const steadyBad = phaseBad;
  // Phase 2: as fast as possible with `concurrency` requests in flight (after the steady phase, whose latencies
  // would otherwise include this burst's backlog).
  await json(rx, 'POST', '/_reset');
  const sent = new Map<string, number>();
  let refused = 0;
  // CPU per delivered verification (bench/lib/harness.ts cpuMs): steadier than throughput on a shared machine.
  const cpu0 = cpuMs(service.proc.pid);
  const loop0 = cpuMs(service.proc.pid, true);
  const t0 = nowMs();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count && nowMs() - t0 < burstLimitMs) {
        next++;
        const s = await submit();
        if (s) sent.set(s.id, s.sentMs);
        else refused++;
      }
    }),
  );
  const submitMs = nowMs() - t0;
  const got = await collect(new Set(sent.keys()), drainLimitMs);
  const lastReceipt = Math.max(...got.values());
  const burst = {
    submitted: next,
    stoppedEarly: next < count,
    accepted: sent.size,
    refused,
    acceptedPerSec: round2(sent.size / (submitMs / 1000)),
    delivered: got.size,
    deliveredPerSec: got.size > 0 ? round2(got.size / ((lastReceipt - t0) / 1000)) : 0,
    allDelivered: got.size === sent.size,
    serviceCpuMsPerVerification: cpu0 === null || got.size === 0 ? null : round2((cpuMs(service.proc.pid)! - cpu0) / got.size),
    /** The service's main thread (the event loop) only. */
    loopCpuMsPerVerification: loop0 === null || got.size === 0 ? null : round2((cpuMs(service.proc.pid, true)! - loop0) / got.size),
  };
  console.log('burst', burst);

  result = {
    benchmark: 'async pipeline: POST /verify/account mode=async → signed webhook at a local receiver',
    service: serviceEntry().label,
    burst,
    warmup,
    steady,
    badSignatures: steadyBad + ((await json(rx, 'GET', '/_results')).body as { badSignature: number }).badSignature,
    targets: { p99Ms: 100, atOfferedPerSec: 1000 },
    met: steady.latencyMs.p99 <= 100 && steady.delivered === steady.accepted,
  };
} finally {
  await api.destroy();
  await rx.destroy();
  await Promise.all([service.stop(), receiver.stop()]);
}
if (!result) throw new Error('no result');
writeResult('async-pipeline', result);
console.log(`steady ${rate}/s: p99 ${(result['steady'] as { latencyMs: { p99: number } }).latencyMs.p99} ms (target ≤ 100)`);
