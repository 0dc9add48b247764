// Benchmark 10 of docs/performance.md: the store's write path alone, in process — the real GroupCommitter with the
// WAL synced off the event loop (store/group-commit.ts, store/wal-sync.ts) on a real SQLite file with the real
// schema, under thousands of small group commits shaped like the sync POST /verify/account's (a verification row,
// with its search-index and table-version triggers, and the stored idempotent answer). 32 clients in a closed loop
// each spend `--work-us` of CPU on the event loop (what the service's request handling costs), then commit and
// wait for durability. Reports, per run: the write's latency (commit() → resolved: what a request waits for), the
// commit → synced latency of each group commit (from the durability observer), the event loop's delay, and the WAL
// over time (file size, frames from the wal-index header, restarts).
//
// BENCH_SERVICE_ROOT=<checkout> runs that tree's committer (its src-main/store) in alternation with this one's, on
// the same schema (this tree's migrations), so before/after is measured back to back under the same load.
// Usage: npx tsx bench/wal-sync.bench.ts [--requests 20000] [--rounds 2] [--work-us 150] [--connections 32] [--other-only]
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { openDatabase, type Db } from '../src-main/store/database';
import type { DurabilityObserver, WritePort } from '../src-main/store/write-port';
import { arg, quantile, root, round2, writeResult } from './lib/harness';

const requests = arg('--requests', 20_000, 6_000);
const rounds = arg('--rounds', 2, 1);
const workUs = arg('--work-us', 150);
const connections = arg('--connections', 32);

interface Committer extends WritePort {
  commit(fn: () => unknown): Promise<void>;
}
type CommitterClass = new (db: Db, o: { offLoopSync?: boolean; observe?: DurabilityObserver; warn?: (m: string) => void }) => Committer;

const now = (): number => Number(process.hrtime.bigint()) / 1e6;

function burn(us: number): void {
  const until = now() + us / 1000;
  while (now() < until) {
    /* the request's own CPU on the loop */
  }
}

/** mxFrame of the wal-index header (https://sqlite.org/walformat.html, "The WAL-Index Header"), or -1. */
function walFrames(shm: number | null): number {
  if (shm === null) return -1;
  const b = Buffer.alloc(4);
  try {
    return readSync(shm, b, 0, 4, 16) === 4 ? b.readUInt32LE(0) : -1;
  } catch {
    return -1;
  }
}

