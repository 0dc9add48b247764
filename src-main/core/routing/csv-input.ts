// The input rules of batch-CSV files (issue 18 item 4), in one place for `vconsole batch validate` and the console
// uploader: what the file's encoding, separator, line endings, header and identifier column are, detected from its
// head (or given), and either handled — the file is then rewritten to UTF-8, comma-separated, LF lines in a temporary
// file that the unchanged engine (csv-batch.ts) reads — or refused with a message that names the problem and the
// option that fixes it. A plain UTF-8 comma file is read as it is, so the engine's fast path is untouched.
import { notCsvReason, SNIFF_BYTES } from '../../../src-shared/file-sniff';
import { utf16ByNuls } from '../../../src-shared/utf16-sniff';
import { isAscii, isUtf8 } from 'node:buffer';
import { closeSync, createReadStream, createWriteStream, mkdtempSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { TextDecoder } from 'node:util';
import Papa from 'papaparse';
import { AppError } from '../../../src-shared/app-error';
import { isBicCountryCodes } from '../../../src-shared/validators/bic';
import { abaChecksumValid } from '../../../src-shared/validators/aba';
import {
  detectLayout,
  looksLikeIdentifier,
  mappingFromData,
  normaliseHeader,
  validateCsvFile,
  type BatchSummary,
  type ColumnMapping,
  type ValidateCsvOptions,
} from './csv-batch';
import { isBlankRecord, parseCsvText } from './csv-reader';
import { NotARegularFile, openRegularFile } from './regular-file';

export type CsvEncoding = 'utf8' | 'latin1' | 'utf16le' | 'utf16be';
export type CsvDelimiter = ',' | ';' | '\t' | '|';

export interface CsvInputOptions {
  /** Default: detected (byte-order mark, NUL pattern of UTF-16, UTF-8 validity; else Latin-1). */
  encoding?: CsvEncoding | undefined;
  /** Default: detected among comma, semicolon, tab and pipe. */
  delimiter?: CsvDelimiter | undefined;
  /** The column holding the identifiers (header name or 1-based number); its kind is decided row by row. */
  column?: string | undefined;
  /** Whether the first row is a header; default detected. */
  header?: boolean | undefined;
  /** A column mapping chosen in the console (overrides the detected one). */
  mapping?: Partial<ColumnMapping> | undefined;
}

/** Where a message is shown: the fix is a command-line option, or a control of the console uploader. */
export type CsvSurface = 'cli' | 'console';

export interface CsvInputPlan {
  encoding: CsvEncoding;
  /** The encoding was detected from the head only (UTF-8 so far): the whole file is checked before the run. */
  encodingTentative: boolean;
  delimiter: CsvDelimiter;
  crOnly: boolean;
  header: boolean | undefined;
  mapping: Partial<ColumnMapping> | undefined;
  /** What was detected and how the file is read, in words for the user. */
  notes: string[];
}

const HEAD_BYTES = 1024 * 1024;
const ENCODING_NAMES: Record<CsvEncoding, string> = { utf8: 'UTF-8', latin1: 'Latin-1 (Windows-1252)', utf16le: 'UTF-16 LE', utf16be: 'UTF-16 BE' };
const DELIMITER_NAMES: Record<CsvDelimiter, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };

/** The fix for each problem, by surface: the one place the advice is worded (CLI and console say the same). */
const FIX: Record<'encoding' | 'column' | 'delimiter', Record<CsvSurface, string>> = {
  encoding: { cli: 'pass --encoding latin1 (or utf8, utf16le, utf16be)', console: 'save it as UTF-8 (in a spreadsheet: "CSV UTF-8") and pick it again' },
  column: { cli: 'name the column with --column NAME (or its number, 1 = first)', console: 'choose the column that holds them in the mapping below' },
  delimiter: { cli: 'pass --delimiter ";" (or "," "tab" "|")', console: 'save it comma-separated and pick it again' },
};

