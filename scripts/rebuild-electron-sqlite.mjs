// Builds better-sqlite3 for Electron's ABI into build/native/electron/ (better_sqlite3.node + a stamp), from a copy
// of the package: the Node build in node_modules, used by headless mode and the tests, is never touched.
// Needs internet (Electron's headers, or a prebuilt binary); offline it stops with a clear message.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBindingStatus } from './lib/electron-binding.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'build', 'native', 'electron'); // electron-builder's extraResources reads it here

const status = electronBindingStatus(root);
if (!status.target) {
  console.error('rebuild-electron-sqlite: node_modules/electron or node_modules/better-sqlite3 is missing — run npm install first.');
  process.exit(1);
}
const { electron: electronVersion, abi, betterSqlite3: sqliteVersion, arch } = status.target;

const stampPath = join(outDir, 'better_sqlite3.json');
if (!process.argv.includes('--force') && status.state === 'current') {
  console.log(`rebuild-electron-sqlite: up to date (Electron ${electronVersion}, better-sqlite3 ${sqliteVersion}, ${process.platform}-${arch}).`);
  process.exit(0);
}

// Work on a copy so nothing under node_modules/better-sqlite3 changes.
const work = mkdtempSync(join(tmpdir(), 'vc-sqlite-electron-'));
const pkgCopy = join(work, 'better-sqlite3');
cpSync(join(root, 'node_modules', 'better-sqlite3'), pkgCopy, { recursive: true, filter: (src) => !src.includes(`${join('better-sqlite3', 'build')}`) });

// npm passes its own config to children as npm_config_*; this machine's `nodedir=/usr` would make node-gyp compile
// against Node's headers and produce a module Electron refuses (TOOLCHAIN.md). Drop every inherited npm setting.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k)));
const bin = (pkg, file) => join(root, 'node_modules', pkg, file);

function attempt(label, cmd, args) {
  console.log(`rebuild-electron-sqlite: ${label}…`);
  const r = spawnSync(process.execPath, [cmd, ...args], { cwd: pkgCopy, env, stdio: 'inherit', timeout: 15 * 60_000 });
  return r.status === 0 && existsSync(join(pkgCopy, 'build', 'Release', 'better_sqlite3.node'));
}

const target = ['--runtime=electron', `--target=${electronVersion}`, `--arch=${arch}`];
let ok = false;
// 1) better-sqlite3's own prebuilt binary for this Electron (GitHub release download): seconds instead of minutes.
if (existsSync(bin('prebuild-install', 'bin.js'))) ok = attempt(`prebuilt binary for Electron ${electronVersion}`, bin('prebuild-install', 'bin.js'), [...target, '--verbose']);
// 2) Compile with node-gyp against Electron's headers (downloaded from electronjs.org).
if (!ok && existsSync(bin('node-gyp', 'bin/node-gyp.js'))) {
  ok = attempt(
    `compiling with node-gyp against Electron ${electronVersion} headers`,
    bin('node-gyp', 'bin/node-gyp.js'),
    ['rebuild', '--release', `--target=${electronVersion}`, `--arch=${arch}`, '--dist-url=https://electronjs.org/headers', `--devdir=${join(root, 'build', 'native', '.node-gyp')}`],
  );
}

if (!ok) {
  rmSync(work, { recursive: true, force: true });
  console.error(
    [
      '',
      `rebuild-electron-sqlite: FAILED — could not get better-sqlite3 ${sqliteVersion} for Electron ${electronVersion} (${process.platform}-${arch}).`,
      'Both ways need the internet: the prebuilt binary comes from github.com, the headers for compiling from electronjs.org.',
      'On a machine without that access the Electron app cannot open its store; headless mode (`vconsole serve`) is unaffected.',
      'See docs/packaging.md.',
    ].join('\n'),
  );
  process.exit(1);
}

mkdirSync(outDir, { recursive: true });
cpSync(join(pkgCopy, 'build', 'Release', 'better_sqlite3.node'), join(outDir, 'better_sqlite3.node'));
writeFileSync(stampPath, JSON.stringify({ electron: electronVersion, abi, betterSqlite3: sqliteVersion, platform: process.platform, arch, builtAt: new Date().toISOString() }, null, 2) + '\n');
rmSync(work, { recursive: true, force: true });
console.log(`rebuild-electron-sqlite: wrote ${join('build', 'native', 'electron', 'better_sqlite3.node')} (Electron ${electronVersion}, ABI ${abi ?? '?'}).`);
