// The rest of the shell without Electron: the preload's exposed surface, the listener state in tray/menu, the
// safeStorage SecretBox, the choice of better-sqlite3 binding, and the generated icon PNGs.
import { inflateSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANNEL_NAMES } from '../../src-shared/channels';
import { buildConsoleBridge } from '../../src-main/electron/preload-api';
import { applicationMenuTemplate, listenerFailure, listenerLabel, LISTENER_HINT, trayMenuTemplate, trayTooltip, type ListenerState } from '../../src-main/electron/tray-menu';
import { createSafeStorageBox, KeyringLockedError, type SafeStorageLike } from '../../src-main/electron/safe-storage-box';
import { chooseElectronBinding, loadElectronBinding } from '../../src-main/electron/native-binding';
import { appIconPng, crc32, templateIconPng } from '../../src-main/electron/png';
import { folderInUseDialog, isLoopbackHttpUrl } from '../../src-main/electron/startup-problems';
import type { MenuItemConstructorOptions } from 'electron';
import { isAppError } from '../../src-shared/app-error';
import type { SecretBox } from '../../src-main/core/providers/secret-box';

describe('preload surface (window.vc)', () => {
  const calls: [string, unknown][] = [];
  let live: [string, (event: unknown, message: unknown) => void][] = [];
  const bridge = buildConsoleBridge(
    { invoke: async (c, i) => (calls.push([c, i]), { ok: true, data: c }), on: (c, l) => void live.push([c, l]), removeListener: (c, l) => void (live = live.filter((x) => x[0] !== c || x[1] !== l)) },
    { getPathForFile: (f: never) => `/home/u/${(f as File).name}` },
    CHANNEL_NAMES,
  );

  it('exposes only invoke, pathForFile and subscribe, frozen', () => {
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'pathForFile', 'subscribe']);
    expect(Object.isFrozen(bridge)).toBe(true);
  });
  it('forwards contract channels and refuses anything else without touching IPC', async () => {
    const first = CHANNEL_NAMES[0]!;
    expect(await bridge.invoke(first, { a: 1 })).toEqual({ ok: true, data: first });
    for (const bad of ['__proto__', 'constructor', 'ELECTRON_BROWSER_REQUIRE', '', 'toString']) {
      expect(await bridge.invoke(bad, null)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    }
    expect(await bridge.invoke(42 as unknown as string, null)).toMatchObject({ ok: false });
    expect(calls).toEqual([[first, { a: 1 }]]);
  });
  it('subscribe listens on the live channel only and hands over the message, never the IPC event', () => {
    const got: unknown[] = [];
    const off = bridge.subscribe((m) => got.push(m));
    expect(live.map(([c]) => c)).toEqual(['live:message']);
    live[0]![1]({ sender: 'ipcRenderer' }, { type: 'reset' });
    expect(got).toEqual([{ type: 'reset' }]);
    off();
    expect(live).toEqual([]);
    expect(bridge.subscribe(42 as unknown as () => void)).toBeTypeOf('function');
    expect(live).toEqual([]);
  });
  it('pathForFile gives the path of a real File and "" for anything else', () => {
    expect(bridge.pathForFile(new File(['x'], 'batch.csv'))).toBe('/home/u/batch.csv');
    expect(bridge.pathForFile({ name: 'fake.csv' })).toBe('');
    const throwing = buildConsoleBridge({ invoke: async () => null, on: () => null, removeListener: () => null }, { getPathForFile: () => { throw new Error('not a file'); } }, []);
    expect(throwing.pathForFile(new File([], 'a'))).toBe('');
  });
});

