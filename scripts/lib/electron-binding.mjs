// Is the Electron-ABI better-sqlite3 (build/native/electron/, from scripts/rebuild-electron-sqlite.mjs) there and
// built for the installed Electron? Shared by `npm start` (rebuild before launch when not) and the rebuild script
// (nothing to do when it is). Plain ESM with no dependencies: it runs before anything is built.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const BINDING_DIR = join('build', 'native', 'electron');

const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));

/** What the binding must match: the installed Electron and better-sqlite3, this platform and architecture. */
export function bindingTarget(root, env = process.env) {
  const electronPkg = join(root, 'node_modules', 'electron', 'package.json');
  const sqlitePkg = join(root, 'node_modules', 'better-sqlite3', 'package.json');
  if (!existsSync(electronPkg) || !existsSync(sqlitePkg)) return null;
  const abiFile = join(root, 'node_modules', 'electron', 'abi_version');
  return {
    electron: env.ELECTRON_VERSION ?? readJson(electronPkg).version,
    abi: existsSync(abiFile) ? readFileSync(abiFile, 'utf8').trim() : null,
    betterSqlite3: readJson(sqlitePkg).version,
    platform: process.platform,
    arch: env.npm_config_arch ?? process.arch,
  };
}

/**
 * 'current' | 'missing' | 'stale', with a sentence saying why. A stamp that cannot be read counts as stale: the
 * rebuild is cheap next to a crash at launch.
 */
export function electronBindingStatus(root, env = process.env) {
  const target = bindingTarget(root, env);
  if (!target) return { state: 'missing', reason: 'node_modules/electron or node_modules/better-sqlite3 is missing (run npm install)', target: null };
  const dir = join(root, BINDING_DIR);
  if (!existsSync(join(dir, 'better_sqlite3.node'))) return { state: 'missing', reason: 'not built yet', target };
  let stamp;
  try {
    stamp = readJson(join(dir, 'better_sqlite3.json'));
  } catch {
    return { state: 'stale', reason: 'its stamp (better_sqlite3.json) is missing or unreadable', target };
  }
  for (const k of ['electron', 'betterSqlite3', 'platform', 'arch']) {
    if (stamp[k] !== target[k]) return { state: 'stale', reason: `built for ${k} ${stamp[k] ?? '?'}, installed is ${target[k]}`, target };
  }
  return { state: 'current', reason: `built for Electron ${target.electron}`, target };
}