async function runOnce(label: string, tree: string): Promise<Record<string, unknown>> {
  const mod = (await import(pathToFileURL(join(tree, 'src-main', 'store', 'group-commit.ts')).href)) as { GroupCommitter: CommitterClass };
  const dir = mkdtempSync(join(tmpdir(), 'vc-walsync-'));
  const file = join(dir, 'store.sqlite');
  const db = openDatabase(file);
  db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run('org_bench', 'Bench', new Date().toISOString());
  const insertVer = db.prepare(
    `INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode,
       request, result, error_code, charge_amount, charge_currency, charge_status, created_at, completed_at,
       actor_type, actor_id, actor_label, door)
     VALUES (?, 'org_bench', 'sandbox', 'account', 'ACCOUNT_NUMBER', 'NG', ?, 'success', 'sync', ?, ?, NULL, 0, 'USD', 'not_charged', ?, ?,
       'api_key', 'key_bench', 'bench key', 'api')`,
  );
  const insertIdem = db.prepare(
    `INSERT INTO idempotency_keys (scope, idem_key, fingerprint, state, owner, status_code, body, created_at_ms, expires_at_ms)
     VALUES ('org_bench:sandbox', ?, ?, 'done', 'boot', 200, ?, ?, ?)`,
  );

  const committedAt = new Map<number, number>();
  const commitToSynced: number[] = [];
  let lastSynced = 0;
  const observe: DurabilityObserver = {
    committed: (seq) => void committedAt.set(seq, now()),
    synced: (seq) => {
      const t = now();
      for (let s = lastSynced + 1; s <= seq; s++) {
        const at = committedAt.get(s);
        if (at !== undefined) commitToSynced.push(t - at);
        committedAt.delete(s);
      }
      lastSynced = Math.max(lastSynced, seq);
    },
  };
  const warnings: string[] = [];
  // The group transaction's COMMIT, timed on the loop: its WAL writes, and the WAL header's sync when it restarts the WAL.
  const commitMs: number[] = [];
  const restartCommitMs: number[] = [];
  let walFd: number | null = null;
  let lastSeq = -1;
  const seqBuf = Buffer.alloc(4);
  const walSeq = (): number => {
    try {
      walFd ??= openSync(`${file}-wal`, 'r');
      return readSync(walFd, seqBuf, 0, 4, 12) === 4 ? seqBuf.readUInt32BE(0) : -1;
    } catch {
      return -1;
    }
  };
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const st = prepare(sql);
    if (sql !== 'COMMIT') return st;
    const run = st.run.bind(st);
    return Object.assign(Object.create(st) as object, {
      run: (...a: unknown[]) => {
        const t = now();
        try {
          return run(...(a as []));
        } finally {
          const ms = now() - t;
          commitMs.push(ms);
          // A COMMIT that restarted the WAL (the header's checkpoint sequence moved): it also synced the new header.
          const seq = walSeq();
          if (seq !== lastSeq && lastSeq !== -1) restartCommitMs.push(ms);
          lastSeq = seq;
        }
      },
    });
  }) as Db['prepare'];
  const c = new mod.GroupCommitter(db, { offLoopSync: true, observe, warn: (m) => void warnings.push(m) });
  db.prepare = prepare;

  let shm: number | null = null;
  const wal = `${file}-wal`;
  let maxFrames = 0;
  let restarts = 0;
  let prevFrames = 0;
  const timeline: [number, number, number][] = [];
  const t0 = now();
  const sample = (): void => {
    if (shm === null) {
      try {
        shm = openSync(`${file}-shm`, 'r');
      } catch {
        /* not yet */
      }
    }
    const f = walFrames(shm);
    if (f >= 0) {
      if (f < prevFrames) restarts++;
      prevFrames = f;
      maxFrames = Math.max(maxFrames, f);
    }
    let size = 0;
    try {
      size = statSync(wal).size;
    } catch {
      /* none yet */
    }
    timeline.push([Math.round(now() - t0), f, size]);
  };
  const sampler = setInterval(sample, 50);
  const eld = monitorEventLoopDelay({ resolution: 1 });
  eld.enable();

  const writeLatency: number[] = [];
  let sent = 0;
  const load = loadavg()[0]!;
  const client = async (): Promise<void> => {
    while (sent < requests) {
      const n = sent++;
      burn(workUs);
      const id = `ver_${Date.now().toString(16).padStart(12, '0')}${n.toString(16).padStart(12, '0')}`;
      const ts = new Date().toISOString();
      const at = Date.now();
      const body = `{"id":"${id}","status":"success","verified":true,"verificationType":"ACCOUNT_NUMBER","identifier":"${1_000_000_000 + n}","country":"NG","bankCode":"058","environment":"sandbox","mode":"sync","createdAt":"${ts}","completedAt":"${ts}","source":"live","charge":{"amount":0,"currency":"USD","status":"not_charged"},"accountName":"Ada Obi"}`;
      const start = now();
      await c.commit(() => {
        insertVer.run(id, String(1_000_000_000 + n), `{"accountNumber":"${1_000_000_000 + n}","bankCode":"058","country":"NG"}`, body, ts, ts);
        insertIdem.run(crypto.randomUUID(), 'f'.repeat(64), body, at, at + 86_400_000);
      });
      writeLatency.push(now() - start);
      // The answer leaves on a later turn, as an HTTP answer does.
      await new Promise((r) => setImmediate(r));
    }
  };
  const begin = now();
  await Promise.all(Array.from({ length: connections }, client));
  const elapsed = now() - begin;
  clearInterval(sampler);
  sample();
  eld.disable();
  const stats = (c as unknown as { syncer?: { stats?: Record<string, number> } }).syncer?.stats;
  await c.close();
  const walSize = statSync(wal).size;
  db.close();
  if (shm !== null) closeSync(shm);
  if (walFd !== null) closeSync(walFd);
  rmSync(dir, { recursive: true, force: true });

  const q = (xs: number[]) => ({
    p50: round2(quantile(xs, 0.5)),
    p90: round2(quantile(xs, 0.9)),
    p99: round2(quantile(xs, 0.99)),
    max: round2(Math.max(...xs)),
  });
  const r = {
    label,
    load: round2(load),
    loadAfter: round2(loadavg()[0]!),
    writesPerSecond: Math.round((requests / elapsed) * 1000),
    commits: commitToSynced.length,
    write: q(writeLatency),
    commitToSynced: q(commitToSynced),
    commitOnLoop: { p50: round2(quantile(commitMs, 0.5)), p99: round2(quantile(commitMs, 0.99)), max: round2(Math.max(...commitMs)) },
    restartCommitOnLoop: { n: restartCommitMs.length, p50: round2(quantile(restartCommitMs, 0.5)), max: round2(Math.max(0, ...restartCommitMs)) },
    loopDelay: { p99: round2(eld.percentile(99) / 1e6), max: round2(eld.max / 1e6) },
    syncer: stats ? { ...stats } : null,
    wal: { maxFrames, restarts, fileBytesAtEnd: walSize },
    warnings,
  };
  console.log(
    `${label.padEnd(28)} load ${r.load}→${r.loadAfter}  ${r.writesPerSecond}/s  ${r.commits} commits  write p50/p90/p99/max ${r.write.p50}/${r.write.p90}/${r.write.p99}/${r.write.max} ms  ` +
      `commit→synced ${r.commitToSynced.p50}/${r.commitToSynced.p90}/${r.commitToSynced.p99}/${r.commitToSynced.max} ms  COMMIT on loop p50/p99/max ${r.commitOnLoop.p50}/${r.commitOnLoop.p99}/${r.commitOnLoop.max} ms, the ${r.restartCommitOnLoop.n} restarting ones p50/max ${r.restartCommitOnLoop.p50}/${r.restartCommitOnLoop.max} ms  loop delay p99/max ${r.loopDelay.p99}/${r.loopDelay.max} ms  ` +
      `WAL max ${maxFrames} frames, ${restarts} restarts, file ${(walSize / 1048576).toFixed(1)} MiB${stats ? `  ${JSON.stringify(stats)}` : ''}${warnings.length ? `  warnings: ${warnings.join('; ')}` : ''}`,
  );
  if (process.argv.includes('--timeline')) console.log(JSON.stringify(timeline.filter((_, i) => i % 4 === 0)));
  return r;
}

const other = process.env['BENCH_SERVICE_ROOT'];
const trees: [string, string][] = [
  ...(other && process.argv.includes('--other-only') ? [] : [['this tree', root] as [string, string]]),
  ...(other ? [[`before (${other})`, other] as [string, string]] : []),
];
const results: Record<string, unknown>[] = [];
console.log(`${requests} writes per run, ${connections} clients, ${workUs} µs of loop CPU each; load ${loadavg().map(round2).join(' ')}`);
for (let round = 0; round < rounds; round++) {
  // Alternating which tree goes first, so neither always gets the warmer or the quieter slot.
  const order = round % 2 === 0 ? trees : [...trees].reverse();
  for (const [label, tree] of order) results.push(await runOnce(label, tree));
}
writeResult('wal-sync', { requests, connections, workUs, results });
