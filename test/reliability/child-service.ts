// The real service as a child process (`vconsole serve` on a data dir) that the reliability suites can SIGKILL and
// start again, plus read-only checks of its SQLite file after a crash (docs/reliability.md).
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { enableService, setPrice, topUp } from '../../src-main/core/billing/billing';
import { bootstrap } from '../../src-main/core/orgs/organizations';
import { configureStandIn } from '../../src-main/providers/registry';
import { createCore } from '../../src-main/service';
import { TEST_PASSWORD } from '../helpers/harness';

export const ROOT = resolve(import.meta.dirname, '../..');
/** The long modes: `npm run test:soak` (npm names the script in npm_lifecycle_event), or VC_SOAK=1. */
export const SOAK = process.env['VC_SOAK'] === '1' || process.env['npm_lifecycle_event'] === 'test:soak';
export const DB_FILE = 'verification-console.sqlite';
/** The queue's job lease and the webhook attempt lease (src-main/jobs/worker.ts, core/webhooks/deliveries.ts). */
export const LEASE_MS = 60_000;
const CLOCK_PRELOAD = pathToFileURL(join(ROOT, 'test/reliability/clock-offset.mjs')).href;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    const s = statSync(p);
    newest = Math.max(newest, s.isDirectory() ? newestMtime(p) : s.mtimeMs);
  }
  return newest;
}

let entryCache: { args: string[]; label: string } | undefined;
/**
 * How to run `vconsole`: the electron-vite build of the CLI (out/main/headless.js, ~1 s to start) when it is newer
 * than every source file — `npm test` builds first — else bin/vconsole.mjs through tsx (~3 s). VC_SERVE_ENTRY=tsx
 * or =built forces one.
 */
export function serveEntry(): { args: string[]; label: string } {
  if (entryCache) return entryCache;
  const built = join(ROOT, 'out/main/headless.js');
  const forced = process.env['VC_SERVE_ENTRY'];
  const fresh =
    existsSync(built) && statSync(built).mtimeMs >= Math.max(newestMtime(join(ROOT, 'src-main')), newestMtime(join(ROOT, 'src-shared')));
  const useBuilt = forced === 'built' || (forced !== 'tsx' && fresh);
  entryCache = useBuilt ? { args: [built], label: 'out/main/headless.js' } : { args: [join(ROOT, 'bin/vconsole.mjs')], label: 'bin/vconsole.mjs (tsx)' };
  return entryCache;
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `vconsole ARGS` (the same entry as serve); `done` resolves when it exits (killed after 2 minutes). */
export function spawnCli(args: string[], o: { env?: Record<string, string>; uid?: number; gid?: number } = {}): { proc: ChildProcess; done: Promise<CliRun> } {
  const proc = spawn(process.execPath, [...serveEntry().args, ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(o.uid !== undefined ? { uid: o.uid } : {}),
    ...(o.gid !== undefined ? { gid: o.gid } : {}),
  });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const done = new Promise<CliRun>((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), 120_000);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { proc, done };
}

/** Runs `vconsole ARGS` to completion. */
export function runCli(args: string[], o: { env?: Record<string, string>; uid?: number; gid?: number } = {}): Promise<CliRun> {
  return spawnCli(args, o).done;
}

export interface ChildService {
  proc: ChildProcess;
  /** http://127.0.0.1:PORT (the harness's api() adds /api/v1). */
  url: string;
  output(): string;
  /** Resolves when the process has exited, with its exit code or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ChildOptions {
  /** Extra environment (VC_FAULT_POINT...); a value of undefined removes the variable. */
  env?: Record<string, string | undefined>;
  /** Starts the service with its clock this far ahead, as if it were restarted that much later (clock-offset.mjs). */
  clockOffsetMs?: number;
  args?: string[];
}

export async function startChild(dataDir: string, o: ChildOptions = {}): Promise<ChildService> {
  const env: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'warn', VC_FAULT_POINT: undefined, VC_FAULT_AFTER: undefined, ...o.env };
  // bin/vconsole.mjs would build first when the build is stale; this route is documented as "the sources through tsx".
  if (serveEntry().label.includes('tsx')) env['VCONSOLE_TSX'] = '1';
  if (o.clockOffsetMs) env['VC_TEST_CLOCK_OFFSET_MS'] = String(o.clockOffsetMs);
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const proc = spawn(
    process.execPath,
    ['--import', CLOCK_PRELOAD, ...serveEntry().args, 'serve', '--port', '0', '--data-dir', dataDir, '--no-console', ...(o.args ?? [])],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => proc.once('exit', (code, signal) => res({ code, signal })));
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`serve did not start within 60 s:\n${out}`)), 60_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      const api = /API:\s+(\S+)\/api\/v1/.exec(out)?.[1];
      if (api) {
        clearTimeout(timer);
        res(api);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rej(new Error(`serve exited (${code ?? signal}) before it was ready:\n${out}`));
    });
  });
  return { proc, url, output: () => out, exited };
}

