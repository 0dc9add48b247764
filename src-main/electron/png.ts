// A minimal PNG encoder (RGBA, no filtering) for the generated tray and app icons, so no binary image has to be
// kept in the repository or fetched. Pure Node (zlib); scripts/make-icons.mjs uses it too.
import { deflateSync } from 'node:zlib';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

export type Pixel = readonly [number, number, number, number];

export function encodePng(width: number, height: number, pixel: (x: number, y: number) => Pixel): Buffer {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  let o = 0;
  for (let y = 0; y < height; y++) {
    raw[o++] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const [r, g, b, a] = pixel(x, y);
      raw[o++] = r;
      raw[o++] = g;
      raw[o++] = b;
      raw[o++] = a;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

type Part = 'outside' | 'square' | 'check';

/** Where a pixel of the app mark falls: outside the rounded square, on it, or on the check mark. */
function markPart(size: number, x: number, y: number): Part {
  const r = size * 0.2;
  const stroke = Math.max(1, size * 0.09);
  // The check mark as two segments, in unit coordinates.
  const seg = (px: number, py: number, ax: number, ay: number, bx: number, by: number) => {
    const dx = bx - ax;
    const dy = by - ay;
    const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
    return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
  };
  const cx = Math.min(Math.max(x + 0.5, r), size - r);
  const cy = Math.min(Math.max(y + 0.5, r), size - r);
  if (Math.hypot(x + 0.5 - cx, y + 0.5 - cy) > r) return 'outside';
  const u = (x + 0.5) / size;
  const v = (y + 0.5) / size;
  const d = Math.min(seg(u, v, 0.27, 0.52, 0.43, 0.68), seg(u, v, 0.43, 0.68, 0.74, 0.34)) * size;
  return d <= stroke / 2 ? 'check' : 'square';
}

/** The app mark: a rounded square in the console's blue with a white check mark; `dim` greys it (listener down). */
export function appIconPng(size: number, dim = false): Buffer {
  const bg: Pixel = dim ? [134, 142, 150, 255] : [34, 139, 230, 255];
  return encodePng(size, size, (x, y) => {
    const part = markPart(size, x, y);
    return part === 'outside' ? [0, 0, 0, 0] : part === 'check' ? [255, 255, 255, 255] : bg;
  });
}

/**
 * The same mark as a macOS menu-bar template image: black plus alpha only (macOS draws it in the menu bar's colour),
 * the check cut out; `dim` makes it faint. Used at 16 px with a 32 px @2x representation.
 */
export function templateIconPng(size: number, dim = false): Buffer {
  const alpha = dim ? 110 : 255;
  return encodePng(size, size, (x, y) => (markPart(size, x, y) === 'square' ? [0, 0, 0, alpha] : [0, 0, 0, 0]));
}
