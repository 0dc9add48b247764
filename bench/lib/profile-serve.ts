// Profiles `vconsole serve` under load: starts it with --cpu-prof, drives sync POST /verify/account (or a GET)
// with autocannon, stops it with SIGINT so the profile is written, and prints the profile summary.
// --postgres: the service on a throw-away PostgreSQL (bench/lib/pg-bench.ts, as benchmark 11), with
// --drop-table-versions the same experiment.
// Usage: npx tsx bench/lib/profile-serve.ts [--seconds 10] [--connections 32] [--get] [--postgres [--drop-table-versions]] [--tsx]
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg, bootstrap, flag, freshDataDir, serviceEntry, startService } from './harness';
import { summarise } from './profile-summary';
import { bootstrapPostgres, dropTableVersionTriggers, migrate, startBenchPostgres } from './pg-bench';
import { addKeys, seedVerifications } from './seed';

const seconds = arg('--seconds', 10);
const connections = arg('--connections', 32);
const profDir = mkdtempSync(join(tmpdir(), 'vc-prof-'));
const dataDir = freshDataDir();
const pgb = flag('--postgres') ? await startBenchPostgres() : null;
let keys: string[];
if (pgb) {
  migrate(pgb.url);
  keys = (await bootstrapPostgres(pgb.url, 64)).sandboxKeys;
  if (flag('--drop-table-versions')) await dropTableVersionTriggers(pgb.url);
} else {
  // Spread over keys: the per-key budget (6,000/min) is policy; one key would measure 429s.
  const { sandboxKey } = bootstrap(dataDir);
  keys = [sandboxKey, ...(await addKeys(dataDir, 63))];
}
const sandboxKey = keys[0]!;
let turn = 0;
const nextKey = () => keys[turn++ % keys.length]!;
if (flag('--list')) await seedVerifications(dataDir, arg('--rows', 100_000));
if (pgb && flag('--list')) throw new Error('--list seeds a SQLite store: not with --postgres');
// On PostgreSQL `serve` may not reach its own SIGINT handler (in this tree its start-up summary's first-organization
// query still uses SQLite's rowid and fails after the listener is up): exit on SIGINT, which writes the profile.
const exitOnSigint = pgb ? ['--import', "data:text/javascript,process.on('SIGINT',()=>process.exit(0))"] : [];
const svc = await startService(dataDir, pgb ? ['--database', pgb.url] : [], { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`, ...exitOnSigint] });
const base = `http://127.0.0.1:${svc.port}/api/v1`;
let getId = '';
if (flag('--get') && !flag('--list')) {
  const r = await fetch(`${base}/verify/account`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': sandboxKey, 'idempotency-key': randomUUID() },
    body: JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058' }),
  });
  getId = ((await r.json()) as { id: string }).id;
}
const r = await autocannon({
  url: flag('--list') ? `${base}/verify?limit=100` : flag('--get') ? `${base}/verify/${getId}` : `${base}/verify/account`,
  connections,
  duration: seconds,
  requests: [
    flag('--get') || flag('--list')
      ? { method: 'GET', headers: { 'x-api-key': sandboxKey }, setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-api-key': nextKey() } }) }
      : {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': sandboxKey },
          body: JSON.stringify({ country: 'NG', accountNumber: '0123456789', bankCode: '058' }),
          setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-api-key': nextKey(), 'idempotency-key': randomUUID() } }),
        },
  ],
});
console.log(`${serviceEntry().label}: ${r.requests.average} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, non2xx ${r.non2xx}, errors ${r.errors}`);
svc.proc.kill('SIGINT');
const code = await new Promise<number | null>((res) => svc.proc.on('exit', res));
console.log(`service exited with ${code}`);
await pgb?.stop();
if (flag('--show-output')) console.log(svc.output());
const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written in ${profDir}`);
console.log(`profile: ${join(profDir, file)}`);
console.log(summarise(JSON.parse(readFileSync(join(profDir, file), 'utf8')), arg('--top', 25)));
