// The real Electron main process (src-main/electron/main.ts) on the Electron module stand-in, with the real service
// on a temporary data folder: binding problems end in a dialog and exit 1 before the store is opened; a data folder
// held by another service ends in a dialog offering its console and exit 1; a taken port keeps the one service of
// the folder (console only); quit is graceful however often it is asked; a second launch during start-up is ignored,
// one during the stop starts the app again afterwards; nothing opens a window during a stop; console calls in flight
// finish before the store closes; an OS shut-down / log-out gets a short stop and its quit is never held.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { LiveEventHub } from '../../src-main/core/events/live-events';
import { acquireDataFolderLock, readLockHolder } from '../../src-main/store/data-folder-lock';
import { createElectronStandIn, useElectronStandIn, type ElectronStandIn } from '../helpers/electron-stand-in';

vi.mock('electron', async () => (await import('../helpers/electron-stand-in')).electronModule());

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const nodeBinding = join(repo, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
const cleanups: (() => void | Promise<void>)[] = [];
const envBefore = { ...process.env };
const resourcesBefore = (process as { resourcesPath?: string }).resourcesPath;

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  process.env = { ...envBefore };
  (process as { resourcesPath?: string }).resourcesPath = resourcesBefore;
});

type Binding = 'loadable' | 'stale' | 'unloadable';

/**
 * Starts main.ts as Electron would: `resources/native/` holds the binding (a loadable one is a copy of the Node build
 * of better-sqlite3, stamped with this runtime's ABI — it is what this process can load), then 'ready' fires.
 */
async function launch(o: { binding?: Binding; port?: number; packaged?: boolean; messageBoxResponse?: number; beforeReady?: (e: ElectronStandIn) => unknown } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'vc-electron-data-'));
  const resources = mkdtempSync(join(tmpdir(), 'vc-electron-res-'));
  cleanups.push(() => rmSync(resources, { recursive: true, force: true }));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  mkdirSync(join(resources, 'native'));
  const binding = o.binding ?? 'loadable';
  if (binding === 'unloadable') writeFileSync(join(resources, 'native/better_sqlite3.node'), 'not a shared library');
  else copyFileSync(nodeBinding, join(resources, 'native/better_sqlite3.node'));
  writeFileSync(join(resources, 'native/better_sqlite3.json'), JSON.stringify({ abi: binding === 'stale' ? '1' : process.versions.modules }));
  (process as { resourcesPath?: string }).resourcesPath = resources;
  process.env['VCONSOLE_DATA_DIR'] = dataDir;
  process.env['VCONSOLE_PORT'] = String(o.port ?? 0);
  delete process.env['LOG_LEVEL'];

  const e = useElectronStandIn(createElectronStandIn({ packaged: o.packaged ?? false, messageBoxResponse: o.messageBoxResponse ?? 0 }));
  const signals = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  vi.resetModules();
  await import('../../src-main/electron/main');
  cleanups.push(async () => {
    // Whatever the case left running is stopped the app's own way, and the handlers it added to process removed.
    if (e.ended === null) {
      e.app.quit();
      await vi.waitFor(() => expect(e.ended).not.toBeNull(), { timeout: 20_000 });
    }
    for (const sig of ['SIGINT', 'SIGTERM'] as const) for (const l of process.listeners(sig)) if (!signals[sig].includes(l)) process.off(sig, l);
  });
  await o.beforeReady?.(e);
  e.ready();
  return { e, dataDir };
}

/** Started: the service is up (the application menu is set just before the window is made) and a window exists. */
const running = (e: ElectronStandIn) =>
  vi.waitFor(
    () => {
      expect(e.menus.length).toBeGreaterThan(0);
      expect(e.windows.length).toBeGreaterThan(0);
    },
    { timeout: 20_000 },
  );
const ended = (e: ElectronStandIn) => vi.waitFor(() => expect(e.ended).not.toBeNull(), { timeout: 20_000 });