export class CsvInputProblem extends AppError {
  constructor(
    readonly problem: 'ENCODING_MIXED' | 'NO_IDENTIFIER_COLUMN' | 'UNKNOWN_COLUMN' | 'BAD_OPTION' | 'EMPTY_FILE' | 'NOT_A_FILE' | 'NOT_TEXT',
    text: string,
  ) {
    super('VALIDATION_ERROR', { message: text, details: [{ field: 'path', message: text }] });
  }
}

export function parseDelimiterOption(v: string): CsvDelimiter {
  const map: Record<string, CsvDelimiter> = { ',': ',', comma: ',', ';': ';', semicolon: ';', '\t': '\t', '\\t': '\t', tab: '\t', '|': '|', pipe: '|' };
  const d = map[v.toLowerCase()];
  if (!d) throw new CsvInputProblem('BAD_OPTION', `--delimiter must be one of , ; tab | (got "${v}").`);
  return d;
}

export function parseEncodingOption(v: string): CsvEncoding {
  const map: Record<string, CsvEncoding> = { utf8: 'utf8', 'utf-8': 'utf8', latin1: 'latin1', 'latin-1': 'latin1', 'iso-8859-1': 'latin1', cp1252: 'latin1', 'windows-1252': 'latin1', utf16le: 'utf16le', 'utf-16le': 'utf16le', utf16be: 'utf16be', 'utf-16be': 'utf16be' };
  const e = map[v.toLowerCase()];
  if (!e) throw new CsvInputProblem('BAD_OPTION', `--encoding must be utf8, latin1, utf16le or utf16be (got "${v}").`);
  return e;
}

/** The first HEAD_BYTES of the file; a path that is not a regular file (a pipe, a device, a folder) is refused first. */
function readHead(path: string): Buffer {
  let fd: number;
  try {
    ({ fd } = openRegularFile(path));
  } catch (e) {
    if (e instanceof NotARegularFile) throw new CsvInputProblem('NOT_A_FILE', `${basename(path)} cannot be checked: ${e.reason}. Give a CSV file.`);
    throw e;
  }
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

function bomOf(head: Buffer): { encoding: CsvEncoding; length: number } | null {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf8', length: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf16le', length: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf16be', length: 2 };
  return null;
}


/** Is the head valid UTF-8, a character cut at its end aside? */
function headIsUtf8(head: Buffer, whole: boolean): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !whole });
    return true;
  } catch {
    return false;
  }
}

function decoderFor(encoding: CsvEncoding): TextDecoder {
  // WHATWG "latin1" is Windows-1252, what spreadsheets write as "Latin-1" on Windows (€, curly quotes...).
  const label = encoding === 'utf8' ? 'utf-8' : encoding === 'latin1' ? 'windows-1252' : encoding === 'utf16le' ? 'utf-16le' : 'utf-16be';
  return new TextDecoder(label);
}

/** The head as text in the plan's encoding, its first line breaks as LF, cut at its last complete line. */
function headText(head: Buffer, encoding: CsvEncoding, whole: boolean): string {
  const bom = bomOf(head);
  let text = decoderFor(encoding).decode(bom && bom.encoding === encoding ? head.subarray(bom.length) : head, { stream: !whole });
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!whole) {
    const cut = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
    if (cut > 0) text = text.slice(0, cut + 1);
  }
  return text;
}

/** The separator of CSV text (`,` `;` tab `|`), as its first 50 lines show it; a comma when nothing else fits. */
export function guessDelimiter(text: string): CsvDelimiter {
  const sample = firstLines(text.includes('\n') ? text : text.replace(/\r/g, '\n'), 50);
  const guess = Papa.parse<string[]>(sample, { preview: 50, skipEmptyLines: true, delimitersToGuess: [',', ';', '\t', '|'] }).meta.delimiter;
  return guess === ';' || guess === '\t' || guess === '|' ? guess : ',';
}

