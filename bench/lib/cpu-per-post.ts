// Event-loop CPU per sync POST /verify/account, this tree against another checkout's build (BENCH_SERVICE_ROOT),
// alternating, each round on a fresh data folder: a warm-up load, the measured load, then a settle period counted
// in a second figure, so work a service defers past its answers (migration 20's search indexer) is paid for.
// Prints, per round and tree: req/s, p99, the main thread's and the whole process's CPU per request over the load
// alone and over load + settle, the bytes the process wrote per request over load + settle (/proc/<pid>/io wchar:
// the WAL frames and the checkpoints' copies), the load average, and (this tree) whether the search index had
// caught up.
// Usage: BENCH_SERVICE_ROOT=<checkout with out/> npx tsx bench/lib/cpu-per-post.ts [--rounds 3] [--seconds 5] [--settle-ms 1000]
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { arg, bootstrap, cpuMs, freshDataDir, serviceEntry, sleep, startService } from './harness';
import { addKeys } from './seed';

const rounds = arg('--rounds', 3);
const seconds = arg('--seconds', 5);
const settleMs = arg('--settle-ms', 1000);
const other = process.env['BENCH_SERVICE_ROOT'];
if (!other) throw new Error('set BENCH_SERVICE_ROOT to the checkout to compare with (built: out/main/headless.js)');

/** Bytes the process has written through write(2) and friends (Linux; 0 elsewhere). */
function written(pid: number | undefined): number {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

async function once(root: string | undefined): Promise<Record<string, unknown>> {
  if (root) process.env['BENCH_SERVICE_ROOT'] = root;
  else delete process.env['BENCH_SERVICE_ROOT'];
  const label = serviceEntry().label;
  const dataDir = freshDataDir();
  const { sandboxKey } = bootstrap(dataDir);
  const keys = [sandboxKey, ...(await addKeys(dataDir, 63))];
  const svc = await startService(dataDir);
  const pid = svc.proc.pid;
  let turn = 0;
  const run = (duration: number) =>
    autocannon({
      url: `http://127.0.0.1:${svc.port}/api/v1/verify/account`,
      connections: 32,
      duration,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058' }),
          setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-api-key': keys[turn++ % keys.length]!, 'idempotency-key': randomUUID() } }),
        },
      ],
    });
  try {
    await run(1);
    await sleep(settleMs);
    const load = loadavg()[0]!.toFixed(2);
    const [c0, l0, w0] = [cpuMs(pid)!, cpuMs(pid, true)!, written(pid)];
    const r = await run(seconds);
    const [c1, l1] = [cpuMs(pid)!, cpuMs(pid, true)!];
    await sleep(settleMs);
    const [c2, l2, w2] = [cpuMs(pid)!, cpuMs(pid, true)!, written(pid)];
    const n = r.requests.total;
    let caughtUp: string = 'n/a';
    const db = new Database(join(dataDir, 'verification-console.sqlite'), { readonly: true });
    try {
      const has = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'verification_search_state'").get();
      if (has) {
        const s = db.prepare('SELECT (SELECT indexed_through FROM verification_search_state) AS w, (SELECT max(rowid) FROM verifications) AS m, (SELECT count(*) FROM verification_search_dirty) AS d').get() as { w: number; m: number; d: number };
        caughtUp = s.w >= s.m && s.d === 0 ? 'yes' : `no (${s.m - s.w} rows, ${s.d} dirty)`;
      }
    } finally {
      db.close();
    }
    return {
      tree: label,
      load,
      rps: Math.round(r.requests.average),
      p99Ms: r.latency.p99,
      non2xx: r.non2xx,
      loopUs: Math.round(((l1 - l0) * 1000) / n),
      loopUsWithSettle: Math.round(((l2 - l0) * 1000) / n),
      processUs: Math.round(((c1 - c0) * 1000) / n),
      processUsWithSettle: Math.round(((c2 - c0) * 1000) / n),
      writtenBytesPerRequest: Math.round((w2 - w0) / n),
      indexCaughtUp: caughtUp,
    };
  } finally {
    await svc.stop();
  }
}

const rows: Record<string, unknown>[] = [];
for (let i = 0; i < rounds; i++) {
  for (const root of i % 2 === 0 ? [other, undefined] : [undefined, other]) {
    const row = await once(root);
    rows.push(row);
    console.log(JSON.stringify(row));
  }
}
console.table(rows);