describe('binding problems: a dialog with the problem and the fix, exit 1, the store never opened', () => {
  it('a binding built for another Electron ABI', async () => {
    const { e, dataDir } = await launch({ binding: 'stale' });
    await ended(e);
    expect(e.ended).toBe(1);
    expect(e.dialogs).toHaveLength(1);
    expect(e.dialogs[0]).toMatchObject({ kind: 'error-box', title: 'Verification Console cannot open its data' });
    expect(e.dialogs[0]!.message).toMatch(/built for Electron ABI 1, this Electron has ABI/);
    expect(e.dialogs[0]!.message).toMatch(/npm run rebuild:electron-sqlite/);
    expect(e.windows).toHaveLength(0);
    expect(existsSync(join(dataDir, 'verification-console.sqlite'))).toBe(false);
    // The message reaches the log file too, not only stderr.
    expect(readFileSync(join(dataDir, 'logs/desktop.log'), 'utf8')).toMatch(/built for Electron ABI 1/);
  });

  it('a binding that cannot be loaded (damaged file)', async () => {
    const { e, dataDir } = await launch({ binding: 'unloadable' });
    await ended(e);
    expect(e.ended).toBe(1);
    expect(e.dialogs[0]!.message).toMatch(/cannot be loaded: .*\n\nRun: npm run rebuild:electron-sqlite/);
    expect(existsSync(join(dataDir, 'verification-console.sqlite'))).toBe(false);
  });

  it('in a packaged app the fix is to reinstall (there is no npm there)', async () => {
    const { e } = await launch({ binding: 'stale', packaged: true });
    await ended(e);
    expect(e.ended).toBe(1);
    expect(e.dialogs[0]!.message).toMatch(/reinstall Verification Console/);
    expect(e.dialogs[0]!.message).not.toMatch(/npm run/);
  });
});

describe('a store that cannot be opened (issue 20)', () => {
  it('a damaged store: a dialog naming the file and the restore command, exit 1, the file untouched', async () => {
    const { e, dataDir } = await launch({
      beforeReady: () => {
        const dir = process.env['VCONSOLE_DATA_DIR']!;
        writeFileSync(join(dir, 'verification-console.sqlite'), Buffer.alloc(8192, 0x5a));
      },
    });
    await ended(e);
    expect(e.ended).toBe(1);
    expect(e.windows).toHaveLength(0);
    expect(e.dialogs[0]).toMatchObject({ title: 'The data folder cannot be opened' });
    expect(JSON.stringify(e.dialogs[0])).toContain(`${join(dataDir, 'verification-console.sqlite')} is damaged`);
    expect(JSON.stringify(e.dialogs[0])).toContain('vconsole db restore');
    expect(readFileSync(join(dataDir, 'verification-console.sqlite'))).toEqual(Buffer.alloc(8192, 0x5a));
  });
});

describe('the data folder held by another service (DataFolderLockedError)', () => {
  it("a dialog naming the holder that opens its console in the browser, then exit 1; no window, no worker", async () => {
    let lock: ReturnType<typeof acquireDataFolderLock> | null = null;
    const { e, dataDir } = await launch({
      messageBoxResponse: 0,
      beforeReady: () => {
        lock = acquireDataFolderLock(process.env['VCONSOLE_DATA_DIR']!, 'serve');
        lock.update({ url: 'http://127.0.0.1:4999', host: '127.0.0.1', port: 4999 });
      },
    });
    cleanups.push(() => lock?.release());
    await ended(e);
    expect(e.ended).toBe(1);
    expect(e.windows).toHaveLength(0);
    expect(e.dialogs).toHaveLength(1);
    const d = e.dialogs[0]!;
    expect(d).toMatchObject({ kind: 'message-box', title: 'Data folder in use', buttons: ['Open its console in the browser', 'Quit'] });
    expect(d.detail).toContain(`The data folder ${dataDir} is in use`);
    expect(d.detail).toMatch(/one-time link/);
    expect(e.opened).toEqual(['http://127.0.0.1:4999/console/']);
    // Still the other service's folder.
    expect(readLockHolder(dataDir)).toMatchObject({ pid: process.pid, door: 'serve', url: 'http://127.0.0.1:4999' });
  });

  it('"Quit" opens nothing', async () => {
    let lock: ReturnType<typeof acquireDataFolderLock> | null = null;
    const { e } = await launch({
      messageBoxResponse: 1,
      beforeReady: () => {
        lock = acquireDataFolderLock(process.env['VCONSOLE_DATA_DIR']!, 'serve');
        lock.update({ url: 'http://127.0.0.1:4999', host: '127.0.0.1', port: 4999 });
      },
    });
    cleanups.push(() => lock?.release());
    await ended(e);
    expect(e.ended).toBe(1);
    expect(e.opened).toEqual([]);
  });
});

