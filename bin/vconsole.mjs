#!/usr/bin/env node
// The `vconsole` command. Runs the built JavaScript (out/main/headless.js, electron-vite's headless entry): the code
// that ships, and several times faster to start than the sources through tsx (docs/performance.md, "Cold start"). In a source checkout it builds first when
// the build is missing or older than the sources (one build at a time, however many commands start at once).
// VCONSOLE_TSX=1 runs the TypeScript sources through tsx instead (development).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'out', 'main', 'headless.js');
const lock = join(root, 'out', '.vconsole-build.lock');

function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** True when there is no build, or (in a source checkout) a source file changed after it. */
function needsBuild() {
  if (!existsSync(built)) return true;
  const sources = ['src-main', 'src-shared'].map((d) => join(root, d)).filter((d) => existsSync(d));
  if (sources.length === 0) return false;
  const at = statSync(built).mtimeMs;
  return sources.some((d) => newestMtime(d) > at);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Builds under a lock directory (mkdir is atomic); a command that finds the lock waits for that build instead. */
async function build() {
  mkdirSync(join(root, 'out'), { recursive: true });
  for (const end = Date.now() + 180_000; ; ) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than five minutes was left by a build that died.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 300_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > end) throw new Error('another build has held out/.vconsole-build.lock for 3 minutes');
      await sleep(250);
      if (!needsBuild()) return true;
    }
  }
  try {
    if (!needsBuild()) return true;
    let cli;
    try {
      cli = join(dirname(createRequire(import.meta.url).resolve('electron-vite/package.json')), 'bin', 'electron-vite.js');
    } catch {
      return false;
    }
    process.stderr.write(
      existsSync(built) ? 'vconsole: sources changed since the last build; building (npm run build)…\n' : 'vconsole: no build yet; building (npm run build)…\n',
    );
    // The build's own output goes to stderr, so a command's stdout (--json) stays clean.
    const r = spawnSync(process.execPath, [cli, 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
    return r.status === 0 && existsSync(built);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

let main;
if (process.env.VCONSOLE_TSX === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src-main/cli/headless.ts'));
} else {
  if (needsBuild() && !(await build())) {
    if (!existsSync(built)) {
      process.stderr.write('vconsole: could not build out/main/headless.js; run `npm run build`, or set VCONSOLE_TSX=1 to run the sources.\n');
      process.exit(1);
    }
    process.stderr.write('vconsole: the build failed; running the previous build.\n');
  }
  ({ main } = await import(pathToFileURL(built).href));
}
process.exitCode = await main(process.argv.slice(2));
