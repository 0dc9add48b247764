// Diagnostic (docs/performance.md, "The audit chain's check off the event loop"): how long the console's check of an
// organization's audit chain holds the event loop, page by page with its reads on the reader thread (as the console
// runs it, verifyOrganizationChain) against the whole store's chains read in one snapshot and hashed at once (as it
// ran before). A real SQLite file with --entries entries written by appendAudit; a 1 ms timer measures the longest
// the loop went without turning. Alternating, medians of 5.
// Usage: npx tsx bench/lib/audit-verify-loop.ts [75000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src-main/core/clock';
import { appendAudit, readAuditChains, verifyAuditChains, verifyOrganizationChain } from '../../src-main/core/audit/audit-log';
import { openDatabase } from '../../src-main/store/database';
import { ReaderThread } from '../../src-main/store/reader-thread';
import { testDeps } from '../../test/helpers/core-deps';
const N = Number(process.argv[2] ?? 75000);
const dir = mkdtempSync(join(tmpdir(), 'vc-audit-loop-'));
const db = openDatabase(join(dir, 'store.sqlite'));
const deps = testDeps({ db, clock: new ManualClock(Date.parse('2026-11-01T00:00:00Z')) });
db.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org_a', 'A', '2026-01-01T00:00:00.000Z')").run();
for (let i = 0; i < N; i += 500) await deps.sql.transaction(async (tx) => { for (let j = i; j < Math.min(N, i + 500); j++) await appendAudit({ ...deps, sql: tx }, 'org_a', { action: 'verification.completed', target: { type: 'verification', id: `ver_${j}` }, detail: { status: 'success', country: 'NG', amount: 25, currency: 'USD' } }); });
const reader = new ReaderThread({ file: join(dir, 'store.sqlite'), fallback: deps.sql });
async function measure(fn: () => Promise<unknown>) {
  let last = performance.now(); let longest = 0;
  const probe = setInterval(() => { const now = performance.now(); longest = Math.max(longest, now - last); last = now; }, 1);
  const t0 = performance.now(); await fn(); const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 5)); clearInterval(probe);
  return { ms, longest };
}
const old = async () => { const { rows, checkpoints } = await readAuditChains(deps.sql); return verifyAuditChains(rows, checkpoints).find((x) => x.organizationId === 'org_a'); };
const neu = () => verifyOrganizationChain(deps.sql, 'org_a', reader);
await old(); await neu();
const res: Record<string, { ms: number[]; longest: number[] }> = { before: { ms: [], longest: [] }, after: { ms: [], longest: [] } };
for (let i = 0; i < 5; i++) for (const [k, f] of [['before', old], ['after', neu]] as const) { const r = await measure(f); res[k]!.ms.push(r.ms); res[k]!.longest.push(r.longest); }
const med = (a: number[]) => [...a].sort((x, y) => x - y)[2]!.toFixed(1);
console.log(`${N} audit entries; medians of 5, alternating`);
for (const [k, r] of Object.entries(res)) console.log(`  ${k.padEnd(7)} verify ${med(r.ms).padStart(7)} ms; longest the event loop was held ${med(r.longest).padStart(7)} ms`);
await reader.close(); db.close(); rmSync(dir, { recursive: true, force: true });
