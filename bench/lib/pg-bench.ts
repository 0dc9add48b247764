// PostgreSQL for the benchmarks (docs/performance.md, benchmark 11): a throw-away cluster started through the tests'
// supervisor (test/helpers/pg-supervisor.mjs: its own folder, 127.0.0.1 only, as `nobody` when run as root, stopped
// and deleted when this process ends, however it ends) but with PostgreSQL's durability left on, a database for the
// service, its schema, organization and API keys written by the real code, and the server's CPU time from /proc.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { systemClock } from '../../src-main/core/clock';
import { silentLogger, type CoreDeps } from '../../src-main/core/context';
import { insertKey } from '../../src-main/core/keys/keys-service';
import { bootstrap } from '../../src-main/core/orgs/organizations';
import { createPgServicePort } from '../../src-main/store/pg/pg-service';
import { startPgCluster } from '../../test/helpers/pg-cluster';
import { root, serviceEntry } from './harness';

export interface BenchPostgres {
  /** The service's database: postgres://postgres:…@127.0.0.1:PORT/vc_bench_… */
  url: string;
  /** The server's version line and where its binaries came from. */
  description: string;
  /** CPU time (ms) the whole server has used so far — every backend, exited ones included — or null if unknown. */
  cpuMs(): number | null;
  /** Transactions committed and rolled back in the service's database so far (pg_stat_database; see statsNow). */
  stats(): Promise<{ commits: number; rollbacks: number; conflicts: number; deadlocks: number }>;
  /**
   * With `statements`: PostgreSQL's own count of the statements run since `resetStatements()` (pg_stat_statements,
   * most time first): the service's (`toplevel`; BEGIN, COMMIT and SAVEPOINT included) and those run inside them
   * (triggers, SQL functions such as the search index's, foreign-key checks). A statement that failed is not
   * counted, but what ran inside it before the failure is: nested counts above the service's show work repeated by
   * transactions run again.
   */
  statements(): Promise<{ query: string; calls: number; totalMs: number; toplevel: boolean }[]>;
  resetStatements(): Promise<void>;
  /**
   * Samples what the service's connections (application_name `vconsole`) are doing every `everyMs` until `stop()`:
   * per sample, each connection running a statement counts under its wait event, or `running` (on a CPU, or waiting
   * for one) when it waits for nothing; `idle in transaction` counts connections between two statements of a
   * transaction (the service's side of a round trip).
   */
  sampleWaits(everyMs?: number): { stop(): Promise<Record<string, number>> };
  stop(): Promise<void>;
}

/**
 * Starts the cluster (fsync and synchronous commit on: an acknowledged write is on disk, as on the SQLite service)
 * and creates a database of its own (`vc_bench_…`, dropped by stop()). VC_TEST_DATABASE_URL (an admin URL of a
 * server you run) replaces the throw-away cluster, as in the tests; its CPU is then not measured.
 */
