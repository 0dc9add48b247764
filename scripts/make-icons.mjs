// Generates the packaging icons in build/ from the same drawing as the tray icon (src-main/electron/png.ts), so the
// repository keeps no hand-made binaries: build/icon.png (1024 px; electron-builder derives .icns and .ico from it).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { appIconPng } = await tsImport('../src-main/electron/png.ts', import.meta.url);
mkdirSync(join(root, 'build', 'icons'), { recursive: true });
writeFileSync(join(root, 'build', 'icon.png'), appIconPng(1024));
// Linux desktops pick a size from this folder (electron-builder: linux.icon as a directory of NxN.png).
for (const size of [16, 32, 48, 64, 128, 256, 512]) writeFileSync(join(root, 'build', 'icons', `${size}x${size}.png`), appIconPng(size));
console.log('make-icons: wrote build/icon.png and build/icons/*.png');