/** A cell that is a valid identifier: a BIC with an ISO country, or a routing number passing its checksum. */
function validIdentifier(cell: string): boolean {
  const v = cell.trim().toUpperCase();
  if (/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(v)) return isBicCountryCodes(v.charCodeAt(4), v.charCodeAt(5));
  const digits = v.replace(/[\s-]/g, '');
  return /^\d{9}$/.test(digits) && abaChecksumValid(digits);
}

const HEADER_WORDS = /BIC|SWIFT|CODE|ROUTING|BANK|IDENT|CURRENCY/;

/**
 * A first row that looks like data to the engine (a cell of BIC shape) but is a header: it holds no valid
 * identifier, and a BIC-shaped cell is a header word (`SWIFTBIC`, `BANKCODE`), a capitalised word (`Counties`),
 * sits next to a multi-word name (`Contact Phone Number`), or is not valid while the rows below hold valid ones.
 */
function bicLikeHeader(first: string[], below: string[][]): string | null {
  if (below.length === 0 || first.some((c) => validIdentifier(c) && !/^[A-Za-z]+$/.test(c.trim()))) return null;
  const multiWord = first.some((c) => /[A-Za-z]+ [A-Za-z]+/.test(c));
  for (let c = 0; c < first.length; c++) {
    const cell = (first[c] ?? '').trim();
    if (!looksLikeIdentifier(cell)) continue;
    const letters = /^[A-Za-z]+$/.test(cell);
    const valid = validIdentifier(cell);
    if (letters && HEADER_WORDS.test(cell.toUpperCase())) return cell;
    if (letters && !valid && (/^[A-Z][a-z]+$/.test(cell) || multiWord)) return cell;
    const belowValid = below.filter((r) => validIdentifier(r[c] ?? '')).length;
    if (!valid && belowValid > 0 && belowValid >= below.length / 2) return cell;
  }
  return null;
}

function resolveColumn(column: string, header: string[] | null, width: number, surface: CsvSurface): number {
  const byName = header ? header.findIndex((h) => normaliseHeader(h) === normaliseHeader(column)) : -1;
  if (byName >= 0) return byName;
  if (/^\d+$/.test(column)) {
    const i = Number(column) - 1;
    if (i >= 0 && i < width) return i;
  }
  const names = header ? header.map((h) => `"${h}"`).join(', ') : `columns 1 to ${width}`;
  throw new CsvInputProblem('UNKNOWN_COLUMN', `The file has no column "${column}" (it has ${names}); ${FIX.column[surface]}.`);
}

/** Reads the head of the file and decides how to read it, or refuses it with a message naming the fix. */
export function planCsvInput(path: string, o: CsvInputOptions = {}, surface: CsvSurface = 'cli'): CsvInputPlan {
  const { plan, problem } = inspect(path, o, surface);
  if (problem) throw problem;
  return plan;
}

interface Inspection {
  plan: CsvInputPlan;
  /** A refusal the console can still resolve in its mapping step (no identifier column). */
  problem: CsvInputProblem | null;
  text: string;
}

