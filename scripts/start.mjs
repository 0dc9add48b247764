// `npm start`: builds, then opens the Electron app where it can run; otherwise says why in one paragraph and starts
// the headless service with the web console (`node bin/vconsole.mjs serve`, extra arguments passed on).
// The steps, each with a one-line progress note (docs/packaging.md, "Which command does what"):
//   1. electron-vite build;
//   2. the Electron binary: present, or downloaded now (node_modules/electron/install.js);
//   3. a display (Linux), and on Linux a sandbox Electron can start (AppArmor, scripts/lib/linux-sandbox.mjs);
//   4. better-sqlite3 for Electron's ABI: built now when missing or stale (scripts/rebuild-electron-sqlite.mjs);
//   5. launch Electron, and exit with its exit code (a crash by signal is a failure, never exit 0).
// An expected condition (no binary, offline, no compiler, no display) is never a stack trace: the tools' own
// output goes to build/native/*.log and the paragraph names the log.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBindingStatus } from './lib/electron-binding.mjs';
import { linuxSandboxProblem } from './lib/linux-sandbox.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const passThrough = process.argv.slice(2);
const logDir = join(root, 'build', 'native');
const rel = (p) => relative(root, p) || '.';

/** Exit code of a child: its own, or 128 + the signal number when a signal ended it (the shell convention). */
function exitCodeOf(code, signal) {
  if (code !== null) return code;
  return 128 + (constants.signals[signal] ?? 0);
}

/** Runs a child and resolves to { code, signal }; `log` sends its output to a file instead of the terminal. */
function run(cmd, args, { log, env, timeoutMs } = {}) {
  return new Promise((done) => {
    let fd = null;
    if (log) {
      mkdirSync(dirname(log), { recursive: true });
      fd = openSync(log, 'w');
    }
    const child = spawn(cmd, args, { cwd: root, env: env ?? process.env, stdio: fd === null ? 'inherit' : ['ignore', fd, fd] });
    const timer = timeoutMs ? setTimeout(() => child.kill(), timeoutMs) : null;
    child.on('error', (err) => {
      if (timer) clearTimeout(timer);
      if (fd !== null) closeSync(fd);
      done({ code: 1, signal: null, error: err });
    });
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (fd !== null) closeSync(fd);
      done({ code, signal });
    });
  });
}

const logText = (p) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
};

/** The likely cause of a failed download or compile, from its log, in words. */
function causeFrom(text) {
  const net = /(getaddrinfo (?:ENOTFOUND|EAI_AGAIN) [^\s'"]+|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|socket hang up|certificate|fetch failed)/.exec(text);
  if (net) return `no internet access (${net[1]})`;
  if (/gyp ERR! find Python|not find any Python|python.*not found/i.test(text)) return 'no Python for node-gyp';
  if (/(make|g\+\+|c\+\+|cc): (command )?not found|not find any Visual Studio|xcode-select|No Xcode/i.test(text)) return 'no C++ toolchain';
  if (/EACCES|EPERM/.test(text)) return 'a permission error';
  return null;
}

function headless(paragraph) {
  console.log(`\n${paragraph}\nStarting the headless service with the web console instead (node bin/vconsole.mjs serve).\n`);
  const child = spawn(process.execPath, [join(root, 'bin', 'vconsole.mjs'), 'serve', ...passThrough], { cwd: root, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(exitCodeOf(code, signal)));
}

function electronBinary() {
  try {
    delete require.cache[require.resolve('electron')];
    const p = require('electron');
    return typeof p === 'string' && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

async function main() {
  console.log('Building the console (electron-vite build)…');
  const built = await run(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build']);
  if (built.code !== 0) {
    console.error('The build failed; see the errors above.');
    process.exit(exitCodeOf(built.code, built.signal) || 1);
  }

  // 2. The Electron binary.
  let electron = electronBinary();
  const installer = join(root, 'node_modules', 'electron', 'install.js');
  if (!electron && existsSync(installer)) {
    const log = join(logDir, 'electron-download.log');
    console.log(`No Electron binary yet: downloading it (node node_modules/electron/install.js; log: ${rel(log)})…`);
    await run(process.execPath, [installer], { log, timeoutMs: 5 * 60_000 });
    electron = electronBinary();
    if (!electron) {
      const cause = causeFrom(logText(log));
      return headless(
        `The desktop app needs the Electron binary, and downloading it failed${cause ? `: ${cause}` : ''} (details in ${rel(log)}). ` +
          'On a machine with internet, `npm start` downloads it by itself; offline, only the headless service can run.',
      );
    }
    console.log('Electron downloaded.');
  }
  if (!electron) return headless('The Electron binary is not installed (node_modules/electron is missing): run npm install.');

  // 3. Somewhere to show a window, and a sandbox that can start.
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return headless('No display found (neither DISPLAY nor WAYLAND_DISPLAY is set), so the desktop window cannot open.');
  }
  const sandbox = process.env.VC_START_SANDBOX_CHECK === '0' ? null : linuxSandboxProblem(electron);
  if (sandbox) return headless(sandbox.message);

  // 4. better-sqlite3 for Electron's ABI: the Node build in node_modules would crash the app's store.
  const status = electronBindingStatus(root);
  if (status.state !== 'current') {
    const log = join(logDir, 'rebuild-electron-sqlite.log');
    const version = status.target?.electron ?? '?';
    console.log(
      `better-sqlite3 for Electron ${version}: ${status.reason}; building it now (npm run rebuild:electron-sqlite; ` +
        `seconds with a prebuilt binary, about a minute when it compiles; log: ${rel(log)})…`,
    );
    const started = Date.now();
    const r = await run(process.execPath, [join(root, 'scripts', 'rebuild-electron-sqlite.mjs')], { log });
    if (r.code !== 0 || electronBindingStatus(root).state !== 'current') {
      const cause = causeFrom(logText(log));
      return headless(
        `The desktop app needs better-sqlite3 built for Electron ${version}, and building it failed${cause ? `: ${cause}` : ''} ` +
          `(details in ${rel(log)}). It needs the internet (a prebuilt binary from GitHub, or Electron's headers to compile ` +
          'against) and, to compile, Python and a C++ toolchain. Fix that, then run `npm run rebuild:electron-sqlite` or `npm start` again.',
      );
    }
    console.log(`better-sqlite3 for Electron ${version} is ready (${Math.round((Date.now() - started) / 1000)} s).`);
  }

  // 5. Launch. ELECTRON_RUN_AS_NODE in the caller's environment would turn Electron into plain Node.
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  console.log('Opening the desktop app…');
  const child = spawn(electron, ['.'], { cwd: root, stdio: 'inherit', env });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('error', (err) => {
    headless(`The Electron binary at ${rel(electron)} could not be started (${err.code ?? err.message}).`);
  });
  child.on('exit', (code, signal) => {
    if (signal) console.error(`The desktop app was ended by ${signal} (a crash, or killed); exit code ${exitCodeOf(code, signal)}.`);
    process.exit(exitCodeOf(code, signal));
  });
}

await main();
