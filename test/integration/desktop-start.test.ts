// `npm start` (scripts/start.mjs) end to end, in a throw-away project folder: the real start.mjs and its scripts/lib
// beside stand-ins that record what ran, in order — the build, the Electron download (node_modules/electron/install.js),
// the Electron-ABI rebuild (scripts/rebuild-electron-sqlite.mjs), the Electron executable (which records its
// arguments and the binding stamp it would load at that moment) and the headless fallback (bin/vconsole.mjs).
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { linuxSandboxProblem } from '../../scripts/lib/linux-sandbox.mjs';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const ELECTRON_VERSION = '41.10.0';
const SQLITE_VERSION = '12.11.1';
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Step = { step: string; args?: string[]; binding?: { electron?: string } | null; cwd?: string };

const record = `(step, extra = {}) => require('node:fs').appendFileSync(process.env.STANDIN_LOG, JSON.stringify({ step, ...extra }) + '\\n')`;

/** The Electron stand-in: records its arguments and the binding stamp it would load, then exits as told. */
const electronStandIn = `#!${process.execPath}
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const stamp = join(process.cwd(), 'build/native/electron/better_sqlite3.json');
(${record})('electron', { args: process.argv.slice(2), cwd: process.cwd(), binding: existsSync(join(process.cwd(), 'build/native/electron/better_sqlite3.node')) && existsSync(stamp) ? JSON.parse(readFileSync(stamp, 'utf8')) : null });
if (process.env.STANDIN_ELECTRON_SIGNAL) process.kill(process.pid, process.env.STANDIN_ELECTRON_SIGNAL);
else process.exit(Number(process.env.STANDIN_ELECTRON_EXIT ?? 0));
`;

interface Project {
  root: string;
  writeBinding(electron: string): void;
  installElectron(): void;
}

function project(): Project {
  const root = mkdtempSync(join(tmpdir(), 'vc-start-'));
  dirs.push(root);
  const w = (p: string, text: string, exec = false) => {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), text);
    if (exec) chmodSync(join(root, p), 0o755);
  };
  w('package.json', JSON.stringify({ name: 'stand-in', private: true, type: 'module' }));
  mkdirSync(join(root, 'scripts'), { recursive: true });
  copyFileSync(join(repo, 'scripts/start.mjs'), join(root, 'scripts/start.mjs'));
  cpSync(join(repo, 'scripts/lib'), join(root, 'scripts/lib'), { recursive: true });
  const cjs = (body: string) => `import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${body}`;
  w('node_modules/electron-vite/bin/electron-vite.js', cjs(`(${record})('build', { args: process.argv.slice(2) });\n`));
  w('bin/vconsole.mjs', cjs(`(${record})('headless', { args: process.argv.slice(2) });\n`));
  w('node_modules/better-sqlite3/package.json', JSON.stringify({ name: 'better-sqlite3', version: SQLITE_VERSION }));
  w('node_modules/electron/package.json', JSON.stringify({ name: 'electron', version: ELECTRON_VERSION, main: 'index.js' }));
  w('node_modules/electron/abi_version', '145');
  // Electron's own index.js: the executable named in path.txt under dist/.
  copyFileSync(join(repo, 'node_modules/electron/index.js'), join(root, 'node_modules/electron/index.js'));
  const installElectron = () => {
    w('node_modules/electron/path.txt', 'electron');
    w('node_modules/electron/dist/electron', electronStandIn, true);
  };
  // install.js: succeeds (installs the stand-in) or fails the way @electron/get does offline, stack trace and all.
  w(
    'node_modules/electron/install.js',
    `const fs = require('node:fs'); const path = require('node:path');
(${record})('download');
if (process.env.STANDIN_DOWNLOAD === 'ok') {
  fs.writeFileSync(path.join(__dirname, 'path.txt'), 'electron');
  fs.mkdirSync(path.join(__dirname, 'dist'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, 'dist/electron'), ${JSON.stringify(electronStandIn)}, { mode: 0o755 });
} else if (process.env.STANDIN_DOWNLOAD === 'fetch-failed') {
  // What Node 20's fetch (used by @electron/get) prints here when the network is closed.
  console.error(new TypeError('fetch failed').stack);
  process.exit(1);
} else {
  const err = new Error('getaddrinfo ENOTFOUND github.com');
  console.error('HTTPError: ' + err.stack);
  process.exit(1);
}
`,
  );
  // The rebuild: succeeds (writes the binding and the stamp for the installed Electron) or fails as told.
  const writeBindingSrc = (electron: string) =>
    `fs.mkdirSync('build/native/electron', { recursive: true }); fs.writeFileSync('build/native/electron/better_sqlite3.node', 'binary'); fs.writeFileSync('build/native/electron/better_sqlite3.json', JSON.stringify({ electron: ${electron}, abi: '145', betterSqlite3: '${SQLITE_VERSION}', platform: process.platform, arch: process.arch }));`;
  w(
    'scripts/rebuild-electron-sqlite.mjs',
    cjs(`const fs = require('node:fs');
(${record})('rebuild');
if (process.env.STANDIN_REBUILD === 'offline') {
  console.error('prebuild-install warn install request to https://github.com/... failed, reason: getaddrinfo ENOTFOUND github.com');
  console.error(new Error('gyp ERR! stack').stack);
  process.exit(1);
}
if (process.env.STANDIN_REBUILD === 'no-compiler') { console.error('gyp ERR! find Python'); process.exit(1); }
${writeBindingSrc(`'${ELECTRON_VERSION}'`)}
`),
  );
  return {
    root,
    installElectron,
    writeBinding: (electron) => {
      mkdirSync(join(root, 'build/native/electron'), { recursive: true });
      writeFileSync(join(root, 'build/native/electron/better_sqlite3.node'), 'binary');
      writeFileSync(
        join(root, 'build/native/electron/better_sqlite3.json'),
        JSON.stringify({ electron, abi: '145', betterSqlite3: SQLITE_VERSION, platform: process.platform, arch: process.arch }),
      );
    },
  };
}

