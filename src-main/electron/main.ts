// Electron main process: starts the same service as `vconsole serve` (API listener on a configurable port),
// opens one hardened window on the built renderer, and wires the console channel map to ipcMain with sender
// checks. The only module tree that imports electron.
import { app, BrowserWindow, ipcMain, session, shell, Menu, Tray, nativeImage, type IpcMainInvokeEvent } from 'electron';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CHANNEL_NAMES } from '../../src-shared/channels';
import { dispatch } from '../console/handlers';
import { defaultDataDir } from '../paths';
import { startService, type RunningService } from '../service';
import { CONTENT_SECURITY_POLICY, isTrustedSenderUrl, secureWebPreferences, windowOpenHandler } from './security';

let service: RunningService | null = null;
let win: BrowserWindow | null = null;
let tray: Tray | null = null;

// Built as ESM: derive the folder from import.meta.url rather than relying on a __dirname shim.
const here = fileURLToPath(new URL('.', import.meta.url));
const rendererIndex = join(here, '../renderer/index.html');
const appOrigin = pathToFileURL(join(here, '../renderer/')).href;

function registerIpc(s: RunningService): void {
  for (const channel of CHANNEL_NAMES) {
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, input: unknown) => {
      const url = event.senderFrame?.url ?? '';
      if (!isTrustedSenderUrl(url, appOrigin) || event.sender !== win?.webContents) {
        return { ok: false, error: { code: 'FORBIDDEN', message: 'IPC from an untrusted sender was refused.' } };
      }
      return dispatch(s.handlers, channel, input, s.deps.log);
    });
  }
}

function createWindow(): void {
  win = new BrowserWindow({
    width: 1280,
    height: 820,
    show: false,
    title: 'Verification Console',
    webPreferences: secureWebPreferences(join(here, '../preload/index.mjs')),
  });
  win.once('ready-to-show', () => win?.show());
  win.webContents.setWindowOpenHandler(windowOpenHandler((url) => void shell.openExternal(url)));
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  win.webContents.on('will-attach-webview', (e) => e.preventDefault());
  void win.loadFile(rendererIndex);
}

async function boot(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  await app.whenReady();
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  session.defaultSession.webRequest.onHeadersReceived((details, cb) => {
    cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  const port = Number(process.env['VCONSOLE_PORT'] ?? 4010);
  service = await startService({ dataDir: process.env['VCONSOLE_DATA_DIR'] ?? defaultDataDir(), port, door: 'electron', logLevel: 'warn' });
  registerIpc(service);
  createWindow();
  try {
    tray = new Tray(nativeImage.createEmpty());
    tray.setToolTip(`Verification Console — API listening at ${service.apiBaseUrl}`);
    tray.setContextMenu(Menu.buildFromTemplate([{ label: `API: ${service.apiBaseUrl}`, enabled: false }, { label: 'Quit', click: () => app.quit() }]));
  } catch {
    tray = null;
  }
}

app.on('web-contents-created', (_e, contents) => {
  contents.on('will-navigate', (e) => e.preventDefault());
  contents.setWindowOpenHandler(windowOpenHandler(() => undefined));
});

app.on('window-all-closed', () => app.quit());
let quitting = false;
app.on('before-quit', (e) => {
  if (quitting || !service) return;
  // Graceful shutdown: stop accepting, drain the queue, close the store, then quit.
  e.preventDefault();
  quitting = true;
  void service.stop().finally(() => app.quit());
});

boot().catch((err: unknown) => {
  console.error('Verification Console failed to start:', err);
  app.exit(1);
});
