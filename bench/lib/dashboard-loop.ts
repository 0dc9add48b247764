// Diagnostic (docs/performance.md, "Long reads off the event loop"): how long the Dashboard's summary over 30 days
// holds the service's event loop on a large store, with its long reads on the reader thread (as the service runs it)
// and on the service's own connection (as before). A real store seeded with --rows checks (bench/lib/seed.ts: one a
// second, so 500,000 span about six days, all inside the period); a 1 ms timer measures the longest the loop went
// without turning while each summary ran. Alternating, --repeat of each.
// Usage: npx tsx bench/lib/dashboard-loop.ts [--rows 500000] [--repeat 5]
import { rmSync } from 'node:fs';
import { dashboardSummary } from '../../src-main/core/dashboard/dashboard-stats';
import { createCore } from '../../src-main/service';
import { arg, bootstrap, freshDataDir } from './harness';
import { seedVerifications } from './seed';

const rows = arg('--rows', 500_000);
const repeat = arg('--repeat', 5);
const dataDir = freshDataDir();
bootstrap(dataDir);
const { organizationId } = await seedVerifications(dataDir, rows);
const core = await createCore({ dataDir, startWorker: false, logLevel: 'silent', scryptN: 1024 });
try {
  if (!core.deps.longReads) throw new Error('this store has no reader thread');
  const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
  const onLoop = { ...core.deps };
  delete onLoop.longReads;
  const measure = async (deps: typeof core.deps) => {
    let last = performance.now();
    let longest = 0;
    const probe = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    const t0 = performance.now();
    const s = await dashboardSummary(deps, organizationId, 'sandbox', since);
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 5));
    clearInterval(probe);
    return { ms, longest, total: s.verifications.total };
  };
  await measure(core.deps); // warm both connections' caches
  await measure(onLoop);
  const results: Record<string, { ms: number[]; longest: number[] }> = { 'reader thread': { ms: [], longest: [] }, "service's connection": { ms: [], longest: [] } };
  let total = 0;
  for (let i = 0; i < repeat; i++) {
    for (const [name, deps] of [['reader thread', core.deps], ["service's connection", onLoop]] as const) {
      const r = await measure(deps);
      results[name]!.ms.push(r.ms);
      results[name]!.longest.push(r.longest);
      total = r.total;
    }
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(1);
  console.log(`Dashboard summary over 30 days, ${total} checks in the period; medians of ${repeat}`);
  for (const [name, r] of Object.entries(results)) console.log(`  ${name.padEnd(22)} summary ${med(r.ms).padStart(7)} ms; longest the event loop was held ${med(r.longest).padStart(7)} ms`);
} finally {
  await core.close();
  rmSync(dataDir, { recursive: true, force: true });
}
