// The electron-builder configuration is complete and checked even where packaging itself cannot run (no Electron
// download here): electron-builder's own schema validation, the targets per OS, files/asar, and every file it names.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const require = createRequire(import.meta.url);
// app-builder-lib is electron-builder's engine: its loader and validator are the ones `electron-builder` runs.
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
  getConfig(dir: string, file: string | null, extra: null): Promise<Record<string, any>>;
  validateConfiguration(c: unknown, log: unknown): Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };

const load = () => getConfig(root, join(root, 'electron-builder.yml'), null);
const targets = (c: Record<string, any>, os: string) => (c[os].target as (string | { target: string })[]).map((t) => (typeof t === 'string' ? t : t.target));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { main: string; scripts: Record<string, string>; devDependencies: Record<string, string>; dependencies: Record<string, string> };

describe('electron-builder.yml', () => {
  it("passes electron-builder's schema validation", async () => {
    await expect(validateConfiguration(await load(), new DebugLogger(false))).resolves.toBeUndefined();
  }, 60_000);

  it('the validator does reject a broken configuration (so the check above can fail)', async () => {
    const c = await load();
    await expect(validateConfiguration({ ...c, filez: ['out/**'] }, new DebugLogger(false))).rejects.toThrow();
    await expect(validateConfiguration({ ...c, asar: 'yes' }, new DebugLogger(false))).rejects.toThrow();
    await expect(validateConfiguration({ ...c, mac: { ...c['mac'], bogus: 1 } }, new DebugLogger(false))).rejects.toThrow();
  }, 60_000);

  it('builds AppImage + deb, dmg and nsis', async () => {
    const c = await load();
    expect(targets(c, 'linux').sort()).toEqual(['AppImage', 'deb']);
    expect(targets(c, 'mac')).toEqual(['dmg']);
    expect(targets(c, 'win')).toEqual(['nsis']);
    expect(c['appId']).toMatch(/^[a-z0-9.-]+$/);
    expect(c['productName']).toBe('Verification Console');
    expect(c['linux'].maintainer).toMatch(/<.+@.+>/);
    expect(c['publish']).toBeNull();
  });

  it('packs out/**, resources/** and package.json into an asar, with better-sqlite3 .node unpacked', async () => {
    const c = await load();
    // getConfig normalises `files` into file sets ({ filter: [...] }).
    const files = (c['files'] as (string | { filter: string[] })[]).flatMap((f) => (typeof f === 'string' ? [f] : f.filter));
    expect(files).toEqual(expect.arrayContaining(['out/**', 'resources/**', 'package.json']));
    expect(files.filter((f) => !f.startsWith('!'))).toHaveLength(3);
    expect(c['asar']).toBe(true);
    // better-sqlite3's Node build is not shipped: Electron refuses it, and nothing in the package may load it.
    expect(files).toContain('!**/node_modules/better-sqlite3/{build,deps,src}/**');
    expect(c['asarUnpack'] ?? []).not.toContain('**/node_modules/better-sqlite3/**/*.node');
    expect(pkg.main).toBe('out/main/index.js');
    expect(pkg.dependencies['better-sqlite3']).toBeDefined();
  });

  it('ships the Electron-ABI better-sqlite3 as an extra resource and never rebuilds in place', async () => {
    const c = await load();
    expect(c['npmRebuild']).toBe(false);
    expect(c['extraResources']).toEqual([{ from: 'build/native/electron', to: 'native', filter: ['better_sqlite3.node', 'better_sqlite3.json'] }]);
    // The folder is generated (needs internet); its producer exists and writes exactly there.
    const script = readFileSync(join(root, 'scripts/rebuild-electron-sqlite.mjs'), 'utf8');
    expect(script).toContain("join(root, 'build', 'native', 'electron')");
    expect(script).toContain("'better_sqlite3.json'");
    // main.ts looks for it where electron-builder puts it.
    expect(readFileSync(join(root, 'src-main/electron/native-binding.ts'), 'utf8')).toContain("join(l.resourcesPath, 'native')");
  });

  it('refuses to package without the Electron-ABI binding for the target (beforePack hook)', async () => {
    const c = await load();
    expect(c['beforePack']).toBe('./scripts/before-pack.mjs');
    // electron-builder imports the module and takes its `beforePack` export.
    const mod = (await import(join(root, 'scripts/before-pack.mjs'))) as { beforePack(ctx: unknown): Promise<void>; bindingProblem(dir: string, want: object): string | null };
    const hook = Object.assign(mod.beforePack, { bindingProblem: mod.bindingProblem });
    const dir = mkdtempSync(join(tmpdir(), 'vc-before-pack-'));
    try {
      const want = { electron: '41.10.0', platform: 'linux', arch: 'x64' };
      expect(hook.bindingProblem(dir, want)).toMatch(/better_sqlite3\.node is missing\. Run `npm run rebuild:electron-sqlite`/);
      writeFileSync(join(dir, 'better_sqlite3.node'), 'x');
      expect(hook.bindingProblem(dir, want)).toMatch(/stamp\) is missing/);
      writeFileSync(join(dir, 'better_sqlite3.json'), JSON.stringify({ electron: '41.10.0', platform: 'linux', arch: 'arm64' }));
      expect(hook.bindingProblem(dir, want)).toMatch(/built for arch arm64, the package is for x64/);
      writeFileSync(join(dir, 'better_sqlite3.json'), JSON.stringify({ electron: '41.10.0', platform: 'linux', arch: 'x64' }));
      expect(hook.bindingProblem(dir, want)).toBeNull();
      // As electron-builder calls it: the project's own build/native/electron, for the packaged Electron version.
      const ctx = (projectDir: string) => ({ packager: { projectDir, config: { electronVersion: '41.10.0' } }, electronPlatformName: 'linux', arch: 1 });
      await expect(hook(ctx(dir))).rejects.toThrow(/^Not packaging: .*better_sqlite3\.node is missing/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('beforePack names the architecture as the build stamp does (Node’s process.arch), and refuses universal with why', async () => {
    const mod = (await import(join(root, 'scripts/before-pack.mjs'))) as { beforePack(ctx: unknown): Promise<void>; nodeArch(a: number | string): string | null };
    const dir = mkdtempSync(join(tmpdir(), 'vc-before-pack-'));
    try {
      mkdirSync(join(dir, 'build/native/electron'), { recursive: true });
      writeFileSync(join(dir, 'build/native/electron/better_sqlite3.node'), 'x');
      const stamp = (platform: string, arch: string) => writeFileSync(join(dir, 'build/native/electron/better_sqlite3.json'), JSON.stringify({ electron: '41.10.0', platform, arch }));
      const ctx = (platform: string, arch: number, appOutDir = join(dir, 'dist/linux-unpacked')) => ({ packager: { projectDir: dir, config: { electronVersion: '41.10.0' } }, electronPlatformName: platform, arch, appOutDir });
      // A 32-bit ARM build: rebuild-electron-sqlite stamps process.arch, `arm`; electron-builder packs `armv7l` (2).
      stamp('linux', 'arm');
      await expect(mod.beforePack(ctx('linux', 2))).resolves.toBeUndefined();
      await expect(mod.beforePack(ctx('linux', 1))).rejects.toThrow(/built for arch arm, the package is for x64/);
      stamp('linux', 'x64');
      await expect(mod.beforePack(ctx('linux', 1))).resolves.toBeUndefined();
      // Universal: refused with the reason and what to build instead, both as the arch itself and as electron-builder
      // really calls the hook for it (once per architecture, into <appOutDir>-x64-temp / -arm64-temp).
      stamp('darwin', 'arm64');
      await expect(mod.beforePack(ctx('darwin', 4))).rejects.toThrow(/^Not packaging: a universal macOS app .* one binding, for one architecture.*npm_config_arch=x64 npm run package -- --x64/);
      await expect(mod.beforePack(ctx('darwin', 3, join(dir, 'dist/mac-universal-arm64-temp')))).rejects.toThrow(/a universal macOS app/);
      await expect(mod.beforePack(ctx('darwin', 3, join(dir, 'dist/mac-arm64')))).resolves.toBeUndefined();
      // builder-util's Arch enum: ia32 0, x64 1, armv7l 2, arm64 3, universal 4.
      expect([0, 1, 2, 3, 4].map(mod.nodeArch)).toEqual(['ia32', 'x64', 'arm', 'arm64', null]);
      expect(mod.nodeArch('armv7l')).toBe('arm');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('macOS: unsigned builds re-signed ad hoc after the fuses flip; hardened runtime with the entitlements better-sqlite3 needs', async () => {
    const c = await load();
    expect(c['electronFuses'].resetAdHocDarwinSignature).toBe(true);
    expect(c['mac'].hardenedRuntime).toBe(true);
    for (const key of ['entitlements', 'entitlementsInherit']) {
      const plist = readFileSync(join(root, c['mac'][key]), 'utf8');
      for (const ent of ['com.apple.security.cs.allow-jit', 'com.apple.security.cs.disable-library-validation']) {
        expect(plist).toMatch(new RegExp(`<key>${ent.replace(/\./g, '\\.')}</key>\\s*<true/>`));
      }
    }
  });

  it('Linux: the launcher and the window have one name (desktopName), so the desktop links the window to its entry', async () => {
    const c = await load();
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; productName?: string; description: string; desktopName?: string };
    // Electron takes the window's WM_CLASS (X11) and app_id (Wayland) from package.json's desktopName.
    expect(pkg.desktopName).toBe('verification-console.desktop');
    // The .desktop entry electron-builder writes into the deb and the AppImage, by its own code, and where it goes.
    const { LinuxTargetHelper } = require('app-builder-lib/out/targets/LinuxTargetHelper.js') as {
      LinuxTargetHelper: new (p: unknown) => { computeDesktopEntry(o: unknown): Promise<string>; getDesktopFileName(): string };
    };
    const packager = {
      info: { metadata: pkg },
      appInfo: { productName: c['productName'], sanitizedProductName: c['productName'], description: pkg.description },
      executableName: c['linux'].executableName,
      platformSpecificBuildOptions: c['linux'],
      fileAssociations: [],
      config: c,
    };
    const helper = new LinuxTargetHelper(packager);
    const entry = await helper.computeDesktopEntry(c['linux']);
    expect(entry).toMatch(/^StartupWMClass=verification-console$/m);
    expect(entry).toMatch(/^Name=Verification Console$/m);
    expect(helper.getDesktopFileName()).toBe('verification-console');
  });

  it('Linux: deb first (the recommended package: it installs an AppArmor profile), AppImage second', async () => {
    const c = await load();
    expect(targets(c, 'linux')).toEqual(['deb', 'AppImage']);
    // electron-builder's deb after-install is what sets the profile up (Ubuntu 23.10+ blocks the sandbox otherwise).
    expect(readFileSync(require.resolve('app-builder-lib/templates/linux/after-install.tpl'), 'utf8')).toMatch(/apparmor/i);
  });

  it('pins the Electron version it packages to the installed one, and hardens the fuses', async () => {
    const c = await load();
    expect(c['electronVersion']).toBe(pkg.devDependencies['electron']);
    expect(c['electronFuses']).toMatchObject({ runAsNode: false, enableNodeOptionsEnvironmentVariable: false, enableNodeCliInspectArguments: false, onlyLoadAppFromAsar: true, grantFileProtocolExtraPrivileges: false });
  });

  it('every file it references exists: icons (≥ 512 px), build resources, the packaged entry points', async () => {
    const c = await load();
    expect(statSync(join(root, c['directories'].buildResources)).isDirectory()).toBe(true);
    for (const icon of [c['mac'].icon, c['win'].icon]) {
      const png = readFileSync(join(root, icon));
      expect(png.readUInt32BE(16), icon).toBeGreaterThanOrEqual(512);
      expect(png.readUInt32BE(20), icon).toBeGreaterThanOrEqual(512);
    }
    const linuxIcons = readdirSync(join(root, c['linux'].icon));
    expect(linuxIcons).toEqual(expect.arrayContaining(['16x16.png', '256x256.png', '512x512.png']));
    expect(existsSync(join(root, 'resources/sandbox/fixtures.json'))).toBe(true);
    // The entry points come from electron-vite's build inputs.
    const viteConfig = readFileSync(join(root, 'electron.vite.config.ts'), 'utf8');
    expect(viteConfig).toContain("'src-main/electron/main.ts'");
    expect(viteConfig).toContain("'src-main/electron/preload.ts'");
    expect(readFileSync(join(root, 'src-main/electron/main.ts'), 'utf8')).toContain("'../preload/index.cjs'");
  });

  it('npm run package / package:linux build, rebuild the binding, then package', () => {
    for (const name of ['package', 'package:linux']) {
      const s = pkg.scripts[name]!;
      expect(s).toMatch(/^electron-vite build && node scripts\/rebuild-electron-sqlite\.mjs && electron-builder /);
      expect(s).toContain('--config electron-builder.yml');
    }
    expect(pkg.scripts['package:linux']).toContain('--linux');
    expect(pkg.scripts['lint']).toContain('scripts/electronegativity.mjs');
    for (const f of ['scripts/rebuild-electron-sqlite.mjs', 'scripts/electronegativity.mjs', 'scripts/make-icons.mjs', 'docs/packaging.md']) expect(existsSync(join(root, f)), f).toBe(true);
  });
});
