// `npm start`: builds, then opens the Electron app where an Electron binary and a display exist; otherwise says
// why and starts the headless service with the web console, printing its URL. Extra arguments go to `serve`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const passThrough = process.argv.slice(2);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  return r.status ?? 1;
}

console.log('Building the console (electron-vite build)…');
if (run(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build']) !== 0) {
  console.error('The build failed; see the errors above.');
  process.exit(1);
}

function electronBinary() {
  try {
    const p = require('electron');
    return typeof p === 'string' && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

let electron = electronBinary();
if (!electron && existsSync('node_modules/electron/install.js')) {
  console.log('No Electron binary yet; trying to download it (node node_modules/electron/install.js)…');
  const r = spawnSync(process.execPath, ['node_modules/electron/install.js'], { stdio: 'inherit', timeout: 120_000 });
  if (r.status === 0) electron = electronBinary();
}
const hasDisplay = process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);

if (electron && hasDisplay) {
  const child = spawn(electron, ['.'], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log(
    electron
      ? 'No display found: starting the headless service with the web console instead.'
      : 'The Electron binary is not available on this machine: starting the headless service with the web console instead.',
  );
  const child = spawn(process.execPath, ['bin/vconsole.mjs', 'serve', ...passThrough], { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code) => process.exit(code ?? 0));
}