function inspect(path: string, o: CsvInputOptions, surface: CsvSurface): Inspection {
  const head = readHead(path);
  // An image, an archive, binary data: the console refuses it before the upload with the same rule (src-shared).
  const notText = head.length > 0 ? notCsvReason(basename(path), head.length, head.subarray(0, SNIFF_BYTES)) : null;
  if (notText) throw new CsvInputProblem('NOT_TEXT', notText);
  const whole = head.length < HEAD_BYTES;
  const notes: string[] = [];
  const bom = bomOf(head);
  let encoding: CsvEncoding;
  let tentative = false;
  if (o.encoding) encoding = o.encoding;
  else if (bom) {
    encoding = bom.encoding;
    if (encoding !== 'utf8') notes.push(`Read as ${ENCODING_NAMES[encoding]} (the file starts with its byte-order mark).`);
  } else {
    const nul = utf16ByNuls(head);
    if (nul) {
      encoding = nul;
      notes.push(`Read as ${ENCODING_NAMES[nul]} (every other byte is zero, as in UTF-16 text).`);
    } else if (headIsUtf8(head, whole)) {
      encoding = 'utf8';
      tentative = !whole;
    } else {
      const firstBad = firstInvalidUtf8(head);
      if (!isAscii(head.subarray(0, firstBad))) throw mixedEncoding(head, firstBad, surface);
      encoding = 'latin1';
      notes.push(`Read as ${ENCODING_NAMES.latin1}: the file is not UTF-8 (byte ${firstBad + 1} is not part of a UTF-8 character).`);
    }
  }
  const text = headText(head, encoding, whole);
  const crOnly = text.includes('\r') && !text.includes('\n');
  if (crOnly) notes.push('Line endings: CR only (classic Mac), read as line breaks.');
  const delimiter = o.delimiter ?? guessDelimiter(text);
  if (delimiter !== ',') notes.push(`Separator: ${DELIMITER_NAMES[delimiter]}${o.delimiter ? '' : ' (detected)'}; the result file is comma-separated.`);

  // The first records as the engine will see them: the first 200 lines are plenty (21 records are read), and keep
  // the preview and a console start cheap on the main thread.
  const asComma = toCommaCsv(firstLines(crOnly ? text.replace(/\r\n?/g, '\n') : text, 200), delimiter);
  const records = parseCsvText(asComma)
    .filter((r) => !isBlankRecord(r.cells))
    .slice(0, 21)
    .map((r) => r.cells);
  const first = records[0] ?? [];
  const below = records.slice(1);
  let header = o.header;
  if (header === undefined && first.length > 0) {
    const word = bicLikeHeader(first, below);
    if (word !== null) {
      header = true;
      notes.push(`Row 1 read as the header: "${word}" names a column rather than holding a BIC.`);
    }
  }

  let mapping = o.mapping;
  let problem: CsvInputProblem | null = null;
  const layout = first.length > 0 ? detectLayout(first, undefined, header) : null;
  const headers = layout?.hasHeader ? layout.headers : null;
  const width = Math.max(first.length, ...below.map((r) => r.length), 1);
  if (o.column !== undefined) {
    const i = resolveColumn(o.column, headers, width, surface);
    mapping = { type: null, bic: i, routing: i, fromBic: null, toBic: null, currency: null };
  } else if (layout && !hasIdentifierMapping(mapping)) {
    const data = layout.hasHeader ? below : records;
    const m = layout.sniffNextRow ? (data[0] ? mappingFromData(data[0]) : layout.mapping) : layout.mapping;
    const named = layout.hasHeader && !layout.sniffNextRow;
    const anyIdentifier = data.some((r) => r.some(looksLikeIdentifierLoose));
    if ((named && !hasIdentifierMapping(m)) || (!named && !anyIdentifier && data.length > 0)) {
      const seen = (headers ?? first).map((h) => `"${h.trim()}"`).join(', ');
      problem = new CsvInputProblem(
        'NO_IDENTIFIER_COLUMN',
        `No column holds BICs, routing numbers or routes (${headers ? 'header' : 'first row'}: ${seen}); ${FIX.column[surface]}.`,
      );
    }
  }
  return { plan: { encoding, encodingTentative: tentative, delimiter, crOnly, header, mapping, notes }, problem, text: asComma };
}

export interface CsvInputPreview {
  headers: string[];
  rows: string[][];
  mapping: ColumnMapping;
  hasHeader: boolean;
  /** How the file is read (encoding, separator, line endings, header). */
  notes: string[];
  /** Why the detected mapping cannot run as it is (no identifier column): the user picks the columns. */
  problem?: string;
}

