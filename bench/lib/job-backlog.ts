// Diagnostic (docs/performance.md, "Job claims that do not read the queue"): what the job queue's claim and its next
// due time cost when many jobs are queued (a burst or a batch of async checks waiting for the worker), on a real
// store with the real schema: SQLite (the service's data folder) or, with --postgres, a throw-away PostgreSQL (as
// benchmark 11). Each claim's leases are given back after it (not timed), so every round finds the same queue.
// --drain N: instead, N async sandbox checks are submitted with the worker stopped, then a service with its worker
// is started on the store and timed until every check is done (wall time and the process's CPU): the queue drained.
// Usage: npx tsx bench/lib/job-backlog.ts [--rows 50000] [--repeat 20] [--postgres] [--drain 20000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authenticateApiKey } from '../../src-main/core/keys/keys-service';
import { bootstrap } from '../../src-main/core/orgs/organizations';
import { VERIFICATION_JOB, SYNC_GUARD_JOB } from '../../src-main/core/verification/engine';
import { submitOnce } from '../../src-main/core/verification/verification-service';
import { claim, nextRunAt } from '../../src-main/jobs/queue';
import { createCore } from '../../src-main/service';
import { arg, flag } from './harness';
import { migrate, startBenchPostgres } from './pg-bench';

const rows = arg('--rows', 50_000);
const repeat = arg('--repeat', 20);
const dir = mkdtempSync(join(tmpdir(), 'vc-jobs-'));
const pgb = flag('--postgres') ? await startBenchPostgres() : null;
if (pgb) migrate(pgb.url);
const store = pgb ? { databaseUrl: pgb.url } : {};
const drain = arg('--drain', 0);
if (drain > 0) {
  try {
    await drainQueue(drain);
  } finally {
    await pgb?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}

async function drainQueue(n: number): Promise<void> {
  const idle = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent', scryptN: 1024, rateLimitPerMinute: 0, ...store });
  const org = await bootstrap(idle.deps, { email: 'drain@example.com', password: 'correct horse battery staple' });
  const principal = await authenticateApiKey(idle.deps, org.keys.sandbox.key);
  const request = { country: 'NG', accountNumber: '0123456789', bankCode: '058', mode: 'async' } as const;
  for (let i = 0; i < n; i += 256) {
    await Promise.all(Array.from({ length: Math.min(256, n - i) }, () => submitOnce(idle.rt.verification, principal, 'account', request)));
  }
  await idle.close();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const core = await createCore({ dataDir: dir, logLevel: 'silent', scryptN: 1024, rateLimitPerMinute: 0, ...store });
  for (;;) {
    const row = await core.deps.sql.get<{ n: number }>(`SELECT count(*) AS n FROM jobs WHERE kind = ? AND state = 'done'`, [VERIFICATION_JOB]);
    if (row!.n >= n) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await core.close();
  console.log(`engine: ${store.databaseUrl ? 'postgres' : 'sqlite'}; ${n} queued async checks done in ${ms.toFixed(0)} ms (${((n / ms) * 1000).toFixed(0)}/s), ` +
    `process CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms (${((cpu.user + cpu.system) / n).toFixed(0)} µs per check)`);
}

const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent', scryptN: 1024, ...store });
try {
  const { sql, clock } = core.deps;
  const kinds = [VERIFICATION_JOB, SYNC_GUARD_JOB];
  const now = clock.now();
  for (let i = 0; i < rows; i += 5_000) {
    await sql.transaction(async (tx) => {
      for (let j = i; j < Math.min(rows, i + 5_000); j++) {
        await tx.run(
          `INSERT INTO jobs (id, kind, payload, state, run_at_ms, max_attempts, created_at_ms, updated_at_ms) VALUES (?, ?, ?, 'queued', ?, 20, ?, ?)`,
          [`job_b${j}`, VERIFICATION_JOB, JSON.stringify({ verificationId: `ver_b${j}` }), now - rows + j, now, now],
        );
      }
    });
  }
  if (pgb) await sql.run('ANALYZE jobs');
  const unlease = () => sql.transaction((tx) => tx.run(`UPDATE jobs SET state = 'queued', lease_token = NULL, lease_until_ms = NULL, attempts = 0 WHERE state = 'leased'`));
  const ms = async (f: () => Promise<unknown>, reset = true) => {
    let total = 0n;
    for (let i = 0; i <= repeat; i++) {
      const t0 = process.hrtime.bigint();
      await f();
      if (i > 0) total += process.hrtime.bigint() - t0; // the first round warms the statements up
      if (reset) await unlease();
    }
    return (Number(total) / 1e6 / repeat).toFixed(2);
  };
  const results: Record<string, string> = {};
  results[`claim of 32 (${rows} queued, all due)`] = await ms(() => claim(sql, clock.now(), kinds, 60_000, 32));
  results['claim of 1'] = await ms(() => claim(sql, clock.now(), kinds, 60_000, 1));
  results['next due time'] = await ms(() => nextRunAt(sql, kinds));
  // Leases are read one by one (a walk of those in flight: at most the workers' slots on every instance); so many
  // as to be seen, every job but one leased.
  await sql.transaction((tx) => tx.run(`UPDATE jobs SET state = 'leased', lease_until_ms = ? WHERE id <> 'job_b0'`, [now + 3_600_000]));
  results[`next due time, ${rows - 1} leased (far more than run at once)`] = await ms(() => nextRunAt(sql, kinds), false);
  console.log(`engine: ${sql.engine}${pgb ? ` (${pgb.description})` : ''}; ms per call (event loop and store), mean of ${repeat}`);
  for (const [k, v] of Object.entries(results)) console.log(`${v.padStart(9)}  ${k}`);
} finally {
  await core.close();
  await pgb?.stop();
  rmSync(dir, { recursive: true, force: true });
}
