// electron-builder `beforePack` hook (electron-builder.yml): refuses to package without the Electron-ABI
// better-sqlite3 for the Electron version, platform and architecture being packaged. Without it the package would
// start and stop at a "cannot open its data" dialog on every machine (docs/packaging.md). `npm run package*` builds
// it first (scripts/rebuild-electron-sqlite.mjs); this catches a bare `electron-builder` call or a cross-build.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// builder-util's Arch enum, by value, as Node names the architecture (process.arch, which the build stamp records:
// scripts/lib/electron-binding.mjs). electron-builder's `armv7l` is Node's `arm`; `universal` has no Node name.
const NODE_ARCH_BY_BUILDER_ARCH = ['ia32', 'x64', 'arm', 'arm64', null];
const UNIVERSAL = 4;

/** Node's name for an architecture named by electron-builder (its Arch enum value or name); null for universal. */
export function nodeArch(arch) {
  if (typeof arch === 'number') return arch === UNIVERSAL ? null : (NODE_ARCH_BY_BUILDER_ARCH[arch] ?? String(arch));
  if (arch === 'universal') return null;
  return arch === 'armv7l' ? 'arm' : arch;
}

const UNIVERSAL_REFUSED =
  'a universal macOS app holds an x64 and an arm64 app, and each needs a better-sqlite3 binding built for its own ' +
  'architecture; build/native/electron/ holds one binding, for one architecture. Package one architecture at a ' +
  'time instead, each with its own binding: `npm_config_arch=arm64 npm run package -- --arm64`, then ' +
  '`npm_config_arch=x64 npm run package -- --x64` (the rebuild step builds the binding for npm_config_arch).';

/**
 * Is this pack part of a universal macOS build? electron-builder packs the x64 and the arm64 app first (calling this
 * hook for each, into `<appOutDir>-x64-temp` / `-arm64-temp`), then merges them; the hook never sees `universal` there.
 */
function universalPart(context) {
  return context.arch === UNIVERSAL || (context.electronPlatformName === 'darwin' && /-(?:x64|arm64)-temp$/.test(String(context.appOutDir ?? '')));
}

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
    const built = k === 'arch' ? nodeArch(stamp[k]) : stamp[k];
    if (built !== want[k]) return `the better-sqlite3 binding was built for ${k} ${stamp[k]}, the package is for ${want[k]}. ${fix}`;
  }
  return null;
}

export async function beforePack(context) {
  if (universalPart(context)) throw new Error(`Not packaging: ${UNIVERSAL_REFUSED}`);
  const root = context.packager.projectDir;
  const want = {
    electron: context.packager.config.electronVersion,
    platform: context.electronPlatformName,
    arch: nodeArch(context.arch),
  };
  const problem = bindingProblem(join(root, 'build', 'native', 'electron'), want);
  if (problem) throw new Error(`Not packaging: ${problem}`);
}

export default beforePack;
