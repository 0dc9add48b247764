// Electron main process: starts the same service as `vconsole serve` on the same data folder, opens one hardened
// window on the built renderer (app:// scheme), wires the console channel map to ipcMain with sender checks, and
// shows the API listener's state in the tray and menu. The only module tree that imports electron.
import { app, BrowserWindow, dialog, ipcMain, nativeImage, Notification, powerMonitor, safeStorage, screen, session, shell, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHANNEL_NAMES } from '../../src-shared/channels';
import { dispatch } from '../console/handlers';
import { forwardLiveEvents } from './live-events';
import { createNodeSecretBox } from '../core/providers/secret-box';
import { defaultDataDir, projectRoot } from '../paths';
import { ListenError, startService, type RunningService, type ServiceConfig } from '../service';
import { useNativeBinding } from '../store/database';
import { DataFolderLockedError } from '../store/data-folder-lock';
import { StoreError } from '../store/database';
import { registerAppScheme, serveRenderer } from './app-protocol';
import { answerAppDownload } from './app-downloads';
import { createDesktopLogger, type DesktopLogger } from './desktop-logger';
import { createInFlight } from './in-flight';
import { loadElectronBinding } from './native-binding';
import { appIconPng } from './png';
import { createSafeStorageBox } from './safe-storage-box';
import { BINDING_PROBLEM_TITLE, folderInUseDialog, isLoopbackHttpUrl } from './startup-problems';
import {
  APP_ENTRY_URL,
  CONTENT_SECURITY_POLICY,
  isTrustedSenderUrl,
  navigationGuard,
  permissionCheckHandler,
  permissionRequestHandler,
  secureWebPreferences,
  windowOpenHandler,
} from './security';
import { createShellMenus, listenerErrorDialog, type ShellMenus } from './tray';
import { listenerFailure, type ListenerState } from './tray-menu';
import { readWindowState, restoreWindowState, trackWindowState } from './window-state';
import { startWebhookAlerts, type WebhookAlerts } from './webhook-alerts';

// Built as ESM: derive the folder from import.meta.url rather than relying on a __dirname shim.
const here = fileURLToPath(new URL('.', import.meta.url));
const rendererRoot = join(here, '../renderer');
const preloadPath = join(here, '../preload/index.cjs');

// One store for the CLI and the app (decisions §11). Chromium's own profile lives inside it, so the single-instance
// lock is per store: two apps never share one database, while a second store (VCONSOLE_DATA_DIR) may run beside.
const dataDir = defaultDataDir();
app.setPath('userData', join(dataDir, 'electron'));
const windowStateFile = join(app.getPath('userData'), 'window-state.json');

let service: RunningService | null = null;
let win: BrowserWindow | null = null;
let menus: ShellMenus | null = null;
let webhookAlerts: WebhookAlerts | null = null;
let listener: ListenerState = { kind: 'not-listening', reason: 'error', message: 'Starting…' };
let desktopLog: DesktopLogger | null = null;
let saveWindowState: (() => void) | null = null;
let stopLiveEvents: (() => void) | null = null;
// starting → running → stopping → stopped. A second instance, IPC and windows are served only while running; a quit
// asked for while starting waits for the start to finish, then stops gracefully like any other, opening no window.
let phase: 'starting' | 'running' | 'stopping' | 'stopped' = 'starting';
let quitWhenStarted = false;
// A second launch while this one stops (or was asked to quit while starting): start again once stopped.
let relaunchWhenStopped = false;
// The OS is ending the session (shut down, restart, log out): the stop is short and no quit is held.
let osEnding = false;
const ipcCalls = createInFlight();

const openExternal = (url: string) => void shell.openExternal(url);

registerAppScheme();

function isOurWindow(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  // The top frame of our one window, on our scheme: never a subframe, another window or a navigated-away page.
  return !!frame && frame === event.sender.mainFrame && event.sender === win?.webContents && isTrustedSenderUrl(frame.url);
}

