// Shared plumbing for the benchmarks: flags (--quick, --built), starting the real headless service or a baseline
// as a child process and stopping it cleanly, bootstrapping a data folder, statistics and the results file.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
export const quick = process.argv.includes('--quick');

/** A numeric flag (`--rounds 3`); `quickValue` applies under --quick unless the flag is given. */
export function arg(name: string, normal: number, quickValue = normal): number {
  const i = process.argv.indexOf(name);
  if (i !== -1) return Number(process.argv[i + 1]);
  return quick ? quickValue : normal;
}

export function flag(name: string): boolean {
  return process.argv.includes(name);
}

export function freshDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'vc-bench-'));
}

export const BUILT_ENTRY = join(root, 'out', 'main', 'headless.js');

/**
 * Which `vconsole` the benchmark runs: the production build (out/main/headless.js, what the packaged app runs)
 * when it exists and --tsx is not given, else the TypeScript sources through tsx (what `npm run serve` runs).
 */
export function serviceEntry(): { args: string[]; label: string } {
  // Another checkout's sources (e.g. an older commit exported with `git archive`), for before/after comparisons.
  const other = process.env['BENCH_SERVICE_ROOT'];
  if (other) {
    const built = join(other, 'out', 'main', 'headless.js');
    if (!flag('--tsx') && existsSync(built)) return { args: [built], label: `built ${other}` };
    return tsxEntry(join(other, 'bin', 'vconsole.mjs'), `tsx ${other}`);
  }
  if (!flag('--tsx') && existsSync(BUILT_ENTRY)) return { args: [BUILT_ENTRY], label: 'built' };
  return tsxEntry(join(root, 'bin', 'vconsole.mjs'), 'tsx');
}

/** bin/vconsole.mjs through tsx: VCONSOLE_TSX=1, inherited by every child this process spawns. */
function tsxEntry(bin: string, label: string): { args: string[]; label: string } {
  process.env['VCONSOLE_TSX'] = '1';
  return { args: [bin], label };
}

/** Creates the organization, its owner and its first keys in `dataDir`; returns the sandbox key. */
export function bootstrap(dataDir: string): { sandboxKey: string; liveKey: string } {
  const r = spawnSync(
    process.execPath,
    [...serviceEntry().args, 'bootstrap', '--data-dir', dataDir, '--email', 'bench@example.com', '--password', 'benchmark-password', '--json'],
    { cwd: root, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`bootstrap failed: ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { keys: { sandbox: string; live: string } };
  return { sandboxKey: out.keys.sandbox, liveKey: out.keys.live };
}

export interface Child {
  proc: ChildProcess;
  port: number;
  /** Output seen so far (for error messages). */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code once the process is gone. */
  stop(graceMs?: number): Promise<number | null>;
}

// Children still running when the benchmark exits (an error, Ctrl-C) are killed, so no run leaves servers behind.
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130));

/** Spawns a process and resolves once `ready` matches its output (group 1 is the port). */
export function startChild(args: string[], ready: RegExp, opts: { env?: Record<string, string>; nodeArgs?: string[]; timeoutMs?: number } = {}): Promise<Child> {
  return new Promise((res, rej) => {
    const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'error', ...opts.env },
    });
    live.add(proc);
    let out = '';
    let done = false;
    let exited: number | null | undefined;
    const exitWaiters: ((c: number | null) => void)[] = [];
    proc.on('exit', (c) => {
      live.delete(proc);
      exited = c;
      for (const w of exitWaiters) w(c);
      if (!done) {
        done = true;
        clearTimeout(timer);
        rej(new Error(`exited ${c} before ready: ${out}`));
      }
    });
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      proc.kill('SIGKILL');
      rej(new Error(`not ready after ${opts.timeoutMs ?? 60_000} ms: ${out}`));
    }, opts.timeoutMs ?? 60_000);
    const child: Child = {
      proc,
      port: 0,
      output: () => out,
      stop: (graceMs = 10_000) =>
        new Promise((resolveStop) => {
          if (exited !== undefined) return resolveStop(exited);
          exitWaiters.push(resolveStop);
          proc.kill('SIGTERM');
          setTimeout(() => {
            if (exited === undefined) proc.kill('SIGKILL');
          }, graceMs).unref();
        }),
    };
    const on = (b: Buffer) => {
      out += b.toString();
      if (out.length > 64_000) out = out.slice(-32_000);
      const m = ready.exec(out);
      if (m && !done) {
        done = true;
        clearTimeout(timer);
        child.port = Number(m[1]);
        res(child);
      }
    };
    proc.stdout!.on('data', on);
    proc.stderr!.on('data', on);
  });
}

export const SERVICE_READY = /127\.0\.0\.1:(\d+)\/api\/v1/;

export function startService(dataDir: string, extra: string[] = [], opts: { nodeArgs?: string[]; env?: Record<string, string> } = {}): Promise<Child> {
  return startChild([...serviceEntry().args, 'serve', '--port', '0', '--data-dir', dataDir, '--no-console', ...extra], SERVICE_READY, opts);
}

export function startBaseline(): Promise<Child> {
  return startChild([join(root, 'bench', 'baseline-server.mjs')], /PORT (\d+)/);
}

/** Benchmark 1's second baseline: bare Fastify that stores each POST durably before answering (its own data folder). */
export function startDurableBaseline(): Promise<Child> {
  return startChild([join(root, 'bench', 'durable-baseline-server.mjs'), freshDataDir()], /PORT (\d+)/);
}

export const median = (xs: number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The q-quantile (0..1) of a sample, nearest rank. */
export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

export const round2 = (x: number): number => Math.round(x * 100) / 100;
export const ratio = (service: number, baseline: number): number => Number((service / baseline).toFixed(3));

export function writeResult(name: string, result: Record<string, unknown>): void {
  const dir = join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify({ ...result, quick, at: new Date().toISOString() }, null, 2)}\n`);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * CPU time (user + system, ms) a process has used — or, with `mainThread`, only its main thread (the event loop,
 * without the WAL sync thread and V8's helpers) — from /proc (Linux; null elsewhere). CPU per request is steadier
 * than throughput on a machine shared with other work: it does not depend on how much of a core the service got.
 */
export function cpuMs(pid: number | undefined, mainThread = false): number | null {
  try {
    const file = mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
    const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}
