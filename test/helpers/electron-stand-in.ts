// A stand-in for the `electron` module, for running the real main process (src-main/electron/main.ts) under vitest
// where no Electron binary exists. It keeps Electron's event order where main.ts depends on it — whenReady,
// requestSingleInstanceLock, before-quit (cancellable with preventDefault) → windows closed → will-quit, and
// app.exit(code) ending at once without events — and records what the process showed and did: dialogs, windows,
// menus, the tray, IPC handlers, opened URLs and the exit code. Nothing here exits the test process.
//
// Use: `vi.mock('electron', () => electronModule())` at the top of a test file, then per case
// `const e = useElectronStandIn(); await import('…/main')` after vi.resetModules().
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Listener = (...args: any[]) => unknown;

export interface RecordedDialog {
  kind: 'error-box' | 'message-box';
  title?: string;
  message: string;
  detail?: string;
  buttons?: string[];
}

class StandInEvent {
  defaultPrevented = false;
  constructor(readonly extra: Record<string, unknown> = {}) {
    Object.assign(this, extra);
  }
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

export class StandInWebContents extends EventEmitter {
  private static nextId = 1;
  readonly id = StandInWebContents.nextId++;
  readonly mainFrame = { url: '' };
  windowOpenHandler: Listener | null = null;
  setWindowOpenHandler(h: Listener): void {
    this.windowOpenHandler = h;
  }
  isDestroyed(): boolean {
    return false;
  }
  send(): void {}
}

export function createElectronStandIn(opts: { singleInstance?: boolean; packaged?: boolean; messageBoxResponse?: number } = {}) {
  const dialogs: RecordedDialog[] = [];
  const windows: StandInWindow[] = [];
  const opened: string[] = [];
  const handlers = new Map<string, Listener>();
  const menus: unknown[] = [];
  const notifications: { title?: string; body?: string }[] = [];
  const paths = new Map<string, string>();
  const state = { exitCode: null as number | null, quitCompleted: false, ready: false, messageBoxResponse: opts.messageBoxResponse ?? 0, relaunched: 0 };
  const trays: { menu: unknown; destroyed: boolean }[] = [];
  const powerMonitor = new EventEmitter();
  let resolveReady: () => void = () => {};
  const readyPromise = new Promise<void>((r) => (resolveReady = r));

  const app = new (class extends EventEmitter {
    isPackaged = opts.packaged ?? false;
    name = 'Verification Console';
    whenReady(): Promise<void> {
      return readyPromise;
    }
    isReady(): boolean {
      return state.ready;
    }
    requestSingleInstanceLock(): boolean {
      return opts.singleInstance ?? true;
    }
    setPath(name: string, p: string): void {
      paths.set(name, p);
    }
    getPath(name: string): string {
      return paths.get(name) ?? `/stand-in/${name}`;
    }
    getVersion(): string {
      return '0.1.0';
    }
    /** Electron: before-quit (cancellable), then every window closes, then will-quit; the process then ends. */
    quit(): void {
      if (state.exitCode !== null || state.quitCompleted) return;
      const e = new StandInEvent();
      this.emit('before-quit', e);
      if (e.defaultPrevented) return;
      for (const w of windows.filter((x) => !x.destroyed)) w.close();
      this.emit('will-quit', new StandInEvent());
      state.quitCompleted = true;
      this.emit('quit');
    }
    /** Electron: the app starts again once this process has ended (by quit or exit). */
    relaunch(): void {
      state.relaunched++;
    }
    /** Electron: ends at once with the code; no events. */
    exit(code = 0): void {
      if (state.exitCode === null && !state.quitCompleted) state.exitCode = code;
    }
  })();

  class StandInWindow extends EventEmitter {
    readonly webContents = new StandInWebContents();
    visible = false;
    destroyed = false;
    minimized = false;
    maximized = false;
    bounds = { x: 10, y: 10, width: 1280, height: 820 };
    constructor(readonly options: Record<string, any>) {
      super();
      windows.push(this);
      app.emit('web-contents-created', new StandInEvent(), this.webContents);
    }
    async loadURL(url: string): Promise<void> {
      this.webContents.mainFrame.url = url;
      setImmediate(() => this.emit('ready-to-show'));
    }
    show(): void {
      this.visible = true;
    }
    hide(): void {
      this.visible = false;
    }
    focus(): void {}
    isVisible(): boolean {
      return this.visible;
    }
    isMinimized(): boolean {
      return this.minimized;
    }
    restore(): void {
      this.minimized = false;
    }
    maximize(): void {
      this.maximized = true;
    }
    isMaximized(): boolean {
      return this.maximized;
    }
    getNormalBounds() {
      return { ...this.bounds };
    }
    isDestroyed(): boolean {
      return this.destroyed;
    }
    close(): void {
      if (this.destroyed) return;
      const e = new StandInEvent();
      this.emit('close', e);
      if (e.defaultPrevented) return;
      this.destroy();
    }
    destroy(): void {
      if (this.destroyed) return;
      this.destroyed = true;
      this.visible = false;
      this.emit('closed');
      if (windows.every((w) => w.destroyed) && !state.quitCompleted) app.emit('window-all-closed');
    }
  }

  const image = (buffer: Buffer, options?: unknown) => {
    const reps: unknown[] = [{ buffer, options }];
    let template = false;
    return {
      buffer,
      representations: reps,
      addRepresentation: (r: unknown) => void reps.push(r),
      setTemplateImage: (t: boolean) => void (template = t),
      isTemplateImage: () => template,
    };
  };

  const protocolHandlers = new Map<string, (req: Request) => Promise<Response>>();
  const sessionRecord = { permissionRequest: null as Listener | null, permissionCheck: null as Listener | null, headersReceived: null as Listener | null };

  const module = {
    app,
    BrowserWindow: StandInWindow,
    dialog: {
      showErrorBox: (title: string, message: string) => void dialogs.push({ kind: 'error-box', title, message }),
      showMessageBox: async (...args: any[]) => {
        const o = (args.length > 1 ? args[1] : args[0]) as { title?: string; message: string; detail?: string; buttons?: string[] };
        dialogs.push({ kind: 'message-box', title: o.title, message: o.message, detail: o.detail, buttons: o.buttons });
        return { response: state.messageBoxResponse, checkboxChecked: false };
      },
    },
    ipcMain: {
      handle: (channel: string, fn: Listener) => {
        if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
        handlers.set(channel, fn);
      },
      removeHandler: (channel: string) => void handlers.delete(channel),
    },
    safeStorage: {
      isEncryptionAvailable: () => true,
      getSelectedStorageBackend: () => 'gnome_libsecret',
      encryptString: (p: string) => Buffer.from(Buffer.from(p, 'utf8').map((b) => b ^ 0x5a)),
      decryptString: (b: Buffer) => Buffer.from(b.map((x) => x ^ 0x5a)).toString('utf8'),
    },
    screen: {
      getAllDisplays: () => [{ id: 1, workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
      getDisplayMatching: () => ({ id: 1 }),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (h: Listener) => void (sessionRecord.permissionRequest = h),
        setPermissionCheckHandler: (h: Listener) => void (sessionRecord.permissionCheck = h),
        webRequest: { onHeadersReceived: (h: Listener) => void (sessionRecord.headersReceived = h) },
        protocol: { handle: (scheme: string, h: (req: Request) => Promise<Response>) => void protocolHandlers.set(scheme, h) },
      },
    },
    shell: { openExternal: async (url: string) => void opened.push(url) },
    protocol: { registerSchemesAsPrivileged: () => {} },
    // Electron's net.fetch reads file:// URLs; Node's fetch does not.
    net: {
      fetch: async (url: string) => new Response(readFileSync(fileURLToPath(url)), { status: 200, headers: { 'content-type': 'application/octet-stream' } }),
    },
    Menu: {
      buildFromTemplate: (template: unknown) => ({ template }),
      setApplicationMenu: (m: unknown) => void menus.push(m),
    },
    Tray: class {
      image: unknown;
      tooltip = '';
      menu: unknown = null;
      destroyed = false;
      constructor(image: unknown) {
        this.image = image;
        trays.push(this);
      }
      setImage(i: unknown) {
        this.image = i;
      }
      setToolTip(t: string) {
        this.tooltip = t;
      }
      setContextMenu(m: unknown) {
        this.menu = m;
      }
      destroy() {
        this.destroyed = true;
      }
    },
    nativeImage: { createFromBuffer: image },
    clipboard: { writeText: () => {} },
    powerMonitor,
    Notification: class extends EventEmitter {
      static isSupported(): boolean {
        return true;
      }
      constructor(readonly options: { title?: string; body?: string }) {
        super();
      }
      show(): void {
        notifications.push(this.options);
      }
    },
  };

  return {
    module,
    app,
    dialogs,
    windows,
    opened,
    handlers,
    menus,
    notifications,
    protocolHandlers,
    trays,
    powerMonitor,
    session: sessionRecord,
    state,
    /** The OS ends the session as macOS and Linux say it (powerMonitor 'shutdown'); returns the event. */
    osShutdown(): StandInEvent {
      const e = new StandInEvent();
      powerMonitor.emit('shutdown', e);
      return e;
    },
    /** Clicks the tray menu item with this label (the tray's current menu). */
    clickTray(label: string): void {
      const tray = trays.at(-1);
      const items = ((tray?.menu as { template?: { label?: string; click?: () => void }[] } | null)?.template ?? []);
      const item = items.find((i) => i.label === label);
      if (!item?.click) throw new Error(`No tray item "${label}" (items: ${items.map((i) => i.label).join(', ')})`);
      item.click();
    },
    /** Fires 'ready' (whenReady resolves). */
    ready(): void {
      state.ready = true;
      resolveReady();
      app.emit('ready');
    },
    /** Calls an IPC handler as the renderer of `from` (default: the newest window's top frame) would. */
    invoke(channel: string, input: unknown, from?: StandInWebContents): Promise<unknown> {
      const h = handlers.get(channel);
      if (!h) throw new Error(`No IPC handler for ${channel}`);
      const sender = from ?? windows.at(-1)!.webContents;
      return Promise.resolve(h({ sender, senderFrame: sender.mainFrame }, input));
    },
    /** The process ended: by app.exit (its code) or a completed quit (0). */
    get ended(): number | null {
      return state.exitCode ?? (state.quitCompleted ? 0 : null);
    },
  };
}

export type ElectronStandIn = ReturnType<typeof createElectronStandIn>;

// On globalThis: vi.resetModules() gives the mocked module a fresh copy of this file, which must see the same one.
const holder = globalThis as { __electronStandIn?: ElectronStandIn };

/** Makes `s` the stand-in that `import 'electron'` resolves to. */
export function useElectronStandIn(s: ElectronStandIn): ElectronStandIn {
  holder.__electronStandIn = s;
  return s;
}

/** The module object for vi.mock('electron', …): each export is read from the current stand-in. */
export function electronModule(): Record<string, unknown> {
  const keys = Object.keys(createElectronStandIn().module);
  const m: Record<string, unknown> = {};
  for (const k of keys) {
    Object.defineProperty(m, k, {
      enumerable: true,
      get: () => {
        const current = holder.__electronStandIn;
        if (!current) throw new Error('No Electron stand-in in use: call useElectronStandIn() first.');
        return (current.module as Record<string, unknown>)[k];
      },
    });
  }
  return m;
}
