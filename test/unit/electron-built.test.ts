// The checklist asserted on what actually ships: the BUILT main process and preload (out/, from electron-vite).
// Builds once if out/ is missing; if the build cannot run, the suite is skipped with the reason.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const mainJs = join(root, 'out/main/index.js');
const preloadJs = join(root, 'out/preload/index.cjs');

function ensureBuilt(): string | null {
  if (existsSync(mainJs) && existsSync(preloadJs)) return null;
  const r = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(mainJs)) return `electron-vite build failed (${r.status}): ${(r.stderr || r.stdout).slice(-400)}`;
  return null;
}

const buildError = ensureBuilt();
if (buildError) console.warn(`electron-built tests skipped: ${buildError}`);

describe.skipIf(buildError !== null)('built main process (out/main/index.js)', () => {
  const main = buildError ? '' : readFileSync(mainJs, 'utf8');
  const windows = [...main.matchAll(/new BrowserWindow\(\{([\s\S]*?)\n\t\}\);/g)].map((m) => m[1]!);

  it('creates its window with contextIsolation, sandbox and without nodeIntegration', () => {
    expect(windows.length).toBeGreaterThan(0);
    for (const w of windows) {
      expect(w).toMatch(/contextIsolation:\s*true/);
      expect(w).toMatch(/sandbox:\s*true/);
      expect(w).toMatch(/nodeIntegration:\s*false/);
    }
    // The hardened preferences function is inlined into the bundle with the same values.
    expect(main).toMatch(/nodeIntegrationInWorker:\s*false/);
    expect(main).toMatch(/webviewTag:\s*false/);
  });

  it('never weakens web security anywhere in the bundle', () => {
    expect(main).not.toMatch(/webSecurity:\s*(false|!0|!1\b)/);
    expect(main).not.toMatch(/allowRunningInsecureContent:\s*(true|!0)/);
    expect(main).not.toMatch(/contextIsolation:\s*(false|!1)/);
    expect(main).not.toMatch(/sandbox:\s*(false|!1)/);
    expect(main).not.toMatch(/nodeIntegration:\s*(true|!0)/);
    expect(main).not.toMatch(/enableRemoteModule|experimentalFeatures:\s*true|enableBlinkFeatures/);
  });

  it("has no 'allow' in any window-open handler", () => {
    expect(main).toContain('setWindowOpenHandler(');
    expect(main).not.toMatch(/action:\s*["']allow["']/);
  });

  it('installs permission handlers, navigation guards, CSP and the IPC sender check', () => {
    expect(main).toContain('setPermissionRequestHandler(');
    expect(main).toContain('setPermissionCheckHandler(');
    expect(main).toMatch(/["']will-navigate["']/);
    expect(main).toMatch(/["']will-attach-webview["']/);
    expect(main).toContain('Content-Security-Policy');
    expect(main).toContain('isTrustedSenderUrl(');
    expect(main).toContain('requestSingleInstanceLock()');
  });

  it('loads the renderer from the app:// protocol, never a remote URL or file://', () => {
    expect(main).toContain('registerSchemesAsPrivileged');
    expect(main).toMatch(/protocol\.handle\(/);
    const loads = [...main.matchAll(/\.(loadURL|loadFile)\(([^)]*)\)/g)].map((m) => `${m[1]}(${m[2]})`);
    expect(loads.length).toBeGreaterThan(0);
    for (const l of loads) expect(l).not.toMatch(/https?:|file:/);
    expect(main).toMatch(/APP_ENTRY_URL\s*=\s*`\$\{APP_ORIGIN\}\/index\.html`|app:\/\/console\/index\.html/);
  });

  it('opens external links only through the allow-list, or a loopback console URL after its check', () => {
    const calls = [...main.matchAll(/^.*shell\.openExternal\(([^)]*)\).*$/gm)];
    expect(calls.length).toBeGreaterThan(0);
    for (const m of calls) {
      // The renderer's links: only the `openExternal` passed to the guards (which call isAllowedExternal first).
      if (m[1] === 'url') continue;
      // The folder-in-use dialog: the holder's console, on the same line after isLoopbackHttpUrl of the same value.
      expect(m[1]).toBe('d.consoleUrl');
      expect(m[0]).toMatch(/isLoopbackHttpUrl\(d\.consoleUrl\)\)\s*await shell\.openExternal\(d\.consoleUrl\)/);
    }
    expect(main).toContain('isAllowedExternal(');
  });
});

describe.skipIf(buildError !== null)('built preload (out/preload/index.cjs)', () => {
  const preload = buildError ? '' : readFileSync(preloadJs, 'utf8');
  it('is CommonJS (a sandboxed preload cannot be an ES module)', () => {
    expect(preload).toMatch(/require\(["']electron["']\)/);
    expect(preload).not.toMatch(/^\s*import\s.*from\s+["']electron["']/m);
  });
  it('exposes exactly one object through contextBridge and never hands out ipcRenderer', () => {
    expect(preload.match(/exposeInMainWorld\(/g)).toHaveLength(1);
    expect(preload).toMatch(/exposeInMainWorld\(["']vc["']/);
    expect(preload).not.toMatch(/ipcRenderer\.(send|sendSync|on|once)\(/);
    expect(preload).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer\s*\)/);
  });
});
