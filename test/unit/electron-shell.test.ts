// The rest of the shell without Electron: the preload's exposed surface, the listener state in tray/menu, the
// safeStorage SecretBox, the choice of better-sqlite3 binding, and the generated icon PNGs.
import { inflateSync } from 'node:zlib';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANNEL_NAMES } from '../../src-shared/channels';
import { buildConsoleBridge } from '../../src-main/electron/preload-api';
import { listenerFailure, listenerLabel, LISTENER_HINT, trayMenuTemplate, trayTooltip, type ListenerState } from '../../src-main/electron/tray-menu';
import { createSafeStorageBox, type SafeStorageLike } from '../../src-main/electron/safe-storage-box';
import { chooseElectronBinding } from '../../src-main/electron/native-binding';
import { appIconPng, crc32 } from '../../src-main/electron/png';
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
  it('is not used where it protects nothing', () => {
    expect(createSafeStorageBox(fake(false), nodeBox, 'darwin')).toBeNull();
    expect(createSafeStorageBox(fake(true, 'basic_text'), nodeBox, 'linux')).toBeNull();
    expect(createSafeStorageBox(fake(true, 'basic_text'), nodeBox, 'win32')).not.toBeNull();
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

describe('generated icon PNG', () => {
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