function registerIpc(s: RunningService): void {
  for (const channel of CHANNEL_NAMES) {
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, input: unknown) => {
      if (phase !== 'running') return { ok: false, error: { code: 'UNAVAILABLE', message: 'The app is quitting.' } };
      if (!isOurWindow(event)) {
        return { ok: false, error: { code: 'FORBIDDEN', message: 'IPC from an untrusted sender was refused.' } };
      }
      // Counted, so the stop lets it finish before the store closes.
      return ipcCalls.track(dispatch(s.handlers, channel, input, s.deps.log));
    });
  }
}

function hardenContents(contents: WebContents): void {
  contents.on('will-navigate', navigationGuard(openExternal));
  contents.on('will-redirect', navigationGuard(openExternal));
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(windowOpenHandler(openExternal));
}

function createWindow(): void {
  // Never during start-up or a stop: a window then would show a console whose IPC is refused.
  if (phase !== 'running' || quitWhenStarted || win) return;
  const restored = restoreWindowState(readWindowState(windowStateFile), screen.getAllDisplays());
  win = new BrowserWindow({
    ...restored.bounds,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Verification Console',
    // Linux takes the window icon from here (macOS and Windows from the app bundle / executable).
    ...(process.platform === 'linux' ? { icon: nativeImage.createFromBuffer(appIconPng(256)) } : {}),
    // The checklist values are restated literally here so static analysis (Electronegativity) and the built-code
    // test see them at the construction site; secureWebPreferences carries the full set (unit-tested).
    webPreferences: {
      ...secureWebPreferences(preloadPath),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      disableBlinkFeatures: 'Auxclick',
    },
  });
  saveWindowState = trackWindowState(win, windowStateFile, screen).saveNow;
  win.once('ready-to-show', () => {
    // A quit may have begun while the page loaded: the window stays hidden.
    if (phase !== 'running') return;
    if (restored.maximized) win?.maximize();
    win?.show();
    if (listener.kind === 'not-listening') listenerErrorDialog(win, listener);
  });
  win.on('closed', () => {
    win = null;
  });
  // Windows tells each top-level window that the session ends (shut down, restart, sign out).
  win.on('query-session-end', () => osSessionEnding());
  win.on('session-end', () => osSessionEnding());
  void win.loadURL(APP_ENTRY_URL);
}

/** Shows the window on one webhook's page (the console's address for it: app/routes.ts). */
function showWebhook(webhookId: string, environment: 'sandbox' | 'live'): void {
  if (phase !== 'running') return;
  showWindow();
  void win?.loadURL(`${APP_ENTRY_URL}#/webhooks/${encodeURIComponent(webhookId)}?env=${environment}`);
}

