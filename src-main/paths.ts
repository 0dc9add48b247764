// Where the app's own files are: the project root (found by walking up from this module, so it works from
// src-main under tsx and from out/ after a build), resources/, and the built renderer.
import { existsSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'resources', 'sandbox', 'fixtures.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return process.cwd();
}

export function resourcesDir(): string {
  const packaged = (process as { resourcesPath?: string }).resourcesPath;
  if (packaged && existsSync(join(packaged, 'resources', 'sandbox', 'fixtures.json'))) return join(packaged, 'resources');
  return join(projectRoot(), 'resources');
}

export function rendererDir(): string {
  return join(projectRoot(), 'out', 'renderer');
}

/** The data folder when no --data-dir is given: $VCONSOLE_DATA_DIR, else the platform's (platformDataDir). */
export function defaultDataDir(): string {
  if (process.env['VCONSOLE_DATA_DIR']) return resolve(process.env['VCONSOLE_DATA_DIR']);
  return platformDataDir();
}

/** The platform's application-data folder (the Electron app uses the same one), whatever $VCONSOLE_DATA_DIR says. */
export function platformDataDir(): string {
  const home = homedir();
  switch (platform()) {
    case 'win32':
      return join(process.env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), 'Verification Console');
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'Verification Console');
    default:
      return join(process.env['XDG_CONFIG_HOME'] ?? join(home, '.config'), 'verification-console');
  }
}