describe('running', () => {
  it('a port taken by another program: the folder’s one service runs console-only (lock held by this app, no listener)', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => blocker.close(() => r())));
    const port = (blocker.address() as { port: number }).port;
    const { e, dataDir } = await launch({ port });
    await running(e);
    await vi.waitFor(() => expect(e.dialogs.some((d) => d.title === 'API listener')).toBe(true));
    expect(e.dialogs.find((d) => d.title === 'API listener')!.message).toMatch(new RegExp(`Port ${port} is already in use`));
    expect(readLockHolder(dataDir)).toMatchObject({ pid: process.pid, door: 'electron', url: null });
    expect(await e.invoke('app:info', {})).toMatchObject({ ok: true, value: { door: 'electron', apiBaseUrl: null } });
    e.app.quit();
    await ended(e);
    expect(e.ended).toBe(0);
  });

  it('a second quit during the graceful stop is held too: the window hides, IPC is refused, the exit waits for stop()', async () => {
    const { e, dataDir } = await launch();
    await running(e);
    const win = e.windows[0]!;
    await vi.waitFor(() => expect(win.isVisible()).toBe(true));
    expect(await e.invoke('app:info', {})).toMatchObject({ ok: true, value: { dataDir } });
    e.app.quit(); // tray Quit
    e.app.quit(); // then the window's close button / Cmd+Q
    expect(e.ended).toBeNull();
    expect(win.isVisible()).toBe(false);
    expect(await e.invoke('app:info', {})).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    await ended(e);
    expect(e.ended).toBe(0);
    // Stopped for real: the lock is free for the next start, and the log file was written and closed.
    const next = acquireDataFolderLock(dataDir, 'test');
    next.release();
    expect(existsSync(join(dataDir, 'logs/desktop.log'))).toBe(true);
    // The window state was saved when the stop began (a forced exit would skip the close event).
    expect(JSON.parse(readFileSync(join(dataDir, 'electron/window-state.json'), 'utf8'))).toMatchObject({ bounds: { width: 1280, height: 820 } });
  });

  it('a second launch during start-up is ignored (one window), and focuses the window once running', async () => {
    const { e } = await launch({ beforeReady: (s) => s.app.emit('second-instance', {}, [], '/') });
    await running(e);
    e.app.emit('second-instance', {}, [], '/');
    expect(e.windows).toHaveLength(1);
    const w = e.windows[0]!;
    w.hide();
    e.app.emit('second-instance', {}, [], '/');
    expect(w.isVisible()).toBe(true);
    expect(e.windows).toHaveLength(1);
  });

  it('a quit asked for during start-up waits for the start, then stops gracefully without opening a window', async () => {
    const { e, dataDir } = await launch({ beforeReady: (s) => s.app.quit() });
    expect(e.ended).toBeNull();
    await ended(e);
    expect(e.ended).toBe(0);
    expect(e.windows).toHaveLength(0);
    expect(e.state.relaunched).toBe(0);
    acquireDataFolderLock(dataDir, 'test').release();
  });

  it('during the stop nothing opens the window again; a second launch then is not dropped: the app starts again once stopped', async () => {
    const { e } = await launch();
    await running(e);
    const win = e.windows[0]!;
    await vi.waitFor(() => expect(win.isVisible()).toBe(true));
    e.app.quit();
    expect(win.isVisible()).toBe(false);
    e.clickTray('Open console');
    e.app.emit('second-instance', {}, [], '/');
    expect(win.isVisible()).toBe(false);
    expect(e.windows).toHaveLength(1);
    expect(e.state.relaunched).toBe(0);
    await ended(e);
    expect(e.ended).toBe(0);
    expect(e.state.relaunched).toBe(1);
  });

  it('a second launch while a quit asked for during start-up waits: no window, and the app starts again once stopped', async () => {
    const { e } = await launch({
      beforeReady: (s) => {
        s.app.quit();
        s.app.emit('second-instance', {}, [], '/');
      },
    });
    await ended(e);
    expect(e.windows).toHaveLength(0);
    expect(e.state.relaunched).toBe(1);
  });

  it('a console call in flight when the quit comes is answered before the store closes; live events stop first', async () => {
    // The hub class main.ts uses (the module registry is fresh for each launch): its subscribe is watched.
    let subscribe: MockInstance<LiveEventHub['subscribe']> | null = null;
    const { e } = await launch({
      beforeReady: async () => {
        const { LiveEventHub: Hub } = await import('../../src-main/core/events/live-events');
        subscribe = vi.spyOn(Hub.prototype, 'subscribe');
      },
    });
    cleanups.push(() => subscribe?.mockRestore());
    await running(e);
    expect(subscribe!).toHaveBeenCalled();
    const hub = subscribe!.mock.contexts[0] as LiveEventHub;
    expect(hub.subscribers).toBe(1);
    // Setting up hashes a password (tens of milliseconds) and writes the organization: still running when the quit comes.
    const call = e.invoke('setup:bootstrap', { email: 'owner@example.com', password: 'correct horse battery staple' });
    e.app.quit();
    expect(await e.invoke('app:info', {})).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    expect(await call).toMatchObject({ ok: true });
    await ended(e);
    expect(e.ended).toBe(0);
    expect(hub.subscribers).toBe(0);
  });

  it('OS shut-down / log-out (macOS, Linux: powerMonitor): a short stop at once, the OS quit is never held, then the app quits by itself', async () => {
    const { e, dataDir } = await launch();
    await running(e);
    const win = e.windows[0]!;
    await vi.waitFor(() => expect(win.isVisible()).toBe(true));
    const shutdown = e.osShutdown();
    // Linux: logind is asked to wait for the short stop; macOS: nothing that could read as a refusal.
    expect(shutdown.defaultPrevented).toBe(process.platform === 'linux');
    expect(win.isVisible()).toBe(false);
    expect(await e.invoke('app:info', {})).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    e.app.emit('second-instance', {}, [], '/');
    // No OS quit came: the app quits by itself once the stop is done (well within the OS bound), and does not restart.
    await vi.waitFor(() => expect(e.ended).toBe(0), { timeout: 5_000 });
    expect(e.state.relaunched).toBe(0);
    acquireDataFolderLock(dataDir, 'test').release();
  });

  it('OS session end on Windows (query-session-end): the quit the OS then asks for goes through at once; the stop still finishes', async () => {
    const { e, dataDir } = await launch();
    await running(e);
    const win = e.windows[0]!;
    const query = new (class {
      defaultPrevented = false;
      reasons = ['shutdown'];
      preventDefault() {
        this.defaultPrevented = true;
      }
    })();
    win.emit('query-session-end', query);
    expect(query.defaultPrevented).toBe(false);
    expect(win.isVisible()).toBe(false);
    e.app.quit();
    expect(e.ended).toBe(0);
    // The store closes and the data folder is free shortly after (the process would be gone by then on Windows).
    await vi.waitFor(() => acquireDataFolderLock(dataDir, 'test').release(), { timeout: 5_000 });
  });

  it('IPC from another window or frame is refused', async () => {
    const { e } = await launch();
    await running(e);
    const { StandInWebContents } = await import('../helpers/electron-stand-in');
    const stranger = new StandInWebContents();
    stranger.mainFrame.url = 'app://console/index.html';
    expect(await e.invoke('app:info', {}, stranger)).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
  });

  it('the app:// handler streams the audit export as its channel answers it: the set-up refusal, the file, the refusal while quitting', async () => {
    const { e } = await launch();
    await running(e);
    const handle = e.protocolHandlers.get('app')!;
    const download = () => handle(new Request('app://console/audit/export?format=csv'));
    // Before set-up: the channel's refusal, as the web door's error body (the page shows it; nothing is saved).
    const refused = (await e.invoke('audit:export', { format: 'csv' })) as { ok: false; error: object };
    expect(refused).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const early = await download();
    expect(early.status).toBe(403);
    expect(await early.json()).toEqual({ ...refused.error, statusCode: 403 });
    expect(await e.invoke('setup:bootstrap', { email: 'owner@example.com', password: 'correct horse battery staple' })).toMatchObject({ ok: true });
    const channel = (await e.invoke('audit:export', { format: 'csv' })) as { ok: true; value: { filename: string; content: string } };
    const r = await download();
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-.*\.csv"; filename\*=UTF-8''audit-.*\.csv$/);
    // Not read as text: a decoder would drop the byte order mark.
    expect(Buffer.from(await r.arrayBuffer()).equals(Buffer.from(`\uFEFF${channel.value.content}`, 'utf8'))).toBe(true);
    expect(channel.value.content).toContain('organization.created');
    e.app.quit();
    const late = await download();
    expect(late.status).toBe(503);
    expect(await late.json()).toMatchObject({ code: 'UNAVAILABLE' });
    await ended(e);
  });

  it('the app:// handler answers 404 for a directory or a missing file', async () => {
    const { e } = await launch();
    await running(e);
    const handle = e.protocolHandlers.get('app')!;
    for (const url of ['app://console/assets', 'app://console/assets/', 'app://console/missing.js', 'app://console/../package.json']) {
      expect((await handle(new Request(url))).status, url).toBe(404);
    }
  });
});