function start(p: Project, env: Record<string, string> = {}, args: string[] = []) {
  const log = join(p.root, 'steps.jsonl');
  writeFileSync(log, '');
  const base = { ...process.env };
  delete base['ELECTRON_OVERRIDE_DIST_PATH'];
  delete base['npm_config_arch'];
  const r = spawnSync(process.execPath, [join(p.root, 'scripts/start.mjs'), ...args], {
    cwd: p.root,
    encoding: 'utf8',
    timeout: 60_000,
    // The host's own AppArmor setting must not decide these cases; the check has its own tests below.
    env: { ...base, DISPLAY: ':0', VC_START_SANDBOX_CHECK: '0', STANDIN_LOG: log, ...env },
  });
  const steps = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Step);
  return { status: r.status, out: `${r.stdout}${r.stderr}`, steps, names: steps.map((s) => s.step) };
}

const noStackTrace = (out: string) => expect(out).not.toMatch(/^\s+at\s/m);

describe('npm start with an Electron binary', () => {
  it('binding missing: the rebuild runs, with a progress line, before Electron is launched', () => {
    const p = project();
    p.installElectron();
    const r = start(p);
    expect(r.names).toEqual(['build', 'rebuild', 'electron']);
    expect(r.out).toMatch(/better-sqlite3 for Electron 41\.10\.0: not built yet; building it now/);
    // At launch, the binding for this Electron was already there.
    expect(r.steps[2]).toMatchObject({ args: ['.'], binding: { electron: ELECTRON_VERSION } });
    expect(r.status).toBe(0);
  });

  it('binding stale (built for another Electron): rebuilt before launch', () => {
    const p = project();
    p.installElectron();
    p.writeBinding('40.0.0');
    const r = start(p);
    expect(r.names).toEqual(['build', 'rebuild', 'electron']);
    expect(r.out).toMatch(/built for electron 40\.0\.0, installed is 41\.10\.0/);
    expect(r.steps[2]!.binding).toMatchObject({ electron: ELECTRON_VERSION });
  });

  it('binding present and current: launches at once, no rebuild', () => {
    const p = project();
    p.installElectron();
    p.writeBinding(ELECTRON_VERSION);
    const r = start(p);
    expect(r.names).toEqual(['build', 'electron']);
    expect(r.status).toBe(0);
  });

  it('rebuild fails (offline): one paragraph naming the cause and the log, then the headless service; no stack trace', () => {
    const p = project();
    p.installElectron();
    const r = start(p, { STANDIN_REBUILD: 'offline' }, ['--port', '0']);
    expect(r.names).toEqual(['build', 'rebuild', 'headless']);
    expect(r.steps[2]!.args).toEqual(['serve', '--port', '0']);
    expect(r.out).toMatch(/building it failed: no internet access \(getaddrinfo ENOTFOUND github\.com\)/);
    expect(r.out).toMatch(/build\/native\/rebuild-electron-sqlite\.log/);
    expect(r.out).toMatch(/Starting the headless service with the web console instead/);
    noStackTrace(r.out);
    // The tool's own output went to the log, not the terminal.
    expect(readFileSync(join(p.root, 'build/native/rebuild-electron-sqlite.log'), 'utf8')).toMatch(/ENOTFOUND/);
    expect(r.status).toBe(0);
  });

  it('rebuild fails (no compiler): says so and falls back', () => {
    const p = project();
    p.installElectron();
    const r = start(p, { STANDIN_REBUILD: 'no-compiler' });
    expect(r.names).toEqual(['build', 'rebuild', 'headless']);
    expect(r.out).toMatch(/building it failed: no Python for node-gyp/);
  });

  it('a crash by signal is reported and exits non-zero (128 + signal), never 0', () => {
    const p = project();
    p.installElectron();
    p.writeBinding(ELECTRON_VERSION);
    const r = start(p, { STANDIN_ELECTRON_SIGNAL: 'SIGKILL' });
    expect(r.names).toEqual(['build', 'electron']);
    expect(r.status).toBe(137);
    expect(r.out).toMatch(/ended by SIGKILL/);
  });

  it("passes Electron's own exit code on", () => {
    const p = project();
    p.installElectron();
    p.writeBinding(ELECTRON_VERSION);
    expect(start(p, { STANDIN_ELECTRON_EXIT: '3' }).status).toBe(3);
  });

  it('no display (Linux): the headless service, saying why', () => {
    const p = project();
    p.installElectron();
    const r = start(p, { DISPLAY: '', WAYLAND_DISPLAY: '' });
    if (process.platform !== 'linux') return;
    expect(r.names).toEqual(['build', 'headless']);
    expect(r.out).toMatch(/No display found/);
  });
});

