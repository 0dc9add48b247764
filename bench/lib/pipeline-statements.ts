// Diagnostic for benchmark 3 (docs/performance.md): the SQLite statements per delivered async verification and the
// time SQLite spends in each, in process. The real service (HTTP door, queue worker, dispatcher) on a fresh data
// folder; async sandbox checks POSTed over HTTP by 32 clients and delivered signed to a receiver in this process;
// better-sqlite3's statements are counted by their SQL text (after a warm-up). The times are wall time around each
// call, so they rise with the machine's load; the counts do not.
// Usage: npx tsx bench/lib/pipeline-statements.ts [--count 2000] [--warmup 300] [--top 40] [--width 120] [--by-write] [--keep] [--sync]
//   --width: characters of each statement's text shown (and told apart by).
//   --sync: benchmark 1's path instead: sync sandbox checks (answered 200), statements per request.
//   --by-write: a savepoint's RELEASE is counted by the first statement of its write (the History search index's
//   FTS5 table writes its pending entries when a savepoint ends: that cost shows on the RELEASE).
//   --keep: keep the data folder (its path is printed) to look at the store afterwards.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from '../../src-main/core/orgs/organizations';
import { createWebhook } from '../../src-main/core/webhooks/webhooks-service';
import { startService } from '../../src-main/service';
import { arg, flag } from './harness';

const count = arg('--count', 2_000);
const warmup = arg('--warmup', 300);
const top = arg('--top', 40);
const width = arg('--width', 120);
const byWrite = flag('--by-write');
const sync = flag('--sync');

interface Tally {
  n: number;
  ns: bigint;
  rows: number;
  empty: number;
  emptyNs: bigint;
}
const tallies = new Map<string, Tally>();
let counting = false;
/** The first statement of the group commit's current write (--by-write). */
let firstOfWrite = '';

const proto = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
for (const m of ['run', 'get', 'all', 'iterate'] as const) {
  const orig = proto[m]!;
  proto[m] = function (this: { source: string }, ...args: unknown[]) {
    if (!counting) return orig.apply(this, args);
    const t0 = process.hrtime.bigint();
    let out: unknown;
    try {
      out = orig.apply(this, args);
      return out;
    } finally {
      const dt = process.hrtime.bigint() - t0;
      let key = this.source.replace(/\s+/g, ' ').slice(0, width);
      if (byWrite) {
        if (key.startsWith('RELEASE')) key += ` (write: ${firstOfWrite})`;
        if (key.startsWith('SAVEPOINT vc_group')) firstOfWrite = '';
        else if (!firstOfWrite && !/^(SAVEPOINT|RELEASE|PRAGMA|SELECT)/.test(key)) firstOfWrite = key.slice(0, 40);
      }
      const t = tallies.get(key) ?? { n: 0, ns: 0n, rows: 0, empty: 0, emptyNs: 0n };
      t.n++;
      t.ns += dt;
      const rows = m === 'all' ? ((out as unknown[] | undefined)?.length ?? 0) : m === 'get' ? (out === undefined ? 0 : 1) : 0;
      t.rows += rows;
      if (m !== 'run' && rows === 0) {
        t.empty++;
        t.emptyNs += dt;
      }
      tallies.set(key, t);
    }
  };
}

const received = new Set<string>();
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      received.add((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { verificationId: string }).verificationId);
    } catch {
      /* not an event */
    }
    res.end('ok');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const rxPort = (receiver.address() as { port: number }).port;

const dataDir = mkdtempSync(join(tmpdir(), 'vc-stmts-'));
const service = await startService({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent', rateLimitPerMinute: 0, scryptN: 1024, allowWebhookHosts: [`127.0.0.1:${rxPort}`] });
const org = await bootstrap(service.deps, { email: 'bench@example.com', password: 'benchmark-password' });
const scope = { kind: 'console' as const, organizationId: org.organizationId, environment: 'sandbox' as const, role: 'OWNER' as const };
await createWebhook(service.rt, scope, { url: `http://127.0.0.1:${rxPort}/hook`, events: ['verification.completed', 'verification.failed'] });
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
const url = new URL(service.url!);
const body = JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058', ...(sync ? {} : { mode: 'async' }) });

function post(): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/api/v1/verify/account',
        headers: { 'content-type': 'application/json', 'x-api-key': org.keys.sandbox.key, 'idempotency-key': randomUUID() },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === (sync ? 200 : 202)) resolve((JSON.parse(text) as { id: string }).id);
          else reject(new Error(`POST answered ${res.statusCode}: ${text}`));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function round(n: number): Promise<number> {
  received.clear();
  let next = 0;
  const ids: string[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < n) {
        next++;
        ids.push(await post());
      }
    }),
  );
  const end = Date.now() + 60_000;
  while (!sync && ids.some((id) => !received.has(id))) {
    if (Date.now() > end) throw new Error(`delivered ${received.size} of ${ids.length}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return performance.now() - t0;
}

try {
  await round(warmup);
  counting = true;
  const ms = await round(count);
  counting = false;
  const rows = [...tallies.entries()].sort((a, b) => Number(b[1].ns - a[1].ns));
  let n = 0;
  let ns = 0n;
  for (const [, t] of rows) {
    n += t.n;
    ns += t.ns;
  }
  const us = (t: bigint, d: number) => (Number(t) / 1000 / d).toFixed(1);
  console.log(`${count} verifications ${sync ? 'answered' : 'delivered'} in ${Math.round(ms)} ms (${Math.round((count / ms) * 1000)}/s; service, clients and receiver in one process)`);
  console.log(`statements per verification: ${(n / count).toFixed(2)}; SQLite's time per verification: ${us(ns, count)} µs`);
  console.log('  per check     µs  µs/call  rows/call  empty  µs/empty  statement');
  for (const [sql, t] of rows.slice(0, top)) {
    console.log(
      `${(t.n / count).toFixed(3).padStart(11)} ${us(t.ns, count).padStart(6)} ${us(t.ns, t.n).padStart(8)} ${(t.rows / t.n).toFixed(2).padStart(10)} ${String(t.empty).padStart(6)} ${(t.empty ? us(t.emptyNs, t.empty) : '').padStart(9)}  ${sql}`,
    );
  }
} finally {
  agent.destroy();
  await service.stop();
  receiver.close();
  if (flag('--keep')) console.log(`data folder kept: ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}
