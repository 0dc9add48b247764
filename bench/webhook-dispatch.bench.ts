// Benchmark 4 of docs/performance.md: webhook dispatch alone. The real dispatcher (claim and lease, signed POST
// through the SSRF-guarded agent, durable attempt log: synchronous=FULL's guarantee, the sync off the loop) runs in
// this process on a fresh store and delivers a backlog of N events to a receiver process, at concurrency 1, 16 and
// 64. The events are written as the service writes them (insertFannedOutEvent: each with its delivery, in the
// transaction that makes it true), before the dispatcher starts, so it claims them as after a receiver's outage;
// `--fan-out` writes bare outbox events instead, which the dispatcher fans out itself (the path of events an older
// version left in the outbox, and what this benchmark measured until 27 Nov 2026). Baseline: plain undici
// posting the same bodies to the same receiver at the same concurrency. Medians over rounds; writes results.
// One endpoint only: the dispatcher's per-endpoint limit is set to the concurrency measured, so each level measures
// the dispatcher at that many attempts at once; one more row measures concurrency 64 with the default limits, what one
// quick endpoint gets in the service (48 at once while responsive; 8 once slow), against plain undici at 48.
// Beside them, as context and not as the target (like benchmark 1's durable baseline): the least a durable, signed
// dispatcher does on the same disk (bench/lib/durable-dispatch-baseline.ts: sign, post, one UPDATE per answer in a
// group commit made durable by an fdatasync of the WAL), at the same concurrency as undici.
// Usage: npx tsx bench/webhook-dispatch.bench.ts [--quick] [--events 2000] [--rounds 3] [--fan-out]
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { iso } from '../src-main/core/clock';
import { bootstrap } from '../src-main/core/orgs/organizations';
import { insertFannedOutEvent } from '../src-main/core/webhooks/deliveries';
import { createWebhook } from '../src-main/core/webhooks/webhooks-service';
import { PER_ENDPOINT_DEFAULT, WebhookDispatcher } from '../src-main/jobs/webhook-dispatcher';
import { createCore } from '../src-main/service';
import { durableDispatchBaseline } from './lib/durable-dispatch-baseline';
import { arg, cpuMs, flag, freshDataDir, median, ratio, round2, sleep, startChild, writeResult } from './lib/harness';

const events = arg('--events', 2_000, 400);
const rounds = arg('--rounds', 3, 1);
const levels = [1, 16, 64];
const bareOutbox = flag('--fan-out');
const nowMs = () => performance.timeOrigin + performance.now();

const receiver = await startChild(['bench/lib/receiver.mjs'], /PORT (\d+)/);
const rxBase = `http://127.0.0.1:${receiver.port}`;
const control = new Pool(rxBase, { connections: 1 });
async function rx(path: string, body?: string): Promise<{ received: number; badSignature: number }> {
  const r = await control.request({ method: body === undefined ? 'GET' : 'POST', path, ...(body === undefined ? {} : { body }) });
  const text = await r.body.text();
  return path === '/_results' ? (JSON.parse(text) as { received: number; badSignature: number }) : { received: 0, badSignature: 0 };
}

const core = await createCore({ dataDir: freshDataDir(), startWorker: false, logLevel: 'silent', scryptN: 1024, allowWebhookHosts: [`127.0.0.1:${receiver.port}`] });
const org = await bootstrap(core.deps, { email: 'bench@example.com', password: 'benchmark-password' });
const scope = { kind: 'console' as const, organizationId: org.organizationId, environment: 'sandbox' as const, role: 'OWNER' as const };
const hook = await createWebhook(core.rt, scope, { url: `${rxBase}/hook`, events: ['verification.completed'] });
await rx('/_secret', hook.secret);

/** A body shaped like a real completion event (same size as the pipeline's). */
function payload(i: number): string {
  const id = `ver_bench${String(i).padStart(8, '0')}`;
  return JSON.stringify({
    event: 'verification.completed',
    verificationId: id,
    organizationId: org.organizationId,
    timestamp: iso(Date.now()),
    data: {
      id, status: 'success', verified: true, verificationType: 'ACCOUNT_NUMBER', identifier: '0123456789', country: 'NG',
      accountName: 'ADAEZE OKAFOR', bankName: 'Guaranty Trust Bank', environment: 'sandbox', mode: 'async',
      createdAt: iso(Date.now()), completedAt: iso(Date.now()), source: 'live', charge: { amount: 0, currency: 'USD', status: 'not_charged' },
    },
  });
}
const bodies = Array.from({ length: events }, (_, i) => payload(i));
const durable = durableDispatchBaseline({ dir: freshDataDir(), origin: rxBase, path: '/hook', secret: hook.secret, bodies });

