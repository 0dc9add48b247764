// One real PostgreSQL for a test run (docs/team-server.md, "Tests"). vitest's globalSetup (test/pg-global-setup.ts)
// starts it once through pg-supervisor.mjs, a watchdog process that stops it and deletes its folder when the run
// ends, however it ends; each test file then takes a fresh database of its own (`freshDatabase` in test/helpers/pg.ts).
// VC_TEST_DATABASE_URL (an admin URL of a server you run) replaces the throw-away cluster.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface PgCluster {
  /** postgres://postgres:…@127.0.0.1:PORT/postgres */
  adminUrl: string;
  /** What it runs: the server's version line and where the binaries came from. */
  description: string;
  /** The server's main process (the postmaster), when this run started it; undefined for VC_TEST_DATABASE_URL. */
  pid?: number;
  stop(): Promise<void>;
}

const SUPERVISOR = fileURLToPath(new URL('./pg-supervisor.mjs', import.meta.url));

/**
 * `durable`: keep PostgreSQL's fsync and synchronous commit on (the benchmarks, which compare with the SQLite
 * service's durable commits); the tests turn them off. `settings`: more server settings (`-c name=value`).
 */
export async function startPgCluster(o: { durable?: boolean; settings?: Record<string, string> } = {}): Promise<PgCluster> {
  const external = process.env['VC_TEST_DATABASE_URL'];
  if (external) return { adminUrl: external, description: 'VC_TEST_DATABASE_URL', stop: async () => undefined };
  const args = [...(o.durable ? ['--durable'] : []), ...Object.entries(o.settings ?? {}).flatMap(([k, v]) => ['--set', `${k}=${v}`])];
  const child: ChildProcess = spawn(process.execPath, [SUPERVISOR, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (l) => {
      lines.close();
      resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`the PostgreSQL supervisor exited (code ${code}) before the server was ready`)));
    child.once('error', reject);
  });
  const msg = JSON.parse(first) as { ok: boolean; error?: string; port?: number; pid?: number; user?: string; password?: string; version?: string; binaries?: string };
  if (!msg.ok) {
    child.stdin?.end();
    throw new Error(`could not start a PostgreSQL for the tests: ${msg.error}`);
  }
  const adminUrl = `postgres://${msg.user}:${msg.password}@127.0.0.1:${msg.port}/postgres`;
  return {
    adminUrl,
    description: `${msg.version} (${msg.binaries}) on 127.0.0.1:${msg.port}`,
    ...(msg.pid ? { pid: msg.pid } : {}),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        // Closing its stdin is the signal: the supervisor stops the server and deletes the folder.
        child.stdin?.end();
      }),
  };
}