/** Tray, menu, notification and second launch: only while running (never during a stop). */
function showWindow(): void {
  if (phase !== 'running') return;
  if (!win) return createWindow();
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

function serviceConfig(): ServiceConfig {
  const envPort = process.env['VCONSOLE_PORT'];
  const nodeBox = createNodeSecretBox(dataDir);
  const box = createSafeStorageBox(safeStorage, nodeBox);
  return {
    dataDir,
    door: 'electron',
    // One logger for the core and Fastify, into <data folder>/logs/desktop.log (a Windows GUI process has no stdout).
    ...(desktopLog ? { logger: desktopLog.logger } : {}),
    // Only an explicit override; otherwise the port saved in Settings (or the default) applies.
    ...(envPort ? { port: Number(envPort) } : {}),
    secretBox: box,
  };
}

async function startCore(): Promise<RunningService> {
  const cfg = serviceConfig();
  try {
    const s = await startService(cfg);
    listener = s.apiBaseUrl ? { kind: 'listening', apiBaseUrl: s.apiBaseUrl } : listenerFailure(new Error('not listening'));
    return s;
  } catch (err) {
    if (!(err instanceof ListenError)) throw err;
    // Port taken: the console still opens (over IPC) and says what to change, rather than the app dying. The failed
    // start released the data folder's lock; this start takes it again or throws DataFolderLockedError (a service
    // that took the folder meanwhile), so a worker only ever runs in the folder's one service.
    listener = listenerFailure(err);
    return startService({ ...cfg, listen: false });
  }
}

function logError(msg: string, err?: unknown): void {
  console.error(msg, err ?? '');
  desktopLog?.logger.error({ err }, msg);
}

/** A start that cannot go on: the dialog names the problem and its fix, then the app ends with exit code 1. */
async function fatal(title: string, message: string): Promise<void> {
  logError(`${title}: ${message}`);
  dialog.showErrorBox(title, message);
  await desktopLog?.close();
  app.exit(1);
}

/** Another service holds the data folder (DataFolderLockedError): say who, offer its console, quit with 1. */
async function folderInUse(err: DataFolderLockedError): Promise<void> {
  logError(err.message);
  const d = folderInUseDialog(err.message, err.holder);
  const { response } = await dialog.showMessageBox(d.options);
  if (d.consoleUrl && response === 0 && isLoopbackHttpUrl(d.consoleUrl)) await shell.openExternal(d.consoleUrl);
  await desktopLog?.close();
  app.exit(1);
}

async function boot(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    // The first instance got 'second-instance' and shows its window; nothing to stop here.
    app.exit(0);
    return;
  }
  // A second launch while this one is still starting would get a second window: ignored until running (the window
  // opens then). One while this one is quitting is not dropped: the app starts again once the stop is done.
  app.on('second-instance', () => {
    if (phase === 'running') return showWindow();
    if (!osEnding && (phase === 'stopping' || (phase === 'starting' && quitWhenStarted))) relaunchWhenStopped = true;
  });

  await app.whenReady();
  // macOS and Linux say the session ends through powerMonitor (usable only once ready); Windows through the window.
  powerMonitor.on('shutdown', (e?: { preventDefault(): void }) => {
    // Linux: asks logind to wait for the short stop (a delay lock, itself bounded by logind). Not on macOS, where only
    // a prompt exit keeps the log-out going.
    if (process.platform === 'linux') e?.preventDefault();
    osSessionEnding();
  });
  desktopLog = createDesktopLogger(dataDir, process.env['LOG_LEVEL'] ?? 'warn');
  // Never open the store with a binding that cannot load: say what is wrong and what fixes it, then quit.
  const binding = loadElectronBinding({ resourcesPath: process.resourcesPath, projectRoot: projectRoot(), abi: process.versions.modules, packaged: app.isPackaged });
  if (!binding.ok) return fatal(BINDING_PROBLEM_TITLE, binding.message);
  useNativeBinding(binding.path);

  const ses = session.defaultSession;
  ses.setPermissionRequestHandler(permissionRequestHandler);
  ses.setPermissionCheckHandler(permissionCheckHandler);
  ses.webRequest.onHeadersReceived((details, cb) => {
    cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  // The audit export is downloaded over the app scheme, streamed, as from the web door: not one IPC message.
  serveRenderer(ses, rendererRoot, (req) => answerAppDownload(req, phase === 'running' ? service : null));

  try {
    service = await startCore();
  } catch (err) {
    if (err instanceof DataFolderLockedError) return folderInUse(err);
    // A damaged, unwritable or newer store: the message names the file, the problem and the next step.
    if (err instanceof StoreError) return fatal('The data folder cannot be opened', err.message);
    throw err;
  }
  registerIpc(service);
  stopLiveEvents = forwardLiveEvents(service, () => win?.webContents ?? null);
  menus = createShellMenus(
    listener,
    {
      openConsole: showWindow,
      openWebhook: showWebhook,
      showListenerError: () => listenerErrorDialog(win, listener),
      quit: () => app.quit(),
    },
    { packaged: app.isPackaged },
  );
  // A webhook turning `failed`: an OS notification and the tray's state (docs/webhooks.md "When an endpoint fails").
  webhookAlerts = startWebhookAlerts({ deps: service.deps, Notification, setTrayState: (s) => menus?.setWebhooks(s), openWebhook: showWebhook });
  phase = 'running';
  // A quit asked for during start-up: stop now, without opening a window first.
  if (quitWhenStarted) return void app.quit();
  createWindow();
}

app.on('web-contents-created', (_e, contents) => hardenContents(contents));

app.on('window-all-closed', () => app.quit());

const STOP_TIMEOUT_MS = 15_000;
/** How long a stop waits for the console's IPC calls in flight before it closes the store anyway. */
const IPC_DRAIN_MS = 5_000;
/** When the OS ends the session: the whole stop, and its IPC wait, at most (then the quit goes on). */
const OS_STOP_TIMEOUT_MS = 3_000;
const OS_IPC_DRAIN_MS = 1_000;

app.on('before-quit', (e) => {
  if (phase === 'stopped') return;
  if (osEnding) {
    // The OS is ending the session: never refuse the quit — macOS takes a held quit as the app refusing and aborts
    // the log-out or shut-down. The short stop begun when the OS said so goes on while the process lives; the store
    // is crash-safe (WAL, durable commits), so a cut-short stop loses nothing acknowledged.
    beginStop(OS_STOP_TIMEOUT_MS, OS_IPC_DRAIN_MS);
    return;
  }
  // Every other quit is held until the graceful stop has finished — a second one (tray Quit, then closing the
  // window) included, so nothing exits in the middle of stop().
  e.preventDefault();
  if (phase === 'starting') {
    quitWhenStarted = true;
    return;
  }
  beginStop(STOP_TIMEOUT_MS, IPC_DRAIN_MS);
});

/** The OS ends the session: a short stop now, and the quit goes on within OS_STOP_TIMEOUT_MS whatever happens. */
function osSessionEnding(): void {
  if (osEnding) return;
  osEnding = true;
  relaunchWhenStopped = false;
  if (phase === 'starting') quitWhenStarted = true;
  else if (phase === 'running') beginStop(OS_STOP_TIMEOUT_MS, OS_IPC_DRAIN_MS);
  else if (phase === 'stopping') {
    // A stop already under way (allowed 15 s): the OS does not wait that long.
    setTimeout(() => endQuit(), OS_STOP_TIMEOUT_MS).unref?.();
  }
}

/** The stop is over (or out of time): start again if a second launch asked for it, and let the quit go on. */
function endQuit(code?: number): void {
  if (phase === 'stopped') return;
  phase = 'stopped';
  menus?.destroy();
  if (relaunchWhenStopped && !osEnding) app.relaunch();
  if (code === undefined) app.quit();
  else app.exit(code);
}

/**
 * Graceful shutdown: first what reads the store on its own (the webhook alerts' timer and failure listener, the
 * live-event forwarding), then the console's IPC calls in flight are let finish (new ones are refused from now on),
 * then the service stops accepting, lets in-flight jobs and deliveries finish (service.stop awaits the worker and the
 * dispatcher), closes the store, and the log is flushed. Queued jobs are durable and resume at the next start. The
 * window goes away at once (its state saved first, which also covers a forced exit).
 */
function beginStop(timeoutMs: number, ipcDrainMs: number): void {
  if (phase !== 'running' || !service) return;
  phase = 'stopping';
  saveWindowState?.();
  win?.hide();
  webhookAlerts?.stop();
  webhookAlerts = null;
  stopLiveEvents?.();
  stopLiveEvents = null;
  const s = service;
  const timer = setTimeout(() => {
    if (osEnding) {
      logError(`The OS is ending the session; quitting before the stop finished (${timeoutMs} ms; the store is crash-safe).`);
      return endQuit();
    }
    logError(`Shutdown took longer than ${timeoutMs} ms; exiting (the store is transactional, nothing is lost).`);
    endQuit(1);
  }, timeoutMs);
  void ipcCalls
    .settled(ipcDrainMs)
    .then((drained) => {
      if (!drained) logError(`${ipcCalls.size} console call(s) still running after ${ipcDrainMs} ms; stopping the service anyway.`);
      return s.stop();
    })
    .catch((err: unknown) => logError('Error while stopping the service:', err))
    .then(() => desktopLog?.close())
    .finally(() => {
      clearTimeout(timer);
      service = null;
      endQuit();
    });
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => app.quit());

boot().catch((err: unknown) => fatal('Verification Console failed to start', err instanceof Error ? err.message : String(err)));