describe('npm start without an Electron binary', () => {
  it('downloads it, then rebuilds the binding, then launches', () => {
    const p = project();
    const r = start(p, { STANDIN_DOWNLOAD: 'ok' });
    expect(r.names).toEqual(['build', 'download', 'rebuild', 'electron']);
    expect(r.out).toMatch(/No Electron binary yet: downloading it/);
    expect(r.status).toBe(0);
  });

  it('no internet: the fallback paragraph without a stack trace, then the headless service', () => {
    const p = project();
    const r = start(p, { STANDIN_DOWNLOAD: 'offline' });
    expect(r.names).toEqual(['build', 'download', 'headless']);
    expect(r.out).toMatch(/downloading it failed: no internet access \(getaddrinfo ENOTFOUND github\.com\)/);
    expect(r.out).toMatch(/build\/native\/electron-download\.log/);
    noStackTrace(r.out);
    expect(r.out).not.toMatch(/HTTPError/);
    const r2 = start(project(), { STANDIN_DOWNLOAD: 'fetch-failed' });
    expect(r2.names).toEqual(['build', 'download', 'headless']);
    expect(r2.out).toMatch(/downloading it failed: no internet access \(fetch failed\)/);
    noStackTrace(r2.out);
  });
});

describe("Linux sandbox check (Ubuntu 23.10+ AppArmor, electron/electron#42510)", () => {
  const electron = '/p/node_modules/electron/dist/electron';
  const io = (sysctl: Record<string, string>, helper: { uid: number; mode: number } | null, platform = 'linux') => ({
    platform,
    uid: 1000,
    read: (p: string) => sysctl[p] ?? null,
    stat: () => helper,
  });
  const restricted = { '/proc/sys/kernel/apparmor_restrict_unprivileged_userns': '1' };

  it('no restriction, or another OS: no problem', () => {
    expect(linuxSandboxProblem(electron, io({}, null))).toBeNull();
    expect(linuxSandboxProblem(electron, io({ '/proc/sys/kernel/apparmor_restrict_unprivileged_userns': '0' }, null))).toBeNull();
    expect(linuxSandboxProblem(electron, io(restricted, null, 'darwin'))).toBeNull();
  });
  it('as root on Linux: run as an ordinary user (Chromium refuses root)', () => {
    expect(linuxSandboxProblem(electron, { ...io({}, null), uid: 0 })?.message).toMatch(/as an ordinary user/);
    expect(linuxSandboxProblem(electron, { ...io({}, null, 'darwin'), uid: 0 })).toBeNull();
  });
  it('restricted and chrome-sandbox root-owned 4755: no problem', () => {
    expect(linuxSandboxProblem(electron, io(restricted, { uid: 0, mode: 0o104755 }))).toBeNull();
  });
  it('restricted and chrome-sandbox not set up: the fix, with the exact path', () => {
    for (const helper of [null, { uid: 1000, mode: 0o100755 }, { uid: 0, mode: 0o100755 }]) {
      const p = linuxSandboxProblem(electron, io(restricted, helper));
      expect(p?.helper).toBe('/p/node_modules/electron/dist/chrome-sandbox');
      expect(p?.message).toContain('sudo chown root:root "/p/node_modules/electron/dist/chrome-sandbox" && sudo chmod 4755');
      expect(p?.message).toMatch(/AppArmor/);
      expect(p?.message).toMatch(/\.deb/);
    }
    expect(linuxSandboxProblem(electron, io({ '/proc/sys/kernel/unprivileged_userns_clone': '0' }, null))?.message).toMatch(/unprivileged_userns_clone=0/);
  });
});
