// Tells a file that cannot be a CSV from its first bytes: an image, an archive or a document by its signature, anything
// else with NUL bytes or many control characters. A 3 MB PNG was read as "Latin-1, separator: semicolon" and offered a
// mapping with a garbage header. One rule for every door: the console checks a chosen file before it uploads it, and
// the service's CSV input (core/routing/csv-input.ts: `vconsole batch validate`, a path given to the console) refuses
// the same files.

import { utf16ByNuls } from './utf16-sniff';

/** How many leading bytes are looked at. */
export const SNIFF_BYTES = 8192;

const SIGNATURES: { bytes: number[]; what: string }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47], what: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], what: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], what: 'a GIF image' },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: 'a PDF document' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: 'a ZIP archive (an Excel .xlsx or .ods file is one: save it as CSV)' },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], what: 'an old Office document (an Excel .xls: save it as CSV)' },
  { bytes: [0x1f, 0x8b], what: 'a gzip archive' },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf], what: 'a 7-Zip archive' },
  { bytes: [0x52, 0x61, 0x72, 0x21], what: 'a RAR archive' },
];

/** Share of control characters (other than tab, line feed, carriage return, form feed) above which a file is not text. */
const CONTROL_SHARE = 0.05;

/**
 * Why the file whose size is `size` and whose first bytes are `head` cannot be a batch CSV, in a sentence that names
 * it; null when it may be one (the service reads it and judges the rest).
 */
export function notCsvReason(name: string, size: number, head: Uint8Array): string | null {
  if (size === 0) return `${name} is empty: it holds no rows to check.`;
  const sig = SIGNATURES.find((s) => s.bytes.every((b, i) => head[i] === b));
  if (sig) return `${name} is ${sig.what}, not a CSV file: choose a CSV (text, one row per line).`;
  // UTF-16 text has a NUL in every other byte: with its byte-order mark, or without one (the service reads both).
  const utf16 = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff) || utf16ByNuls(head) !== null;
  if (utf16) return null;
  let control = 0;
  for (const b of head) {
    if (b === 0) return `${name} holds binary data (NUL bytes in its first ${head.length.toLocaleString('en-US')} bytes), not a CSV file: choose a CSV (text, one row per line).`;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c) control += 1;
  }
  if (head.length > 0 && control / head.length > CONTROL_SHARE)
    return `${name} holds binary data (${Math.round((control / head.length) * 100)} % control characters in its first bytes), not a CSV file: choose a CSV (text, one row per line).`;
  return null;
}