/** SIGKILL and wait until the process is gone (its file handles closed). */
export async function killChild(c: ChildService): Promise<void> {
  if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  await c.exited;
}

/** A graceful stop (SIGTERM: drain, close the store). */
export async function stopChild(c: ChildService): Promise<void> {
  if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGTERM');
  await c.exited;
}

export interface Prepared {
  dataDir: string;
  organizationId: string;
  email: string;
  sandboxKey: string;
  liveKey: string;
}

const made: string[] = [];
/** Removes the data dirs prepareDataDir made (call once every child using them has exited). */
export function removeDataDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A data dir with an organization, live account:NG priced, funded and routed to the stand-in, made in-process before any child starts. */
export async function prepareDataDir(o: { price?: number; balance?: number } = {}): Promise<Prepared> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vc-rel-'));
  made.push(dataDir);
  const core = await createCore({ dataDir, startWorker: false, logLevel: 'silent', scryptN: 1024 });
  try {
    const email = `owner-${Date.now()}@reliability.test`;
    const org = await bootstrap(core.deps, { email, password: TEST_PASSWORD });
    await topUp(core.deps, org.organizationId, o.balance ?? 1_000_000, 'USD');
    await setPrice(core.deps, org.organizationId, 'account:NG', o.price ?? 25, 'USD');
    await enableService(core.deps, org.organizationId, 'account:NG');
    // Live checks go to the stand-in adapter (sandbox-like answers, billed as live) until a test needs real upstreams.
    await configureStandIn(core.rt);
    return { dataDir, organizationId: org.organizationId, email, sandboxKey: org.keys.sandbox.key, liveKey: org.keys.live.key };
  } finally {
    await core.close();
  }
}

/** The service's SQLite file, opened read-only (it may be mid-crash or in use by a running child). */
export function openReadOnly(dataDir: string): Database.Database {
  return new Database(join(dataDir, DB_FILE), { readonly: true, fileMustExist: true });
}

export interface StoreCheck {
  integrity: string;
  /** Wallets whose balance differs from the sum of their ledger entries. */
  ledgerMismatches: { organizationId: string; balance: number; ledger: number }[];
  negativeBalances: number;
  /** Verifications with more than one charge, or a reversal without a charge. */
  chargeAnomalies: string[];
  /** Charged verifications whose record disagrees with the ledger (charged ⇔ one charge and no reversal, reversed ⇔ both). */
  recordLedgerMismatches: string[];
}

/** The store-wide invariants every crash must leave intact. */
export function checkStore(db: Database.Database): StoreCheck {
  const integrity = (db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
  const ledgerMismatches = (
    db
      .prepare(
        `SELECT w.organization_id AS organizationId, w.balance AS balance,
                (SELECT coalesce(sum(amount), 0) FROM ledger_entries l WHERE l.organization_id = w.organization_id) AS ledger
         FROM wallets w`,
      )
      .all() as { organizationId: string; balance: number; ledger: number }[]
  ).filter((r) => r.balance !== r.ledger);
  const negativeBalances = (db.prepare('SELECT count(*) AS n FROM wallets WHERE balance < 0').get() as { n: number }).n;
  const perVerification = db
    .prepare(
      `SELECT verification_id AS id, sum(kind = 'charge') AS charges, sum(kind = 'reversal') AS reversals
       FROM ledger_entries WHERE verification_id IS NOT NULL GROUP BY verification_id`,
    )
    .all() as { id: string; charges: number; reversals: number }[];
  const chargeAnomalies = perVerification.filter((r) => r.charges > 1 || r.reversals > r.charges).map((r) => r.id);
  const ledgerOf = new Map(perVerification.map((r) => [r.id, r]));
  const recordLedgerMismatches: string[] = [];
  for (const v of db.prepare("SELECT id, charge_status FROM verifications WHERE environment = 'live'").all() as { id: string; charge_status: string }[]) {
    const l = ledgerOf.get(v.id) ?? { charges: 0, reversals: 0 };
    const ok =
      (v.charge_status === 'charged' && l.charges === 1 && l.reversals === 0) ||
      (v.charge_status === 'reversed' && l.charges === 1 && l.reversals === 1) ||
      (v.charge_status === 'not_charged' && l.charges === 0);
    if (!ok) recordLedgerMismatches.push(`${v.id}:${v.charge_status}:${l.charges}/${l.reversals}`);
  }
  return { integrity, ledgerMismatches, negativeBalances, chargeAnomalies, recordLedgerMismatches };
}

/** Polls `probe` until it returns true; throws with `describe()` after `timeoutMs` (a bound, never an assertion on speed). */
export async function until(probe: () => boolean | Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > end) throw new Error(`not reached within ${timeoutMs} ms: ${describe()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
