// Opening a file the user named (a directory import, a batch CSV) without ever blocking the main process: a FIFO's
// open waits for a writer forever, and a device (/dev/zero) never ends. The path is stat'ed first and only a regular
// file is opened; the open is non-blocking (in case the path was swapped for a FIFO after the stat), and the opened
// descriptor is checked again, so what is read is the regular file that was judged.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';

/** Why a path cannot be read as a file, worded for the user; null when it can (it may still be unreadable). */
function notRegular(st: Stats): string | null {
  if (st.isFile()) return null;
  const what = st.isDirectory() ? 'a folder' : st.isFIFO() ? 'a pipe' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : 'not a file';
  return `it is ${what}, not a regular file`;
}

export class NotARegularFile extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * Opens `path` for reading when it is a regular file; throws NotARegularFile (with its reason) when it is anything
 * else, and the fs error (ENOENT, EACCES, …) when it cannot be stat'ed or opened. Returns the descriptor and size.
 */
export function openRegularFile(path: string): { fd: number; size: number } {
  const before = notRegular(statSync(path));
  if (before) throw new NotARegularFile(before);
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    const after = notRegular(st);
    if (after) throw new NotARegularFile(after);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/**
 * The whole of a regular file of at most `maxBytes`, or `{ tooLarge: size }` without reading it. Checked before the
 * read (the stat's size) and during it (a file growing meanwhile is cut off at maxBytes + 1 and refused).
 */
export function readRegularFile(path: string, maxBytes: number): { data: Buffer } | { tooLarge: number } {
  const { fd, size } = openRegularFile(path);
  try {
    if (size > maxBytes) return { tooLarge: size };
    // One byte more than the stat said, so that a file that grew since is noticed (and read on, up to the limit).
    let buf = Buffer.alloc(size + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) buf = Buffer.concat([buf, Buffer.alloc(Math.min(buf.length, maxBytes + 1 - buf.length))]);
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
      if (n > maxBytes) return { tooLarge: n };
    }
    return { data: buf.subarray(0, n) };
  } finally {
    closeSync(fd);
  }
}