async function enqueueEvents(): Promise<void> {
  const nowMs = Date.now();
  const at = iso(nowMs);
  await core.deps.sql.transaction(async (tx) => {
    for (let i = 0; i < bodies.length; i++) {
      const e = { id: `evt_${randomUUID()}`, organization_id: org.organizationId, environment: 'sandbox', event_type: 'verification.completed', verification_id: `ver_bench${i}`, payload: bodies[i]!, created_at: at };
      if (!bareOutbox) await insertFannedOutEvent(tx, e, nowMs);
      else {
        await tx.run(
          `INSERT INTO outbox_events (id, organization_id, environment, event_type, verification_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [e.id, e.organization_id, e.environment, e.event_type, e.verification_id, e.payload, e.created_at],
        );
      }
    }
  });
}

async function waitReceived(n: number, limitMs: number): Promise<number> {
  const end = Date.now() + limitMs;
  for (;;) {
    const r = await rx('/_results');
    if (r.received >= n || Date.now() > end) return r.received;
    await sleep(20);
  }
}

/** This process's event-loop CPU (ms, /proc; null elsewhere): per delivery and per plain post, steadier than rates. */
const loopCpu = () => cpuMs(process.pid, true);

/** `perEndpoint` undefined: the dispatcher's default limits (a responsive endpoint may hold 48 of 64 slots). */
async function dispatchRound(concurrency: number, perEndpoint: number | undefined): Promise<{ perSec: number; bad: number; cpuUs: number | null }> {
  await rx('/_reset');
  await enqueueEvents();
  const d = new WebhookDispatcher(core.rt, { concurrency, pollMs: 20, ...(perEndpoint === undefined ? {} : { perEndpoint }) });
  const cpu0 = loopCpu();
  const t0 = nowMs();
  d.start();
  const got = await waitReceived(events, 60_000);
  const ms = nowMs() - t0;
  const cpu1 = loopCpu();
  await d.stop();
  if (got < events) throw new Error(`dispatcher delivered ${got} of ${events}`);
  return { perSec: (events / ms) * 1000, bad: (await rx('/_results')).badSignature, cpuUs: cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1000) / events };
}

async function undiciRound(concurrency: number): Promise<{ perSec: number; cpuUs: number | null }> {
  await rx('/_reset');
  const pool = new Pool(rxBase, { connections: concurrency });
  let next = 0;
  const cpu0 = loopCpu();
  const t0 = nowMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < events) {
        const body = bodies[next++]!;
        const r = await pool.request({ method: 'POST', path: '/hook', headers: { 'content-type': 'application/json' }, body });
        await r.body.text();
      }
    }),
  );
  const ms = nowMs() - t0;
  const cpu1 = loopCpu();
  await pool.close();
  return { perSec: (events / ms) * 1000, cpuUs: cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1000) / events };
}

/** The durable baseline's round: its rate, its loop CPU per delivery, and the receiver's count of bad signatures. */
async function durableRound(concurrency: number): Promise<{ perSec: number; bad: number; cpuUs: number | null }> {
  await rx('/_reset');
  const cpu0 = loopCpu();
  const { perSec } = await durable.round(concurrency);
  const cpu1 = loopCpu();
  const r = await rx('/_results');
  if (r.received < events) throw new Error(`the durable baseline delivered ${r.received} of ${events}`);
  return { perSec, bad: r.badSignature, cpuUs: cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1000) / events };
}

const table: Record<
  string,
  { dispatcher: number; undici: number; ratio: number; durable: number; durableRatio: number; cpuUsPerDelivery: number; cpuUsPerPost: number; cpuUsDurable: number }
> = {};
let badSignatures = 0;
try {
  const rows = [...levels.map((c) => ({ name: `concurrency ${c}`, c, perEndpoint: c, undiciC: c })),
    { name: `concurrency 64, default per-endpoint limits (48 responsive, ${PER_ENDPOINT_DEFAULT} slow)`, c: 64, perEndpoint: undefined, undiciC: 48 }];
  for (const { name, c, perEndpoint, undiciC } of rows) {
    const d: number[] = [];
    const b: number[] = [];
    const dCpu: number[] = [];
    const bCpu: number[] = [];
    const m: number[] = [];
    const mCpu: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const u = await undiciRound(undiciC);
      b.push(u.perSec);
      bCpu.push(u.cpuUs ?? NaN);
      const du = await durableRound(undiciC);
      m.push(du.perSec);
      mCpu.push(du.cpuUs ?? NaN);
      badSignatures += du.bad;
      const out = await dispatchRound(c, perEndpoint);
      d.push(out.perSec);
      dCpu.push(out.cpuUs ?? NaN);
      badSignatures += out.bad;
    }
    table[name] = {
      dispatcher: round2(median(d)),
      undici: round2(median(b)),
      ratio: ratio(median(d), median(b)),
      durable: round2(median(m)),
      durableRatio: ratio(median(m), median(b)),
      // Event-loop CPU of this process per delivery / per plain post (the receiver runs in its own process).
      cpuUsPerDelivery: Math.round(median(dCpu)),
      cpuUsPerPost: Math.round(median(bCpu)),
      cpuUsDurable: Math.round(median(mCpu)),
    };
  }
} finally {
  await control.close();
  durable.close();
  await core.close();
  await receiver.stop();
}
console.table(table);
writeResult('webhook-dispatch', {
  benchmark: 'webhook dispatch alone: deliveries/s to a local receiver vs plain undici posting the same bodies',
  events,
  backlog: bareOutbox ? 'bare outbox events, fanned out by the dispatcher (--fan-out)' : 'events written with their deliveries (insertFannedOutEvent), claimed by the dispatcher',
  rounds,
  levels: table,
  badSignatures,
});
