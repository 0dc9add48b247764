// electron-builder `beforePack` hook (electron-builder.yml): refuses to package without the Electron-ABI
// better-sqlite3 for the Electron version, platform and architecture being packaged. Without it the package would
// start and stop at a "cannot open its data" dialog on every machine (docs/packaging.md). `npm run package*` builds
// it first (scripts/rebuild-electron-sqlite.mjs); this catches a bare `electron-builder` call or a cross-build.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// builder-util's Arch enum, by value.
const ARCH_NAMES = ['ia32', 'x64', 'armv7l', 'arm64', 'universal'];

/** null when the binding in `dir` fits; else the reason, with the fix. */
export function bindingProblem(dir, want) {
  const fix = 'Run `npm run rebuild:electron-sqlite` on the target OS and architecture (or use `npm run package`, which does).';
  if (!existsSync(join(dir, 'better_sqlite3.node'))) return `${join(dir, 'better_sqlite3.node')} is missing. ${fix}`;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(dir, 'better_sqlite3.json'), 'utf8'));
  } catch {
    return `${join(dir, 'better_sqlite3.json')} (the build stamp) is missing or unreadable. ${fix}`;
  }
  for (const k of ['electron', 'platform', 'arch']) {
    if (stamp[k] !== want[k]) return `the better-sqlite3 binding was built for ${k} ${stamp[k]}, the package is for ${want[k]}. ${fix}`;
  }
  return null;
}

export async function beforePack(context) {
  const root = context.packager.projectDir;
  const want = {
    electron: context.packager.config.electronVersion,
    platform: context.electronPlatformName,
    arch: ARCH_NAMES[context.arch] ?? String(context.arch),
  };
  const problem = bindingProblem(join(root, 'build', 'native', 'electron'), want);
  if (problem) throw new Error(`Not packaging: ${problem}`);
}

export default beforePack;