/** The console's preview: the first rows as the run will read them, the detected mapping, notes and any problem. */
export function previewCsvInput(path: string, n = 10): CsvInputPreview {
  const { plan, problem, text } = inspect(path, {}, 'console');
  const records = parseCsvText(text).filter((r) => !isBlankRecord(r.cells)).map((r) => r.cells);
  const first = records[0];
  // Nothing to preview, map or run (0 bytes, only a byte-order mark, blank lines): say so, as the directory import does.
  if (!first) {
    throw new CsvInputProblem(
      'EMPTY_FILE',
      text.trim() === '' ? 'The file is empty: it holds no rows to check.' : 'The file holds no rows to check: its first lines are all blank.',
    );
  }
  const layout = detectLayout(first, undefined, plan.header);
  const data = layout.hasHeader ? records.slice(1) : records;
  let mapping = layout.mapping;
  if (layout.sniffNextRow && data[0]) mapping = mappingFromData(data[0]);
  if (problem) mapping = emptyColumnMapping();
  return {
    headers: layout.headers,
    rows: data.slice(0, n),
    mapping,
    hasHeader: layout.hasHeader,
    notes: plan.notes,
    ...(problem ? { problem: problem.message } : {}),
  };
}

function emptyColumnMapping(): ColumnMapping {
  return { type: null, bic: null, routing: null, fromBic: null, toBic: null, currency: null };
}

/** The text up to and including its `n`th line break (all of it when it has fewer). */
function firstLines(text: string, n: number): string {
  let at = -1;
  for (let k = 0; k < n; k++) {
    at = text.indexOf('\n', at + 1);
    if (at === -1) return text;
  }
  return text.slice(0, at + 1);
}

function hasIdentifierMapping(m: Partial<ColumnMapping> | undefined): boolean {
  return !!m && (m.bic != null || m.routing != null || m.fromBic != null || m.toBic != null);
}

/** Like the engine's identifier test, with spaces and dashes in routing numbers allowed. */
function looksLikeIdentifierLoose(cell: string): boolean {
  return looksLikeIdentifier(cell) || /^\d{8,10}$/.test(cell.replace(/[\s-]/g, ''));
}

/** Index of the first byte that is not part of a valid UTF-8 character (`buf.length` when there is none). */
function firstInvalidUtf8(b: Buffer): number {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (need === 0 || i + need > n - 1) return i;
    for (let k = 1; k <= need; k++) if ((b[i + k]! & 0xc0) !== 0x80) return i;
    const c1 = b[i + 1]!;
    if ((c === 0xe0 && c1 < 0xa0) || (c === 0xed && c1 > 0x9f) || (c === 0xf0 && c1 < 0x90) || (c === 0xf4 && c1 > 0x8f)) return i;
    i += need + 1;
  }
  return n;
}

function lineOf(buf: Buffer, offset: number): number {
  let line = 1;
  for (let i = buf.indexOf(10); i !== -1 && i < offset; i = buf.indexOf(10, i + 1)) line++;
  return line;
}

function mixedEncoding(buf: Buffer, offset: number, surface: CsvSurface, base = 0, baseLine = 0): CsvInputProblem {
  return new CsvInputProblem(
    'ENCODING_MIXED',
    `The file is not valid UTF-8: byte ${base + offset + 1} (line ${baseLine + lineOf(buf, offset)}) is not part of a UTF-8 character, though text before it is UTF-8, so no single encoding reads it without loss. If the whole file is Latin-1, ${FIX.encoding[surface]}; otherwise save it as UTF-8.`,
  );
}

/**
 * Re-delimits CSV text as comma-separated: cells are unquoted and written again with the shared quoting rule
 * (src-shared/csv.ts), so a comma inside a semicolon- or tab-separated cell stays in its cell. A stray quote (text
 * after a closing quote, `"abc"def`, or a quote inside an unquoted cell, `ab"c`) is written as it came, so the engine
 * reports the row's STRAY_QUOTE as it does in a comma file: re-quoted cleanly, a quote opened by mistake swallowed
 * the hundreds of rows up to the next one into one cell of a row marked valid.
 */