describe('API listener state in the tray and menu', () => {
  const listening: ListenerState = { kind: 'listening', apiBaseUrl: 'http://127.0.0.1:4010/api/v1' };
  const taken = listenerFailure(new Error('Port 4010 is already in use by another program (listening on 127.0.0.1). Choose another with --port or in Settings.'));
  const acts = () => {
    const log: string[] = [];
    return { log, a: { openConsole: () => log.push('open'), copyApiUrl: (u: string) => log.push(`copy ${u}`), showListenerError: () => log.push('why'), quit: () => log.push('quit') } };
  };
  const click = (items: ReturnType<typeof trayMenuTemplate>, id: string) => (items.find((i) => i.id === id)!.click as () => void)();

  it('classifies listener failures', () => {
    expect(taken).toMatchObject({ kind: 'not-listening', reason: 'port-in-use' });
    expect(listenerFailure(new Error('Not allowed to listen on 0.0.0.0:80'))).toMatchObject({ reason: 'not-allowed' });
    expect(listenerFailure('boom')).toMatchObject({ reason: 'error', message: 'boom' });
  });
  it('labels the state: the URL, or why not', () => {
    expect(listenerLabel(listening)).toBe('API listening at http://127.0.0.1:4010/api/v1');
    expect(listenerLabel(taken)).toBe('API not listening: port in use');
    expect(trayTooltip(taken)).toContain('port in use');
    expect(LISTENER_HINT).toMatch(/Settings/);
  });
  it('listening: state, Open console, Copy API URL (copies the URL), Quit', () => {
    const { log, a } = acts();
    const items = trayMenuTemplate(listening, a);
    expect(items.filter((i) => i.label).map((i) => i.label)).toEqual(['API listening at http://127.0.0.1:4010/api/v1', 'Open console', 'Copy API URL', 'Quit']);
    expect(items[0]!.enabled).toBe(false);
    click(items, 'open-console');
    click(items, 'copy-api-url');
    click(items, 'quit');
    expect(log).toEqual(['open', 'copy http://127.0.0.1:4010/api/v1', 'quit']);
  });
  it('not listening: the error is one click away and Copy API URL is disabled', () => {
    const { log, a } = acts();
    const items = trayMenuTemplate(taken, a);
    expect(items.find((i) => i.id === 'copy-api-url')!.enabled).toBe(false);
    click(items, 'listener-error');
    click(items, 'copy-api-url');
    expect(log).toEqual(['why']);
  });
});

