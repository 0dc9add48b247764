// Diagnostic (docs/performance.md, "A chain read as one walk"): the Audit page's check of an organization's chain
// (verifyOrganizationChain) and its export (exportAuditParts) through the real core — group commit, WAL sync and
// checkpoint threads, the reader thread and its pause — while audit entries are written at a steady rate. A real
// SQLite file with <entries> entries written by appendAudit; three rounds of check then export; prints each one's
// time, the WAL file's largest size (sampled every 50 ms), the writes made so far and the reads the thread answered.
// NO_WALK=1: the reader thread's walk() hidden, so each page waits out a pause as before.
// Usage: npx tsx bench/lib/audit-walk-under-writes.ts [entries 75000] [writes a second 100]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendAudit, exportAuditParts, verifyOrganizationChain } from '../../src-main/core/audit/audit-log';
import { bootstrap } from '../../src-main/core/orgs/organizations';
import { createCore } from '../../src-main/service';

const N = Number(process.argv[2] ?? 75000);
const rate = Number(process.argv[3] ?? 100);
const dir = mkdtempSync(join(tmpdir(), 'vc-audit-walk-'));
const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent', scryptN: 1024 });
const deps = core.deps;
const org = await bootstrap(deps, { email: 'audit@walk.test', password: 'correct horse battery staple' });
for (let i = 0; i < N; i += 1000) {
  await deps.sql.transaction(async (tx) => {
    for (let j = i; j < Math.min(N, i + 1000); j++) {
      await appendAudit({ ...deps, sql: tx }, org.organizationId, { action: 'verification.live_check', target: { type: 'verification', id: `ver_${j}` }, detail: { kind: 'account', country: 'NG' } });
    }
  });
}
console.log(`seeded ${N} entries; writing ${rate} a second`);
let stop = false;
let writes = 0;
const writing = (async () => {
  while (!stop) {
    const t = performance.now();
    await deps.sql.transaction((tx) => appendAudit({ ...deps, sql: tx }, org.organizationId, { action: 'verification.live_check', target: { type: 'verification', id: `w_${writes}` }, detail: {} }));
    writes++;
    const wait = 1000 / rate - (performance.now() - t);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
})();
const reads = deps.longReads!;
if (process.env['NO_WALK']) (reads as { walk?: unknown }).walk = undefined;
let walMax = 0;
const wal = join(dir, 'verification-console.sqlite-wal');
const sampler = setInterval(() => {
  try {
    walMax = Math.max(walMax, statSync(wal).size);
  } catch {
    // not there yet
  }
}, 50);
await new Promise((r) => setTimeout(r, 1000));
try {
  for (let i = 0; i < 3; i++) {
    let t = performance.now();
    const v = await verifyOrganizationChain(deps.sql, org.organizationId, reads);
    const checkMs = performance.now() - t;
    t = performance.now();
    const x = await exportAuditParts(deps.sql, org.organizationId, Date.now(), 'json', reads);
    const exportMs = performance.now() - t;
    const served = (reads as { served?: unknown }).served;
    console.log(`check ${checkMs.toFixed(0)} ms (ok ${v.ok}); export ${exportMs.toFixed(0)} ms (${x.entries} entries); WAL largest ${(walMax / 1048576).toFixed(1)} MiB; writes ${writes}; thread reads ${JSON.stringify(served)}`);
  }
} finally {
  stop = true;
  clearInterval(sampler);
  await writing;
  await core.close();
  rmSync(dir, { recursive: true, force: true });
}