export async function startBenchPostgres(o: { statements?: boolean } = {}): Promise<BenchPostgres> {
  const cluster = await startPgCluster({ durable: true, ...(o.statements ? { settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' } } : {}) });
  // A name of its own (on a server of yours, VC_TEST_DATABASE_URL, nothing else is touched), dropped at stop.
  const name = `vc_bench_${randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: cluster.adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  try {
    await admin(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
  } catch (e) {
    await cluster.stop();
    throw e;
  }
  const u = new URL(cluster.adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const statsClient = new pg.Client({ connectionString: url, application_name: 'bench stats' });
  await statsClient.connect();
  if (o.statements) await statsClient.query('CREATE EXTENSION pg_stat_statements');
  return {
    url,
    description: cluster.description,
    cpuMs: () => (cluster.pid === undefined ? null : serverCpuMs(cluster.pid)),
    async stats() {
      // Each backend reports its counts at most once a second while busy (PostgreSQL 15+): a figure read right
      // after a load run may miss the last second's. The benchmark waits before reading; treat them as ≈.
      const r = await statsClient.query<{ commits: string; rollbacks: string; conflicts: string; deadlocks: string }>(
        'SELECT xact_commit AS commits, xact_rollback AS rollbacks, conflicts, deadlocks FROM pg_stat_database WHERE datname = current_database()',
      );
      const row = r.rows[0]!;
      return { commits: Number(row.commits), rollbacks: Number(row.rollbacks), conflicts: Number(row.conflicts), deadlocks: Number(row.deadlocks) };
    },
    async statements() {
      if (!o.statements) return [];
      const r = await statsClient.query<{ query: string; calls: string; total: number; toplevel: boolean }>(
        `SELECT query, calls, total_exec_time AS total, toplevel FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_%'
          ORDER BY total_exec_time DESC`,
      );
      return r.rows.map((x) => ({ query: x.query.replace(/\s+/g, ' '), calls: Number(x.calls), totalMs: Number(x.total), toplevel: x.toplevel }));
    },
    async resetStatements() {
      if (o.statements) await statsClient.query('SELECT pg_stat_statements_reset()');
    },
    sampleWaits(everyMs = 10) {
      const counts: Record<string, number> = {};
      let samples = 0;
      let running = true;
      const loop = (async () => {
        while (running) {
          const r = await statsClient.query<{ state: string; wait: string | null }>(
            `SELECT state, wait_event_type || ':' || wait_event AS wait FROM pg_stat_activity
              WHERE datname = current_database() AND application_name = 'vconsole' AND state <> 'idle'`,
          );
          samples++;
          for (const x of r.rows) {
            const k = x.state === 'active' ? (x.wait ?? 'running') : x.state;
            counts[k] = (counts[k] ?? 0) + 1;
          }
          await new Promise((res) => setTimeout(res, everyMs));
        }
      })();
      return {
        async stop() {
          running = false;
          await loop;
          // Connections in that state on an average sample, most first.
          return Object.fromEntries(
            Object.entries(counts)
              .sort((a, b) => b[1] - a[1])
              .map(([k, n]) => [k, Math.round((n / Math.max(1, samples)) * 100) / 100]),
          );
        },
      };
    },
    async stop() {
      await statsClient.end().catch(() => undefined);
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await cluster.stop();
    },
  };
}

/** stat(5) fields after the command name: utime 11, stime 12, cutime 13, cstime 14 (clock ticks, 100 a second). */
function statFields(pid: number | string): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return null;
  }
}

/**
 * The server's CPU time: the postmaster's own and its reaped children's (cutime/cstime: backends that ended, e.g.
 * the connections of a stopped instance), plus every live child's (the backends, checkpointer, WAL writer, …).
 */
function serverCpuMs(postmaster: number): number | null {
  const own = statFields(postmaster);
  if (!own) return null;
  const ticks = (f: string[]) => Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  let total = ticks(own);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(name);
    if (f && Number(f[1]) === postmaster) total += ticks(f);
  }
  return (total * 1000) / 100;
}

/** `vconsole migrate --database URL` with the benchmark's service (the schema belongs to the code being measured). */
export function migrate(url: string): void {
  const r = spawnSync(process.execPath, [...serviceEntry().args, 'migrate', '--database', url], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`vconsole migrate failed: ${r.stderr || r.stdout}`);
}

/**
 * The organization, its owner and `keys` sandbox API keys, written through the SQL port on PostgreSQL by the real
 * core (`bootstrap`, then `insertKey` — as bench/lib/seed.ts does on SQLite). Returns the keys' values.
 */
export async function bootstrapPostgres(url: string, keys: number): Promise<{ organizationId: string; sandboxKeys: string[] }> {
  const sql = createPgServicePort(url, { listen: false, max: 2, applicationName: 'bench seed' });
  // scrypt at 2^14: the owner's password is never used by the benchmark (the service's own default is 2^17).
  const deps = { sql, clock: systemClock, log: silentLogger, config: { scryptN: 2 ** 14 } } as unknown as CoreDeps;
  try {
    const b = await bootstrap(deps, { email: 'bench@example.com', password: 'benchmark-password' });
    const more = await sql.transaction(async (tx) => {
      const out: string[] = [];
      for (let i = 1; i < keys; i++) out.push((await insertKey({ ...deps, sql: tx }, b.organizationId, `bench ${i}`, 'sandbox')).key);
      return out;
    });
    return { organizationId: b.organizationId, sandboxKeys: [b.keys.sandbox.key, ...more] };
  } finally {
    await sql.close();
  }
}

/**
 * An experiment, never the product: drops the `table_versions` triggers on `verifications` in the benchmark's
 * database, so every verification insert no longer updates that one row. With serializable transactions, concurrent
 * inserts otherwise fail on it ("could not serialize access due to concurrent update") and run again
 * (docs/team-server.md, "Known contention point"). List totals may then be served stale from the count cache; the
 * benchmark lists nothing.
 */
export async function dropTableVersionTriggers(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (const op of ['insert', 'update', 'delete']) await c.query(`DROP TRIGGER verifications_version_${op} ON verifications`);
  } finally {
    await c.end();
  }
}