describe('safeStorage SecretBox', () => {
  // A stand-in keychain: reversible, and visibly not the plain text.
  const fake = (available = true, backend = 'gnome_libsecret'): SafeStorageLike => ({
    isEncryptionAvailable: () => available,
    encryptString: (p) => Buffer.from(Buffer.from(p, 'utf8').map((b) => b ^ 0x5a)),
    decryptString: (b) => Buffer.from(b.map((x) => x ^ 0x5a)).toString('utf8'),
    getSelectedStorageBackend: () => backend,
  });
  const nodeBox: SecretBox = { kind: 'fallback', seal: (p) => `gcm1:${p}`, open: (s) => s.replace(/^gcm1:/, '') };

  it('seals with safeStorage and opens its own and the key-file box values', () => {
    const box = createSafeStorageBox(fake(), nodeBox, 'linux')!;
    const sealed = box.seal('sk_live_secret_1234');
    expect(sealed.startsWith('ss1:')).toBe(true);
    expect(sealed).not.toContain('sk_live_secret_1234');
    expect(box.open(sealed)).toBe('sk_live_secret_1234');
    expect(box.open('gcm1:older')).toBe('older');
  });
  it('seals with the key-file box where safeStorage protects nothing', () => {
    for (const box of [createSafeStorageBox(fake(false), nodeBox, 'darwin'), createSafeStorageBox(fake(true, 'basic_text'), nodeBox, 'linux')]) {
      expect(box.seal('k')).toBe('gcm1:k');
      expect(box.kind).toBe('fallback');
    }
    expect(createSafeStorageBox(fake(true, 'basic_text'), nodeBox, 'win32').seal('k').startsWith('ss1:')).toBe(true);
  });
  it('a value sealed with the keychain on an earlier launch, keychain locked now: "keyring locked", not a generic error', () => {
    const sealed = createSafeStorageBox(fake(), nodeBox, 'linux').seal('sk_live_secret_1234');
    // Locked or absent keyring: safeStorage is unavailable in this session.
    const locked = createSafeStorageBox(fake(false), nodeBox, 'linux');
    expect(() => locked.open(sealed)).toThrow(KeyringLockedError);
    expect(() => locked.open(sealed)).toThrow(/keyring locked — unlock it or re-enter the credential/);
    // An AppError: the console bridge and the API pass its message on instead of "an unexpected error occurred".
    let thrown: unknown;
    try {
      locked.open(sealed);
    } catch (e) {
      thrown = e;
    }
    expect(isAppError(thrown) && thrown.toBody()).toMatchObject({ code: 'SERVICE_NOT_ENABLED', message: expect.stringMatching(/keyring locked/) });
    // Key-file values still open.
    expect(locked.open('gcm1:older')).toBe('older');
    // A keychain that refuses to decrypt (another login's key) says the same.
    const refusing = createSafeStorageBox({ ...fake(), decryptString: () => { throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.'); } }, nodeBox, 'linux');
    expect(() => refusing.open(sealed)).toThrow(/keyring locked.*decrypting/);
  });
  it('uses the keychain again once it is unlocked while the app runs', () => {
    let available = false;
    const ss = { ...fake(), isEncryptionAvailable: () => available };
    const box = createSafeStorageBox(ss, nodeBox, 'linux');
    expect(box.seal('a')).toBe('gcm1:a');
    available = true;
    const sealed = box.seal('b');
    expect(sealed.startsWith('ss1:')).toBe(true);
    expect(box.open(sealed)).toBe('b');
  });
});

describe('better-sqlite3 binding for Electron', () => {
  const root = '/opt/vc';
  const files = (m: Record<string, string>) => ({ exists: (p: string) => p in m, read: (p: string) => m[p]! });
  const devBinding = join(root, 'build/native/electron/better_sqlite3.node');
  const devStamp = join(root, 'build/native/electron/better_sqlite3.json');

  it('prefers the packaged copy in resources/native, then the dev build', () => {
    const packaged = join('/app/resources', 'native', 'better_sqlite3.node');
    expect(chooseElectronBinding({ resourcesPath: '/app/resources', projectRoot: root, abi: '145', ...files({ [packaged]: '', [devBinding]: '' }) })).toEqual({ ok: true, path: packaged });
    expect(chooseElectronBinding({ projectRoot: root, abi: '145', ...files({ [devBinding]: '' }) })).toEqual({ ok: true, path: devBinding });
  });
  it('refuses a stale build and says how to fix it', () => {
    const r = chooseElectronBinding({ projectRoot: root, abi: '145', ...files({ [devBinding]: '', [devStamp]: '{"abi":"133"}' }) });
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.message).toMatch(/ABI 133.*ABI 145.*rebuild:electron-sqlite/);
  });
  it('explains a missing build (never falls back to the Node build)', () => {
    const r = chooseElectronBinding({ projectRoot: root, abi: '145', ...files({}) });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/npm run rebuild:electron-sqlite/);
  });
});

describe('loading the binding before the store opens', () => {
  const stamp = (abi: string) => ({ exists: () => true, read: () => JSON.stringify({ abi }) });
  it('loads the chosen file once; a load failure names the file, the reason and the fix', () => {
    const loaded: string[] = [];
    expect(loadElectronBinding({ projectRoot: '/opt/vc', abi: '145', packaged: false, ...stamp('145'), load: (p) => loaded.push(p) })).toMatchObject({ ok: true });
    expect(loaded).toHaveLength(1);
    const r = loadElectronBinding({
      projectRoot: '/opt/vc',
      abi: '145',
      packaged: false,
      ...stamp('145'),
      load: () => {
        throw new Error("The module was compiled against a different Node.js version using NODE_MODULE_VERSION 115.\nstack…");
      },
    });
    expect(!r.ok && r.message).toMatch(/cannot be loaded: The module was compiled against a different Node\.js version using NODE_MODULE_VERSION 115\.\n\nRun: npm run rebuild:electron-sqlite/);
    expect(!r.ok && r.message).not.toMatch(/stack/);
  });
  it('a stale build is never loaded; packaged, the fix is to reinstall', () => {
    const r = loadElectronBinding({ resourcesPath: '/app/resources', projectRoot: '/opt/vc', abi: '145', packaged: true, ...stamp('133'), load: () => expect.fail('loaded') });
    expect(!r.ok && r.message).toMatch(/ABI 133.*ABI 145\.\n\nThis installation is incomplete or damaged: reinstall/s);
  });
});

describe('application menu', () => {
  const service: MenuItemConstructorOptions[] = [{ id: 'quit', label: 'Quit' }];
  const roles = (t: MenuItemConstructorOptions[]) => t.map((i) => i.role ?? i.label);
  it('macOS gets the app menu (About, Hide, Quit ⌘Q) first', () => {
    expect(roles(applicationMenuTemplate(service, { platform: 'darwin', packaged: true }))).toEqual(['appMenu', 'Service', 'editMenu', 'View', 'windowMenu']);
    expect(roles(applicationMenuTemplate(service, { platform: 'linux', packaged: true }))).toEqual(['Service', 'editMenu', 'View', 'windowMenu']);
  });
  it('packaged: a View menu without Reload or Developer Tools; development keeps the full one', () => {
    const view = applicationMenuTemplate(service, { platform: 'win32', packaged: true }).find((i) => i.label === 'View')!;
    const items = (view.submenu as MenuItemConstructorOptions[]).map((i) => i.role ?? i.type);
    expect(items).toEqual(['resetZoom', 'zoomIn', 'zoomOut', 'separator', 'togglefullscreen']);
    expect(JSON.stringify(view)).not.toMatch(/reload|toggleDevTools|forceReload/i);
    expect(roles(applicationMenuTemplate(service, { platform: 'win32', packaged: false }))).toContain('viewMenu');
  });
});

describe('data folder in use (dialog)', () => {
  const holder = (door: 'serve' | 'electron', url: string | null) => ({ pid: 42, door, startedAt: '2026-01-01T00:00:00Z', url, host: null, port: null });
  it('vconsole serve with a listener: offers its console page and says where the one-time link is', () => {
    const d = folderInUseDialog('The data folder /d is in use…', holder('serve', 'http://127.0.0.1:4010'));
    expect(d.consoleUrl).toBe('http://127.0.0.1:4010/console/');
    expect(d.options.buttons).toEqual(['Open its console in the browser', 'Quit']);
    expect(d.options.cancelId).toBe(1);
    expect(d.options.detail).toMatch(/^The data folder \/d is in use…\n\n/);
    expect(d.options.detail).toMatch(/"Console:" link that `vconsole serve` printed/);
  });
  it('no console to open: another desktop app, no listener, unknown holder, or a non-loopback URL', () => {
    for (const h of [holder('electron', 'http://127.0.0.1:4010'), holder('serve', null), null, holder('serve', 'http://evil.example:4010')]) {
      const d = folderInUseDialog('m', h);
      expect(d.consoleUrl).toBeNull();
      expect(d.options.buttons).toEqual(['Quit']);
    }
    expect(folderInUseDialog('m', holder('electron', null)).options.detail).toMatch(/its window or its tray icon/);
  });
  it('isLoopbackHttpUrl', () => {
    expect(isLoopbackHttpUrl('http://127.0.0.1:4010/console/')).toBe(true);
    expect(isLoopbackHttpUrl('http://localhost:4010/')).toBe(true);
    expect(isLoopbackHttpUrl('http://[::1]:4010/')).toBe(true);
    for (const u of ['http://127.0.0.1.evil.example/', 'file:///etc/passwd', 'http://u:p@127.0.0.1/', 'javascript:alert(1)', 'nonsense']) expect(isLoopbackHttpUrl(u), u).toBe(false);
  });
});

describe('generated icon PNG', () => {
  it('the macOS template image is black + alpha only, 16 px with a distinct 32 px @2x', () => {
    for (const size of [16, 32]) {
      const png = templateIconPng(size);
      expect(png.readUInt32BE(16)).toBe(size);
      const raw = inflateSync(png.subarray(41, 41 + png.readUInt32BE(33)));
      let opaque = 0;
      for (let y = 0; y < size; y++) {
        for (let x = 0; x < size; x++) {
          const o = y * (size * 4 + 1) + 1 + x * 4;
          expect([raw[o], raw[o + 1], raw[o + 2]]).toEqual([0, 0, 0]);
          if (raw[o + 3]! > 0) opaque++;
        }
      }
      // The mark is drawn (the square minus the check cut out), not an empty or a full square.
      expect(opaque).toBeGreaterThan(size * size * 0.3);
      expect(opaque).toBeLessThan(size * size * 0.95);
    }
    expect(templateIconPng(16, true).equals(templateIconPng(16))).toBe(false);
  });

  it('computes the standard CRC-32 (check value of "123456789" is CBF43926, per the CRC catalogue)', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });
  it('is a valid RGBA PNG of the requested size with correct chunk CRCs', () => {
    const png = appIconPng(32);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
    let o = 8;
    const chunks: string[] = [];
    let idat = Buffer.alloc(0);
    while (o < png.length) {
      const len = png.readUInt32BE(o);
      const type = png.subarray(o + 4, o + 8).toString('latin1');
      const data = png.subarray(o + 8, o + 8 + len);
      expect(png.readUInt32BE(o + 8 + len)).toBe(crc32(png.subarray(o + 4, o + 8 + len)));
      if (type === 'IHDR') expect([data.readUInt32BE(0), data.readUInt32BE(4), data[8], data[9]]).toEqual([32, 32, 8, 6]);
      if (type === 'IDAT') idat = Buffer.concat([idat, data]);
      chunks.push(type);
      o += 12 + len;
    }
    expect(chunks).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(inflateSync(idat).length).toBe((32 * 4 + 1) * 32);
    expect(appIconPng(32, true).equals(png)).toBe(false);
  });
});
