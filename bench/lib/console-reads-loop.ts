// Diagnostic (docs/performance.md, "A webhook's deliveries, any page" and the sections after it): how long the
// console's heavier reads hold the event loop on a large store, each as the service runs it (its long reads on the
// reader thread) and with no reader thread (every read on the service's connection, as where no thread can open the
// store; for the reads that only moved to the thread, what they held before). The store is a copy: pass a data
// folder's `verification-console.sqlite` (e.g. one seeded with many checks); it is opened read-write (migrations run)
// but only read. A 1 ms timer measures the longest the loop went without turning. Medians of 3, alternating.
// Usage: npx tsx bench/lib/console-reads-loop.ts <store.sqlite>
import { exportAuditText, listAudit } from '../../src-main/core/audit/audit-log';
import { listUsage } from '../../src-main/core/billing/billing';
import type { CoreDeps } from '../../src-main/core/context';
import { listVerifications } from '../../src-main/core/verification/records';
import { searchVerifications } from '../../src-main/core/verification/search';
import { listDeliveries } from '../../src-main/core/webhooks/deliveries';
import { openDatabase } from '../../src-main/store/database';
import { ReaderThread } from '../../src-main/store/reader-thread';
import { createServicePort } from '../../src-main/store/service-port';
import { testDeps } from '../../test/helpers/core-deps';

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx bench/lib/console-reads-loop.ts <store.sqlite>');
  process.exit(2);
}
const db = openDatabase(file);
const sql = createServicePort(db);
const reader = new ReaderThread({ file, fallback: sql, warn: (m) => console.error(m) });
const onConnection: CoreDeps = testDeps({ db, sql });
const asServed: CoreDeps = { ...onConnection, longReads: reader };

const one = <T>(s: string) => db.prepare(s).get() as T | undefined;
const scope = one<{ o: string; e: string; n: number }>(
  'SELECT organization_id AS o, environment AS e, count(*) AS n FROM verifications GROUP BY 1, 2 ORDER BY n DESC LIMIT 1',
);
const hook = one<{ w: string; n: number }>('SELECT webhook_id AS w, count(*) AS n FROM webhook_deliveries GROUP BY 1 ORDER BY n DESC LIMIT 1');
const audit = one<{ o: string; n: number }>('SELECT organization_id AS o, count(*) AS n FROM audit_events GROUP BY 1 ORDER BY n DESC LIMIT 1');
const usage = one<{ o: string; n: number }>('SELECT organization_id AS o, count(*) AS n FROM usage_records GROUP BY 1 ORDER BY n DESC LIMIT 1');
if (!scope) throw new Error('no checks in this store');
const { o: org, e: env } = scope;
const word = one<{ w: string }>(`SELECT json_extract(result, '$.accountName') AS w FROM verifications WHERE json_extract(result, '$.accountName') IS NOT NULL LIMIT 1`)?.w?.split(' ')[0];

type Read = [label: string, run: (deps: CoreDeps) => Promise<unknown>];
const reads: Read[] = [
  ['History, a type with no checks', (d) => listVerifications(d.sql, org, env, { limit: 20, offset: 0, type: 'address' } as never, d.longReads)],
  ['History, type PHONE, offset 2,000', (d) => listVerifications(d.sql, org, env, { limit: 20, offset: 2000, type: 'PHONE' } as never, d.longReads)],
  ...(word ? [[`History search "${word}" + status failed`, (d: CoreDeps) => searchVerifications(d.sql, org, env, { q: word, status: 'failed', limit: 20, offset: 0 } as never, d.longReads)] as Read] : []),
];
if (hook) {
  const w = db.prepare('SELECT organization_id, environment FROM webhooks WHERE id = ?').get(hook.w) as { organization_id: string; environment: 'sandbox' | 'live' };
  const hookScope = { organizationId: w.organization_id, environment: w.environment };
  reads.push([`Deliveries, last page of ${hook.n}`, (d) => listDeliveries(d, hookScope, hook.w, { limit: 10, offset: Math.max(0, hook.n - 10) })]);
}
if (usage) {
  reads.push([`Usage (${usage.n}), no filter`, (d) => listUsage(d, usage.o, { limit: 20, offset: 0 } as never)]);
  reads.push(['Usage, kind=reversal', (d) => listUsage(d, usage.o, { limit: 20, offset: 0, kind: 'reversal' } as never)]);
}
if (audit) {
  reads.push([`Audit log (${audit.n}), page and total`, (d) => listAudit(d.sql, audit.o, { limit: 50, offset: 0 } as never, d.longReads)]);
  reads.push(['Audit log, filtered by a target', (d) => listAudit(d.sql, audit.o, { limit: 50, offset: 0, target: 'ver_0000000000000001' } as never, d.longReads)]);
  reads.push([`Audit export JSON (${audit.n} entries)`, (d) => exportAuditText(d.sql, audit.o, Date.now(), 'json', d.longReads)]);
}

async function measure(fn: () => Promise<unknown>): Promise<{ ms: number; held: number }> {
  let last = performance.now();
  let held = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    held = Math.max(held, now - last - 1);
    last = now;
  }, 1);
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(probe);
  return { ms, held };
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
console.log(`${scope.n} checks in ${org}/${env}; medians of 3 (the first run of each read warms the cache and is not counted)`);
console.log(`${'read'.padEnd(40)} ${'as served: answer / loop held'.padStart(32)} ${'no reader thread'.padStart(28)}`);
for (const [label, run] of reads) {
  await run(asServed);
  await run(onConnection);
  const a: { ms: number; held: number }[] = [];
  const b: { ms: number; held: number }[] = [];
  for (let i = 0; i < 3; i++) {
    a.push(await measure(() => run(asServed)));
    b.push(await measure(() => run(onConnection)));
  }
  const f = (r: { ms: number; held: number }[]) => `${med(r.map((x) => x.ms)).toFixed(1)} / ${med(r.map((x) => x.held)).toFixed(1)} ms`;
  console.log(`${label.padEnd(40)} ${f(a).padStart(32)} ${f(b).padStart(28)}`);
}
await reader.close();
db.close();