export function toCommaCsv(text: string, delimiter: CsvDelimiter): string {
  if (delimiter === ',') return text;
  const out: string[] = [];
  let cell = '';
  let quoted = false;
  let inQuotes = false;
  /** Where the quoted part of the cell ended (its closing quote), and whether anything stray came after or inside. */
  let closedAt = -1;
  let stray = false;
  let row: string[] = [];
  const endCell = () => {
    if (stray) row.push(quoted ? `"${cell.slice(0, closedAt).replaceAll('"', '""')}"${cell.slice(closedAt)}` : cell);
    else row.push(quoted || /[",\r\n]/.test(cell) || cell.startsWith(' ') || cell.endsWith(' ') ? `"${cell.replaceAll('"', '""')}"` : cell);
    cell = '';
    quoted = false;
    closedAt = -1;
    stray = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inQuotes) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else {
          inQuotes = false;
          closedAt = cell.length;
        }
      } else cell += ch;
      continue;
    }
    if (ch === '"' && cell === '' && !quoted) {
      inQuotes = true;
      quoted = true;
    } else if (ch === delimiter) endCell();
    else if (ch === '\n') {
      endCell();
      out.push(row.join(','), '\n');
      row = [];
    } else if (ch === '\r' && text[i + 1] === '\n') continue;
    else {
      // After its closing quote a cell may end only here; a quote inside an unquoted cell is stray too.
      if (quoted || ch === '"') stray = true;
      cell += ch;
    }
  }
  if (cell !== '' || row.length > 0 || inQuotes) {
    if (inQuotes) cell = `"${cell}`; // an unclosed quote stays visible: the engine reports the row
    endCell();
    out.push(row.join(','));
  }
  return out.join('');
}

/** True when the engine cannot read the file as it is. */
function needsRewrite(plan: CsvInputPlan): boolean {
  return plan.encoding !== 'utf8' || plan.delimiter !== ',' || plan.crOnly;
}

/** Checks the rest of a file whose head was UTF-8; returns the offset of the first invalid byte, or -1. */
async function scanUtf8(path: string, signal?: AbortSignal): Promise<{ offset: number; asciiBefore: boolean; chunk: Buffer; base: number; baseLine: number } | null> {
  let carry = Buffer.alloc(0);
  let base = 0;
  let baseLine = 0;
  let ascii = true;
  for await (const raw of createReadStream(path, { highWaterMark: HEAD_BYTES, ...(signal ? { signal } : {}) })) {
    const buf = carry.length > 0 ? Buffer.concat([carry, raw as Buffer]) : (raw as Buffer);
    // Hold back a character cut at the chunk's end.
    let cut = buf.length;
    for (let k = 1; k <= 3 && buf.length - k >= 0; k++) {
      const b = buf[buf.length - k]!;
      if ((b & 0xc0) === 0xc0) {
        const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
        if (need > k) cut = buf.length - k;
        break;
      }
      if ((b & 0x80) === 0) break;
    }
    const part = buf.subarray(0, cut);
    if (!isUtf8(part)) {
      const offset = firstInvalidUtf8(part);
      return { offset, asciiBefore: ascii && isAscii(part.subarray(0, offset)), chunk: part, base, baseLine };
    }
    if (ascii && !isAscii(part)) ascii = false;
    baseLine += lineOf(part, part.length) - 1;
    base += part.length;
    carry = Buffer.from(buf.subarray(cut));
  }
  if (carry.length > 0) return { offset: 0, asciiBefore: ascii, chunk: carry, base, baseLine };
  return null;
}

