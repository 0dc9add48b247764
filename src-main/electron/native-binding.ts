// Which better-sqlite3 native module the Electron main process loads: the Electron-ABI copy built by
// scripts/rebuild-electron-sqlite.mjs (never the Node build in node_modules, which headless mode and tests use).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const BINDING_FILE = 'better_sqlite3.node';
/** Written next to the binding by the rebuild script: the Electron version and ABI it was built for. */
export const STAMP_FILE = 'better_sqlite3.json';

export interface BindingLookup {
  /** process.resourcesPath in a packaged app (electron-builder copies the binding to <resources>/native). */
  resourcesPath?: string | undefined;
  projectRoot: string;
  /** process.versions.modules of the running Electron. */
  abi: string;
  exists?: (p: string) => boolean;
  read?: (p: string) => string;
}

export type BindingChoice = { ok: true; path: string } | { ok: false; message: string };

export function candidateDirs(l: Pick<BindingLookup, 'resourcesPath' | 'projectRoot'>): string[] {
  const dirs: string[] = [];
  if (l.resourcesPath) dirs.push(join(l.resourcesPath, 'native'));
  dirs.push(join(l.projectRoot, 'build', 'native', 'electron'));
  return dirs;
}

export function chooseElectronBinding(l: BindingLookup): BindingChoice {
  const exists = l.exists ?? existsSync;
  const read = l.read ?? ((p: string) => readFileSync(p, 'utf8'));
  const tried: string[] = [];
  for (const dir of candidateDirs(l)) {
    const file = join(dir, BINDING_FILE);
    tried.push(file);
    if (!exists(file)) continue;
    const stampFile = join(dir, STAMP_FILE);
    if (exists(stampFile)) {
      try {
        const stamp = JSON.parse(read(stampFile)) as { abi?: string };
        if (stamp.abi && stamp.abi !== l.abi) {
          return { ok: false, message: `${file} was built for Electron ABI ${stamp.abi}, this Electron has ABI ${l.abi}. Run: npm run rebuild:electron-sqlite` };
        }
      } catch {
        // An unreadable stamp is not proof of a mismatch; let better-sqlite3 report a real one.
      }
    }
    return { ok: true, path: file };
  }
  return {
    ok: false,
    message: `No Electron build of better-sqlite3 (looked for ${tried.join(', ')}). Run: npm run rebuild:electron-sqlite (needs internet for Electron's headers).`,
  };
}

/** The command that fixes a binding problem: in a checkout, the rebuild; a packaged app ships its own copy. */
export function bindingFix(packaged: boolean): string {
  return packaged
    ? 'This installation is incomplete or damaged: reinstall Verification Console.'
    : 'Run: npm run rebuild:electron-sqlite (needs internet for Electron\'s headers), or simply npm start, which runs it.';
}

/**
 * chooseElectronBinding, then loads the chosen file once (as better-sqlite3 will), so a binding that cannot load —
 * another ABI without a stamp, a truncated file, a missing system library — is reported before the store is opened
 * with it, with the problem and the command that fixes it (docs/packaging.md).
 */
export function loadElectronBinding(
  l: BindingLookup & { packaged: boolean; load?: (path: string) => unknown },
): BindingChoice {
  const choice = chooseElectronBinding(l);
  const fix = bindingFix(l.packaged);
  if (!choice.ok) return { ok: false, message: `${choice.message.replace(/ Run: .*$/, '')}\n\n${fix}` };
  try {
    (l.load ?? createRequire(import.meta.url))(choice.path);
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    return { ok: false, message: `better-sqlite3 for Electron (${choice.path}) cannot be loaded: ${why}\n\n${fix}` };
  }
  return choice;
}