/** Writes the file as UTF-8, comma-separated, LF lines, streaming (flat memory). */
async function rewrite(input: string, output: string, plan: CsvInputPlan, signal?: AbortSignal): Promise<void> {
  const decoder = decoderFor(plan.encoding);
  const out = createWriteStream(output);
  let pending = '';
  let first = true;
  const write = async (s: string) => {
    if (s.length > 0 && !out.write(s)) await once(out, 'drain');
  };
  try {
    for await (const raw of createReadStream(input, { highWaterMark: HEAD_BYTES, ...(signal ? { signal } : {}) })) {
      let text = pending + decoder.decode(raw as Buffer, { stream: true });
      if (first) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = false;
      }
      if (plan.crOnly) text = text.replace(/\r\n?/g, '\n');
      // Convert complete lines only, outside a quoted cell: cut at the last line break with an even number of quotes before it.
      let cutAt = lastSafeBreak(text);
      // A quote that never closes must not hold the rest of the file in memory: past 4 MiB, cut at a line break anyway.
      if (cutAt === 0 && text.length > 4 * HEAD_BYTES) cutAt = text.lastIndexOf('\n') + 1;
      pending = text.slice(cutAt);
      await write(toCommaCsv(text.slice(0, cutAt), plan.delimiter));
    }
    let rest = pending + decoder.decode();
    if (plan.crOnly) rest = rest.replace(/\r\n?/g, '\n');
    await write(toCommaCsv(rest, plan.delimiter));
    out.end();
    await finished(out);
  } catch (e) {
    out.destroy();
    throw e;
  }
}

/** The end of the last line of `text` that closes every quote it opened (0 when none does). */
function lastSafeBreak(text: string): number {
  let quotes = 0;
  let safe = 0;
  for (let i = text.indexOf('"'), nl = text.indexOf('\n'); nl !== -1; ) {
    while (i !== -1 && i < nl) {
      quotes++;
      i = text.indexOf('"', i + 1);
    }
    if (quotes % 2 === 0) safe = nl + 1;
    nl = text.indexOf('\n', nl + 1);
  }
  return safe;
}

export interface CsvInputSummary extends BatchSummary {
  /** How the file was read (encoding, separator, line endings, header), for the user. */
  notes: string[];
}

/**
 * validateCsvFile behind the input rules: plans how to read the file, checks the whole of a file whose head was
 * UTF-8, rewrites it to a temporary UTF-8 comma file when needed, and runs the engine on the result.
 */
export async function validateCsvInput(
  opts: ValidateCsvOptions & { input: string } & { csv?: CsvInputOptions | undefined; surface?: CsvSurface | undefined; plan?: CsvInputPlan | undefined },
): Promise<CsvInputSummary> {
  const surface = opts.surface ?? 'cli';
  const plan = opts.plan ?? planCsvInput(opts.input, { ...opts.csv, mapping: opts.csv?.mapping ?? opts.mapping }, surface);
  if (plan.encodingTentative) {
    const bad = await scanUtf8(opts.input, opts.signal);
    if (bad && !bad.asciiBefore) throw mixedEncoding(bad.chunk, bad.offset, surface, bad.base, bad.baseLine);
    if (bad) {
      plan.encoding = 'latin1';
      plan.notes.push(`Read as ${ENCODING_NAMES.latin1}: the file is not UTF-8 (byte ${bad.base + bad.offset + 1} is not part of a UTF-8 character).`);
    }
    plan.encodingTentative = false;
  }
  const { csv: _csv, surface: _surface, plan: _plan, ...engineOpts } = opts;
  const run = (input: string) =>
    validateCsvFile({
      ...engineOpts,
      input,
      ...(plan.mapping ? { mapping: plan.mapping } : {}),
      ...(plan.header !== undefined ? { header: plan.header } : {}),
    });
  if (!needsRewrite(plan)) return { ...(await run(opts.input)), notes: plan.notes };
  const dir = mkdtempSync(join(tmpdir(), 'vc-csv-'));
  try {
    const normalised = join(dir, 'input.csv');
    await rewrite(opts.input, normalised, plan, opts.signal);
    return { ...(await run(normalised)), notes: plan.notes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
