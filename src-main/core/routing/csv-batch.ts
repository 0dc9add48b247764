// Streaming batch-CSV validator: reads a CSV of any size, checks each row as a BIC, routing number or route, and
// writes a result CSV (plus an optional invalid-only CSV) with flat memory and backpressure on the outputs.
import { isUtf8 } from 'node:buffer';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { stat, unlink } from 'node:fs/promises';
import { once } from 'node:events';
import { addAbortSignal } from 'node:stream';
import { finished } from 'node:stream/promises';
import { csvText } from '../../../src-shared/csv';
import { abaChecksumValid, federalReserveDistrict, isNineDigits } from '../../../src-shared/validators/aba';
import { isBicCountryCodes, isReservedBranchStart } from '../../../src-shared/validators/bic';
import { directoryOf, evaluateBic, evaluateRoute, evaluateRoutingNumber, type RoutingContext } from './checks';
import { CsvRecordParser, DEFAULT_MAX_RECORD_CHARS, isBlankRecord, type CsvRecord, type CsvRowError } from './csv-reader';
import type { RoutingDirectory } from './directory';

/** Zero-based column indexes; null when the file has no such column. `bic` and `routing` may share one column. */
export interface ColumnMapping {
  type: number | null;
  bic: number | null;
  routing: number | null;
  fromBic: number | null;
  toBic: number | null;
  currency: number | null;
}

export interface BatchSummary {
  rows: number;
  valid: number;
  invalid: number;
  /** Reason code → number of rows carrying it. */
  reasons: Record<string, number>;
  durationMs: number;
}

export interface BatchProgress {
  rows: number;
  bytes: number;
  totalBytes: number;
  percent: number;
  rowsPerSecond: number;
  etaSeconds: number | null;
}

export interface ValidateCsvOptions {
  input: string;
  output: string;
  invalidOnlyOutput?: string;
  mapping?: Partial<ColumnMapping>;
  directory: RoutingDirectory | null;
  sandbox: boolean;
  signal?: AbortSignal;
  onProgress?: (p: BatchProgress) => void;
  /**
   * False sends every row through the record path (parse the cells, render them, evaluateRow): the reference the
   * direct line path is tested against. Default true.
   */
  directLines?: boolean;
  /**
   * Whether the first non-blank row is a header; undefined detects it (a known column name, or nothing that looks
   * like an identifier). Set by the input check (csv-input.ts) when a header looks like a BIC.
   */
  header?: boolean;
}

export const RESULT_COLUMNS = [
  'valid',
  'reasons',
  'institution_code',
  'country_code',
  'location_code',
  'branch_code',
  'bank_name',
] as const;

const HEADER_ALIASES: Record<keyof ColumnMapping, readonly string[]> = {
  type: ['type', 'kind', 'item_type', 'check_type', 'row_type'],
  bic: ['bic', 'swift', 'swift_code', 'bic_code', 'swift_bic', 'bic_swift', 'swiftbic', 'bic_swift_code'],
  routing: ['routing', 'routing_number', 'aba', 'rtn', 'aba_number', 'aba_routing_number', 'routing_code', 'routing_transit_number'],
  fromBic: ['from_bic', 'from', 'source_bic', 'sender_bic', 'from_swift', 'ordering_bic'],
  toBic: ['to_bic', 'to', 'destination_bic', 'receiver_bic', 'beneficiary_bic', 'to_swift'],
  currency: ['currency', 'ccy', 'currency_code', 'cur'],
};

// A Map, not an object literal: a cell reading `constructor` must not find Object.prototype.
const TYPE_VALUES = new Map<string, 'bic' | 'routing' | 'route'>([
  ['bic', 'bic'],
  ['swift', 'bic'],
  ['routing', 'routing'],
  ['routing_number', 'routing'],
  ['aba', 'routing'],
  ['rtn', 'routing'],
  ['route', 'route'],
]);

const MAPPING_KEYS = Object.keys(HEADER_ALIASES) as (keyof ColumnMapping)[];

function emptyMapping(): ColumnMapping {
  return { type: null, bic: null, routing: null, fromBic: null, toBic: null, currency: null };
}

export function normaliseHeader(s: string): string {
  return s.trim().toLowerCase().replace(/[\s\-./]+/g, '_');
}

/** Maps header cells to columns; returns null when no cell is a known column name (the file has no header). */
export function mappingFromHeader(cells: readonly string[]): ColumnMapping | null {
  const m = emptyMapping();
  let hits = 0;
  cells.forEach((cell, i) => {
    const h = normaliseHeader(cell);
    for (const key of MAPPING_KEYS) {
      if (m[key] === null && HEADER_ALIASES[key].includes(h)) {
        m[key] = i;
        hits++;
        break;
      }
    }
  });
  return hits > 0 ? m : null;
}

const BIC_SHAPE = /^[A-Za-z]{6}[A-Za-z0-9]{2}([A-Za-z0-9]{3})?$/;

/** For a file without a header: guesses the columns from the first data row's contents. */
export function mappingFromData(cells: readonly string[]): ColumnMapping {
  const m = emptyMapping();
  const bicCols: number[] = [];
  cells.forEach((raw, i) => {
    const v = raw.trim();
    if (m.type === null && TYPE_VALUES.has(v.toLowerCase())) m.type = i;
    else if (m.routing === null && /^\d{8,10}$/.test(v)) m.routing = i;
    else if (m.currency === null && /^[A-Za-z]{3}$/.test(v)) m.currency = i;
    else if (BIC_SHAPE.test(v)) bicCols.push(i);
  });
  if (bicCols.length >= 2 && m.currency !== null) {
    m.fromBic = bicCols[0] ?? null;
    m.toBic = bicCols[1] ?? null;
  } else if (bicCols.length >= 1) {
    m.bic = bicCols[0] ?? null;
  }
  if (m.bic === null && m.routing === null && m.fromBic === null) {
    // Nothing recognisable: treat the first column as an identifier whose kind is decided row by row.
    m.bic = 0;
    m.routing = 0;
  } else if (m.bic === null && m.routing !== null && m.fromBic === null && cells.length === 1) {
    m.bic = m.routing;
  } else if (m.routing === null && m.bic !== null && m.fromBic === null && cells.length === 1) {
    m.routing = m.bic;
  }
  return m;
}

export interface Layout {
  hasHeader: boolean;
  headers: string[];
  mapping: ColumnMapping;
  /** Header row of unknown names: the columns are guessed from the first data row instead. */
  sniffNextRow: boolean;
}

export function looksLikeIdentifier(cell: string): boolean {
  const v = cell.trim();
  return BIC_SHAPE.test(v) || /^\d{8,10}$/.test(v);
}

export function detectLayout(first: readonly string[], override: Partial<ColumnMapping> | undefined, header?: boolean): Layout {
  const fromHeader = header === false ? null : mappingFromHeader(first);
  // A first row with no known column name and nothing that looks like a BIC or routing number is a header too.
  const unknownHeader = fromHeader === null && (header === true || (header === undefined && !first.some(looksLikeIdentifier)));
  const hasHeader = fromHeader !== null || unknownHeader;
  const headers = hasHeader ? first.map((h) => h.trim()) : first.map((_, i) => `column_${i + 1}`);
  const mapping = { ...(fromHeader ?? (unknownHeader ? emptyMapping() : mappingFromData(first))), ...definedOnly(override) };
  return { hasHeader, headers, mapping, sniffNextRow: unknownHeader };
}

function definedOnly(m: Partial<ColumnMapping> | undefined): Partial<ColumnMapping> {
  const out: Partial<ColumnMapping> = {};
  if (!m) return out;
  for (const key of MAPPING_KEYS) if (m[key] !== undefined) out[key] = m[key];
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Row evaluation

interface RowOutcome {
  valid: boolean;
  reasons: string[];
  codes: string[];
  parts: { institutionCode: string | null; countryCode: string | null; locationCode: string | null; branchCode: string | null } | null;
  bankName: string | null;
}

const CSV_ERROR_MESSAGES: Record<CsvRowError, string> = {
  STRAY_QUOTE: 'The CSV row has a stray quote character, so its cells cannot be trusted.',
  UNCLOSED_QUOTE: 'The CSV row opens a quoted cell that is never closed.',
  ROW_TOO_LONG: 'The CSV row is too long to be a routing record.',
};

function invalid(code: string, reason: string): RowOutcome {
  return { valid: false, reasons: [reason], codes: [code], parts: null, bankName: null };
}

function cellAt(cells: readonly string[], i: number | null): string {
  return i === null ? '' : (cells[i] ?? '').trim();
}

export function evaluateRow(cells: readonly string[], mapping: ColumnMapping, ctx: RoutingContext): RowOutcome {
  const typeCell = cellAt(cells, mapping.type);
  let type: 'bic' | 'routing' | 'route' | undefined;
  if (typeCell !== '') {
    type = TYPE_VALUES.get(typeCell) ?? TYPE_VALUES.get(normaliseHeader(typeCell));
    if (!type) return invalid('UNKNOWN_ROW_TYPE', `The row type "${typeCell}" is not bic, routing or route.`);
  } else if (cellAt(cells, mapping.fromBic) !== '' || cellAt(cells, mapping.toBic) !== '') {
    type = 'route';
  } else {
    const b = cellAt(cells, mapping.bic);
    const r = cellAt(cells, mapping.routing);
    if (mapping.bic !== null && mapping.bic === mapping.routing) {
      if (b !== '') type = /^[\d\s-]+$/.test(b) ? 'routing' : 'bic';
    } else if (b !== '' && r !== '') {
      return invalid('AMBIGUOUS_ROW', 'Both a BIC and a routing number are filled; add a type column to say which to check.');
    } else if (b !== '') type = 'bic';
    else if (r !== '') type = 'routing';
  }
  if (!type) return invalid('MISSING_IDENTIFIER', 'The row has no BIC, routing number or route to check.');

  if (type === 'bic') {
    const { result, codes } = evaluateBic(cellAt(cells, mapping.bic), ctx);
    return {
      valid: result.valid,
      reasons: result.reasons ?? (result.error ? [result.error.message] : []),
      codes,
      parts: result,
      bankName: result.bankName,
    };
  }
  if (type === 'routing') {
    const { result, codes } = evaluateRoutingNumber(cellAt(cells, mapping.routing), ctx);
    return {
      valid: result.valid,
      reasons: result.reasons ?? (result.error ? [result.error.message] : []),
      codes,
      parts: null,
      bankName: result.bankName,
    };
  }
  const { result, codes } = evaluateRoute(cellAt(cells, mapping.fromBic), cellAt(cells, mapping.toBic), cellAt(cells, mapping.currency), ctx);
  const reasons = result.reasons ?? (result.error ? [result.error.message] : []);
  if (result.valid) reasons.push(`Route: ${result.path.join(' > ')}`);
  return { valid: result.valid, reasons, codes, parts: null, bankName: null };
}

// ---------------------------------------------------------------------------------------------------------------
// Output


/**
 * One CSV cell of a result file: the shared rule of src-shared/csv.ts, with a char-code pre-check so that the
 * common cell (nothing to neutralise, nothing to quote) is returned as is without a regex or a copy.
 */
export function csvCell(value: string): string {
  const n = value.length;
  if (n === 0) return value;
  const c0 = value.charCodeAt(0);
  const cl = value.charCodeAt(n - 1);
  // = + - @ TAB CR first (neutralised), or a space or TAB at either edge (quoted): the shared rule decides.
  if (c0 === 61 || c0 === 43 || c0 === 45 || c0 === 64 || c0 === 9 || c0 === 13 || c0 === 32 || cl === 32 || cl === 9) {
    return csvText(value);
  }
  // Long texts (reasons) are often cons strings, slow to walk char by char: one native regex scan instead.
  if (n > 16) return NEEDS_QUOTES.test(value) ? csvText(value) : value;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c === 34 || c === 44 || c === 13 || c === 10) return csvText(value);
  }
  return value;
}

const NEEDS_QUOTES = /[",\r\n]/;


function csvCells(cells: readonly string[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += ',';
    line += csvCell(cells[i] ?? '');
  }
  return line;
}

function csvLine(cells: readonly string[]): string {
  return `${csvCells(cells)}\r\n`;
}

/** Pads to the header's width; extra non-empty cells are kept in the last column so no input is lost. */
function fitRow(cells: readonly string[], width: number): { cells: string[]; overflow: boolean } {
  if (cells.length === width) return { cells: cells as string[], overflow: false };
  if (cells.length < width) {
    const out = cells.slice();
    while (out.length < width) out.push('');
    return { cells: out, overflow: false };
  }
  const extra = cells.slice(width);
  if (extra.every((c) => c.trim() === '')) return { cells: cells.slice(0, width), overflow: false };
  const out = cells.slice(0, width);
  const lastIndex = Math.max(0, width - 1);
  out[lastIndex] = [out[lastIndex] ?? '', ...extra].join(',');
  return { cells: out, overflow: true };
}

/** Output buffer size: one fs.write per MiB of result. */
const SINK_BYTES = 1 << 20;
/** Output bytes a file stream may hold before the engine waits for it: writes overlap the work, memory stays flat. */
const SINK_HIGH_WATER = 4 * SINK_BYTES;

/**
 * A result file written from a byte buffer: quote-free ASCII lines are copied into it byte by byte while they are
 * scanned and verdict tails are pre-encoded bytes, so rows cost no string building and no encoding pass; a full
 * buffer goes to the stream as it is (the next rows get a fresh one).
 */
class ByteSink {
  buf: Buffer = Buffer.allocUnsafeSlow(SINK_BYTES);
  pos = 0;
  /** Called before a buffer is handed to the stream: the engine copies out rows it still refers to by offset. */
  beforeSwap: (() => void) | null = null;
  private error: Error | null = null;

  constructor(readonly stream: WriteStream) {
    stream.on('error', (e) => {
      this.error ??= e;
    });
  }

  /**
   * Makes room for `n` bytes after `pos` plus the `pending` bytes already written past `pos` (a line copied while
   * it was scanned, not yet committed), which move along to the fresh buffer.
   */
  room(n: number, pending = 0): void {
    if (this.buf.length - this.pos >= n + pending) return;
    this.beforeSwap?.();
    const old = this.buf;
    const fresh = Buffer.allocUnsafeSlow(Math.max(SINK_BYTES, n + pending));
    if (pending > 0) old.copy(fresh, 0, this.pos, this.pos + pending);
    if (this.pos > 0 && this.error === null) this.stream.write(old.subarray(0, this.pos));
    this.buf = fresh;
    this.pos = 0;
  }

  bytes(b: Uint8Array): void {
    if (this.buf.length - this.pos < b.length) this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  text(s: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
    if (this.buf.length - this.pos < s.length * 3) this.room(s.length * 3);
    this.pos += this.buf.write(s, this.pos);
  }

  /** Called between input chunks: the input is not read on while the file stream is over its high-water mark. */
  async flush(signal: AbortSignal | undefined): Promise<void> {
    if (this.error) throw this.error;
    if (this.stream.writableNeedDrain) await once(this.stream, 'drain', signal ? { signal } : {});
  }

  async close(): Promise<void> {
    if (this.pos > 0 && this.error === null) this.stream.write(this.buf.subarray(0, this.pos));
    this.pos = 0;
    this.stream.end();
    await finished(this.stream);
    if (this.error) throw this.error;
  }
}

/** A row outcome rendered once: its counters and the result columns appended to the input line, as UTF-8. */
interface Verdict {
  valid: boolean;
  /** The reason codes as indexes into REASON_CODES, counted per row without a keyed property update. */
  ids: readonly number[];
  tail: Uint8Array;
}

/** Every reason code seen so far, in order of first sight (a handful: row errors and the checks' codes). */
const REASON_CODES: string[] = [];
const REASON_IDS = new Map<string, number>();

function reasonIds(codes: readonly string[]): number[] {
  return codes.map((code) => {
    let id = REASON_IDS.get(code);
    if (id === undefined) {
      id = REASON_CODES.push(code) - 1;
      REASON_IDS.set(code, id);
    }
    return id;
  });
}

function renderText(o: RowOutcome): string {
  const p = o.parts;
  // The parts come from parseBic, which admits only A-Z and 0-9: nothing to quote or neutralise.
  const parts = p ? `${p.institutionCode ?? ''},${p.countryCode ?? ''},${p.locationCode ?? ''},${p.branchCode ?? ''}` : ',,,';
  return `,${o.valid ? 'true' : 'false'},${csvCell(o.reasons.join('; '))},${parts},${csvCell(o.bankName ?? '')}\r\n`;
}

function render(o: RowOutcome): Verdict {
  return { valid: o.valid, ids: reasonIds(o.codes), tail: Buffer.from(renderText(o), 'utf8') };
}

const CSV_ERROR_VERDICTS: Record<CsvRowError, Verdict> = {
  STRAY_QUOTE: render(invalid('STRAY_QUOTE', CSV_ERROR_MESSAGES.STRAY_QUOTE)),
  UNCLOSED_QUOTE: render(invalid('UNCLOSED_QUOTE', CSV_ERROR_MESSAGES.UNCLOSED_QUOTE)),
  ROW_TOO_LONG: render(invalid('ROW_TOO_LONG', CSV_ERROR_MESSAGES.ROW_TOO_LONG)),
};

/** A cell that csvText would neutralise (= + - @ TAB CR first): checked by char code, no regex per row. */
function startsFormula(cells: readonly string[]): boolean {
  for (let i = 0; i < cells.length; i++) {
    const c = (cells[i] as string).charCodeAt(0);
    if (c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13) return true;
  }
  return false;
}

function joinedKey(cells: readonly string[], m: ColumnMapping): string {
  return `${cellAt(cells, m.type)}\u0001${cellAt(cells, m.bic)}\u0001${cellAt(cells, m.routing)}\u0001${cellAt(cells, m.fromBic)}\u0001${cellAt(cells, m.toBic)}\u0001${cellAt(cells, m.currency)}`;
}

/** A slice keeps the whole input chunk it was cut from alive; a cached key is a copy of its own. */
function ownCopy(s: string): string {
  return s.length > 12 ? ` ${s}`.slice(1) : s;
}

const VERDICT_CACHE_ENTRIES = 16_384;

/**
 * Verdicts of rows that take the record path, by their joined identifier cells. Two generations: when the young
 * map is full it becomes the old one, and an old hit moves back to young, so files with many one-off identifiers
 * keep their frequent ones (clearing a single map would drop them all).
 */
class VerdictCache {
  private young = new Map<string, Verdict>();
  private old = new Map<string, Verdict>();

  get(key: string): Verdict | undefined {
    const v = this.young.get(key);
    if (v !== undefined) return v;
    const o = this.old.get(key);
    if (o !== undefined) this.set(key, o);
    return o;
  }

  set(key: string, v: Verdict): void {
    if (this.young.size >= VERDICT_CACHE_ENTRIES) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(ownCopy(key), v);
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 16_777_619;
const SPAN_CACHE_SLOTS = 1 << 15;

/**
 * Verdicts of directly scanned ASCII lines by the bytes of their mapped columns (as copied into the output
 * buffer), in a direct-mapped table: a hit is confirmed by comparing those bytes in place, so a repeated row costs
 * no allocation. A one-off identifier overwrites nothing; frequent ones come straight back.
 */
class SpanCache {
  /**
   * Per slot, side by side so that a lookup touches one cache line: the hash of the cached key, and the hash of
   * the last miss in the slot (a verdict is kept the second time its key is missed).
   */
  private readonly hashes = new Int32Array(SPAN_CACHE_SLOTS * 2);
  private readonly keys: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(SPAN_CACHE_SLOTS).fill(undefined);
  private readonly verdicts: (Verdict | undefined)[] = new Array<Verdict | undefined>(SPAN_CACHE_SLOTS).fill(undefined);

  get(hash: number, b: Uint8Array, start: number, end: number): Verdict | undefined {
    const slot = hash & (SPAN_CACHE_SLOTS - 1);
    if (this.hashes[slot * 2] !== hash) return undefined;
    const k = this.keys[slot];
    if (k === undefined || k.length !== end - start) return undefined;
    for (let i = 0; i < k.length; i++) if (k[i] !== b[start + i]) return undefined;
    return this.verdicts[slot];
  }

  /**
   * True the second time a key's hash is missed: a one-off identifier's verdict is then never kept (nor copied
   * into a verdict of its own), and a quarter of the benchmark file's rows are one-offs.
   */
  admit(hash: number): boolean {
    const i = (hash & (SPAN_CACHE_SLOTS - 1)) * 2 + 1;
    if (this.hashes[i] === hash) return true;
    this.hashes[i] = hash;
    return false;
  }

  put(hash: number, b: Uint8Array, start: number, end: number, verdict: Verdict): void {
    const slot = hash & (SPAN_CACHE_SLOTS - 1);
    this.hashes[slot * 2] = hash;
    this.keys[slot] = new Uint8Array(b.subarray(start, end));
    this.verdicts[slot] = verdict;
  }

  clear(): void {
    this.hashes.fill(0);
    this.keys.fill(undefined);
    this.verdicts.fill(undefined);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Direct evaluation: the common cache misses written straight into the output

/** Outcome kinds of `BatchEngine.direct`, indexes into DIRECT_CODES; NO_DIRECT sends the row to evaluateRow. */
const NO_DIRECT = -1;
const DIRECT_IDS: readonly (readonly number[])[] = [[], reasonIds(['TEST_NUMBER_NOT_FOUND']), reasonIds(['NOT_IN_DIRECTORY'])];
const SANDBOX_MISS = ' is not in the sandbox test data. See GET /api/v1/sandbox/fixtures.';
/** Bank names longer than this (in UTF-16 units) take the evaluateRow path, so a direct tail has a known bound. */
const DIRECT_BANK_NAME_MAX = 256;

const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');
const B_VALID = ascii(',true,,');
const B_VALID_NO_PARTS = ascii(',true,,,,,,');
const B_INVALID = ascii(',false,');
const B_NO_PARTS_NO_BANK = ascii(',,,,,\r\n');
const B_CRLF = ascii('\r\n');
const B_AND = ascii(' and ');
const B_XXX = ascii('XXX');

/**
 * The texts of a "not in the directory" reason around its identifier, rendered as csvCell renders the whole
 * reason (the identifier is letters and digits, so it never changes the quoting); null when that cannot be
 * shown, and such rows take the evaluateRow path.
 */
interface MissPieces {
  bicHead: Buffer;
  abaHead: Buffer;
  tail: Buffer;
}

function missPieces(suffix: string): MissPieces | null {
  const plain = `The BIC A${suffix}`;
  const cell = csvCell(plain);
  if (cell === plain) return { bicHead: ascii('The BIC '), abaHead: ascii('The routing number '), tail: Buffer.from(suffix, 'utf8') };
  const esc = suffix.replaceAll('"', '""');
  if (cell !== `"The BIC A${esc}"` || csvCell(`The routing number 0${suffix}`) !== `"The routing number 0${esc}"`) return null;
  return { bicHead: ascii('"The BIC '), abaHead: ascii('"The routing number '), tail: Buffer.from(`${esc}"`, 'utf8') };
}

function copyChars(src: Buffer, a: number, b: number, ob: Buffer, o: number): number {
  for (let k = a; k < b; k++) ob[o++] = (src[k] as number);
  return o;
}

/** ISO 9362 as parseBic has it, for an upper-case cell with nothing to trim (anything else: evaluateRow). */
function plainBic(src: Buffer, a: number, b: number): boolean {
  const n = b - a;
  if (n !== 8 && n !== 11) return false;
  for (let k = a; k < a + 6; k++) {
    const c = (src[k] as number);
    if (c < 65 || c > 90) return false;
  }
  for (let k = a + 6; k < b; k++) {
    const c = (src[k] as number);
    if (!((c >= 65 && c <= 90) || (c >= 48 && c <= 57))) return false;
  }
  if (n === 11 && isReservedBranchStart(src[a + 8] as number, src[a + 9] as number, src[a + 10] as number)) return false;
  return isBicCountryCodes((src[a + 4] as number), (src[a + 5] as number));
}

/** TYPE_VALUES.get of a cell, without cutting the usual three values out of the line first. */
function typeAt(src: Buffer, a: number, b: number): 'bic' | 'routing' | 'route' | undefined {
  const n = b - a;
  if (n === 3 && src[a] === 98 && src[a + 1] === 105 && src[a + 2] === 99) return 'bic';
  if ((n === 5 || n === 7) && src[a] === 114 && src[a + 1] === 111 && src[a + 2] === 117 && src[a + 3] === 116) {
    if (n === 5 && src[a + 4] === 101) return 'route';
    if (n === 7 && src[a + 4] === 105 && src[a + 5] === 110 && src[a + 6] === 103) return 'routing';
  }
  return TYPE_VALUES.get(src.toString('utf8', a, b));
}

const CELL_EMPTY = 0;
const CELL_CLEAN = 1;
/** Blank, or with something trim() would remove at an edge: evaluateRow decides. */
const CELL_DIRTY = 2;

// ---------------------------------------------------------------------------------------------------------------
// Engine

const PROGRESS_INTERVAL_MS = 200;
const READ_CHUNK_BYTES = 256 * 1024;
/** Longer lines take the record path (they are not routing records, and a direct line must fit a buffer). */
const MAX_DIRECT_LINE = 64 * 1024;

/**
 * The per-row work of one run. Most lines are answered by `line` straight from the input bytes: one pass copies
 * the line into the result buffer while it finds the cells, any cell a spreadsheet would read as a formula and
 * anything else the record path would write differently; the verdict comes from a table keyed by the mapped
 * columns' bytes, or for a new identifier from `direct`, which writes the result columns in place. Anything
 * unusual returns false and goes through `record`, which parses cells and renders them (the reference behaviour,
 * held to by csv-batch-direct.test.ts).
 */
class BatchEngine {
  readonly summary: BatchSummary = { rows: 0, valid: 0, invalid: 0, reasons: {}, durationMs: 0 };
  private layout: Layout | null = null;
  private width = 0;
  private first = -1;
  private last = -1;
  private starts = new Int32Array(1);
  private ends = new Int32Array(1);
  private readonly verdicts = new VerdictCache();
  private readonly spans = new SpanCache();
  private readonly dir: RoutingDirectory | null;
  private readonly miss: MissPieces | null;
  /** Bytes kept free after a line for its tail, enough for any direct tail. */
  private readonly tailRoom: number;
  private directEnd = 0;

  constructor(
    private readonly ctx: RoutingContext,
    private readonly override: Partial<ColumnMapping> | undefined,
    private readonly out: ByteSink,
    private readonly bad: ByteSink | null,
    private readonly header?: boolean,
  ) {
    this.dir = directoryOf(ctx);
    this.miss =
      this.dir === null ? null : missPieces(ctx.sandbox ? SANDBOX_MISS : ` is not in the routing directory "${this.dir.name}".`);
    // A bank name may double in csvCell and take 3 bytes per unit.
    this.tailRoom = 2048 + (this.miss ? this.miss.tail.length : 0) + DIRECT_BANK_NAME_MAX * 6;
  }

  /** Rows by reason id, and the ids in order of first sight (the order of `summary.reasons`). */
  private readonly counts: number[] = [];
  private readonly seenIds: number[] = [];
  /** Invalid rows not yet copied to the invalid-only file: consecutive rows of the output buffer, copied in one go. */
  private runStart = -1;
  private runEnd = -1;

  /** After the last row: the header of a file that had no record, pending invalid rows, the reason counts. */
  finish(): void {
    if (this.layout === null) this.writeHeader([]);
    this.flushRun();
    for (const id of this.seenIds) this.summary.reasons[REASON_CODES[id] as string] = this.counts[id] as number;
  }

  flushInvalidRows(): void {
    this.flushRun();
  }

  private flushRun(): void {
    const bad = this.bad;
    if (this.runStart < 0 || bad === null) return;
    const n = this.runEnd - this.runStart;
    if (bad.buf.length - bad.pos < n) bad.room(n);
    bad.buf.set(this.out.buf.subarray(this.runStart, this.runEnd), bad.pos);
    bad.pos += n;
    this.runStart = -1;
  }

  private writeHeader(headers: readonly string[]): void {
    const line = csvLine([...headers, ...RESULT_COLUMNS]);
    this.out.text(line);
    this.bad?.text(line);
  }

  private setMapping(l: Layout): void {
    this.layout = l;
    this.width = l.headers.length;
    this.starts = new Int32Array(this.width + 1);
    this.ends = new Int32Array(this.width + 1);
    let first = -1;
    let last = -1;
    for (const key of MAPPING_KEYS) {
      const i = l.mapping[key];
      if (i === null) continue;
      if (first === -1 || i < first) first = i;
      if (i > last) last = i;
    }
    this.first = first;
    this.last = last;
    this.verdicts.clear();
    this.spans.clear();
  }

  private tally(valid: boolean, ids: readonly number[]): void {
    const s = this.summary;
    s.rows++;
    if (valid) s.valid++;
    else s.invalid++;
    const counts = this.counts;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number;
      const c = counts[id];
      if (c === undefined || c === 0) {
        while (counts.length <= id) counts.push(0);
        this.seenIds.push(id);
        counts[id] = 1;
      } else counts[id] = c + 1;
    }
  }

  /** The reference path: a parsed record, its cells rendered again unless the line can be copied as it was. */
  record(record: CsvRecord): void {
    const rc = record.cells;
    if (record.error === null && isBlankRecord(rc)) return;
    let l = this.layout;
    if (l === null) {
      l = detectLayout(rc, this.override, this.header);
      this.setMapping(l);
      this.writeHeader(l.headers);
      if (l.hasHeader) return;
    }
    if (l.sniffNextRow) {
      l.mapping = { ...mappingFromData(rc), ...definedOnly(this.override) };
      l.sniffNextRow = false;
      this.setMapping(l);
    }
    const width = l.headers.length;
    let cells = rc;
    let overflow = false;
    if (rc.length !== width) {
      const fitted = fitRow(rc, width);
      cells = fitted.cells;
      overflow = fitted.overflow;
    }
    let verdict: Verdict;
    if (record.error !== null) verdict = CSV_ERROR_VERDICTS[record.error];
    else if (overflow) {
      verdict = render(invalid('COLUMN_COUNT_MISMATCH', `The row has ${rc.length} cells but the file has ${width} columns.`));
    } else {
      // The outcome depends only on the mapped cells (the directory is fixed for the run), and batch files repeat
      // the same banks over and over, so identical identifier cells are checked once.
      const key = joinedKey(cells, l.mapping);
      const hit = this.verdicts.get(key);
      if (hit !== undefined) verdict = hit;
      else {
        verdict = render(evaluateRow(cells, l.mapping, this.ctx));
        this.verdicts.set(key, verdict);
      }
    }
    // A quote-free line that no formula neutralisation touches is copied as is.
    const plain = record.raw !== null && cells === rc && !startsFormula(cells);
    const text = plain ? (record.raw as string) : csvCells(cells);
    this.tally(verdict.valid, verdict.ids);
    this.out.text(text);
    this.out.bytes(verdict.tail);
    if (!verdict.valid && this.bad !== null) {
      this.flushRun();
      this.bad.text(text);
      this.bad.bytes(verdict.tail);
    }
  }

  /** A line of the string parser (the first chunk, or after a record spanning lines): its UTF-8 bytes to `line`. */
  textLine(text: string, s: number, e: number): boolean {
    const len = e - s;
    if (len > MAX_DIRECT_LINE || this.layout === null) return false;
    if (this.scratch.length < len * 3) this.scratch = Buffer.allocUnsafe(len * 3);
    return this.line(this.scratch, 0, this.scratch.write(text.slice(s, e)));
  }

  private scratch = Buffer.allocUnsafe(4096);

  /**
   * The UTF-8 line `src[s, e)` (no CR, no LF) answered directly, or false. On a line with quotes only a quoted
   * cell outside the mapped columns whose text is exactly what csvCell would write for its value is accepted, so
   * that copying the line gives the bytes the record path would render. A line that is not valid UTF-8 is left to
   * the record path, which writes what the decoder made of it.
   */
  line(src: Buffer, s: number, e: number): boolean {
    const l = this.layout;
    if (l === null || l.sniffNextRow) return false;
    const len = e - s;
    if (len > MAX_DIRECT_LINE) return false;
    const out = this.out;
    if (out.buf.length - out.pos < len + this.tailRoom) out.room(len + this.tailRoom);
    let ob = out.buf;
    let o0 = out.pos;
    const d = o0 - s;
    const lineBytes = len;
    const width = this.width;
    const first = this.first;
    const last = this.last;
    const starts = this.starts;
    const ends = this.ends;
    let col = 0;
    let cellStart = true;
    let data = false;
    let quoted = false;
    let asciiOnly = true;
    // An edge space or a CR: copied as is on a quote-free line, but the record path re-renders a line with quotes.
    let fussy = false;
    starts[0] = s;
    let i = s;
    while (i < e) {
      const c = (src[i] as number);
      if (cellStart) {
        cellStart = false;
        if (c === 34) {
          if (col >= first && col <= last) return false;
          const j = this.quotedCell(src, i, e, ob, d);
          if (j < 0) return false;
          quoted = true;
          if (this.quotedData) data = true;
          if (this.quotedNonAscii) asciiOnly = false;
          i = j;
          continue;
        }
        if (c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13) return false;
        if (c === 32) fussy = true;
      }
      ob[d + i] = c;
      i++;
      // Digits, letters and most punctuation: nothing to decide.
      if (c > 47 && c < 127) {
        data = true;
        continue;
      }
      if (c === 44) {
        const p = (src[i - 2] as number);
        if (p === 32 || p === 9) fussy = true;
        ends[col] = i - 1;
        if (++col >= width) return false;
        starts[col] = i;
        cellStart = true;
      } else if (c === 34) return false; // inside a cell: a stray quote
      else if (c === 13) fussy = true;
      else if (c > 127) asciiOnly = false;
      else if (c > 32 && c < 127) data = true;
    }
    ends[col] = e;
    if (!data || col + 1 !== width) return false;
    if (len > 0) {
      const p = (src[e - 1] as number);
      if (p === 32 || p === 9) fussy = true;
    }
    if (quoted && fussy) return false;
    if (!asciiOnly && !isUtf8(src.subarray(s, e))) return false;

    let ks = e;
    let ke = e;
    if (first >= 0 && first < width) {
      ks = starts[first] as number;
      ke = last < width ? (ends[last] as number) : e;
    }
    // The mapped columns' bytes as copied: equal bytes decode to equal cells, so they key the verdict.
    const ka = d + ks;
    const kb = d + ke;
    let h = FNV_OFFSET;
    for (let k = ka; k < kb; k++) h = Math.imul(h ^ (ob[k] as number), FNV_PRIME);
    let verdict = this.spans.get(h, ob, ka, kb);

    const t0 = o0 + lineBytes;
    let valid: boolean;
    let ids: readonly number[];
    let end: number;
    if (verdict === undefined) {
      const kind = this.direct(src, l.mapping, ob, t0);
      if (kind !== NO_DIRECT) {
        valid = kind === 0;
        ids = DIRECT_IDS[kind] as readonly number[];
        end = this.directEnd;
        if (this.spans.admit(h)) this.spans.put(h, ob, ka, kb, { valid, ids, tail: new Uint8Array(ob.subarray(t0, end)) });
      } else {
        verdict = render(evaluateRow(this.cellsOf(src), l.mapping, this.ctx));
        if (this.spans.admit(h)) this.spans.put(h, ob, ka, kb, verdict);
      }
    }
    if (verdict !== undefined) {
      const tail = verdict.tail;
      if (ob.length - t0 < tail.length) {
        out.room(tail.length, lineBytes);
        ob = out.buf;
        o0 = out.pos;
      }
      ob.set(tail, o0 + lineBytes);
      end = o0 + lineBytes + tail.length;
      valid = verdict.valid;
      ids = verdict.ids;
    }
    out.pos = end!;
    this.tally(valid!, ids!);
    if (!valid! && this.bad !== null) {
      if (this.runStart >= 0 && this.runEnd === o0) this.runEnd = end!;
      else {
        this.flushRun();
        this.runStart = o0;
        this.runEnd = end!;
      }
    }
    return true;
  }

  private quotedNonAscii = false;
  private quotedData = false;

  /**
   * A quoted cell from its opening quote at `q`: copied, and its end (after the closing quote) returned when the
   * cell closes on this line, is followed by a comma or the line end, and reads back exactly as csvCell writes its
   * value (non-empty, needing the quotes, nothing to neutralise, no CR); -1 otherwise.
   */
  private quotedCell(src: Buffer, q: number, e: number, ob: Buffer, d: number): number {
    let nonAscii = false;
    let needsQuotes = false;
    let data = false;
    ob[d + q] = 34;
    const c0 = (src[q + 1] as number);
    if (c0 === 61 || c0 === 43 || c0 === 45 || c0 === 64 || c0 === 9 || c0 === 13) return -1;
    if (c0 === 32) needsQuotes = true;
    let j = q + 1;
    for (;;) {
      if (j >= e) return -1;
      const c = (src[j] as number);
      if (c === 34) {
        if (j + 1 < e && (src[j + 1] as number) === 34) {
          ob[d + j] = 34;
          ob[d + j + 1] = 34;
          needsQuotes = true;
          data = true;
          j += 2;
          continue;
        }
        break;
      }
      if (c === 13) return -1;
      if (c === 44) needsQuotes = true;
      if (c > 127) nonAscii = true;
      else if (c > 32 && c < 127) data = true;
      ob[d + j] = c;
      j++;
    }
    // j is the closing quote.
    if (j === q + 1) return -1;
    const cl = (src[j - 1] as number);
    if (cl === 32 || cl === 9) needsQuotes = true;
    if (!needsQuotes) return -1;
    if (j + 1 < e && (src[j + 1] as number) !== 44) return -1;
    ob[d + j] = 34;
    this.quotedNonAscii = nonAscii;
    this.quotedData = data;
    return j + 1;
  }

  /** The cells evaluateRow reads (up to the last mapped column), cut from a line scanned by `line`. */
  private cellsOf(src: Buffer): string[] {
    const n = Math.min(this.width, this.last + 1);
    const cells = new Array<string>(n);
    for (let k = 0; k < n; k++) cells[k] = src.toString('utf8', this.starts[k], this.ends[k]);
    return cells;
  }

  private cellKind(src: Buffer, i: number | null): number {
    if (i === null || i >= this.width) return CELL_EMPTY;
    const a = this.starts[i] as number;
    const b = this.ends[i] as number;
    if (a === b) return CELL_EMPTY;
    const c1 = (src[a] as number);
    const c2 = (src[b - 1] as number);
    return c1 > 32 && c1 < 127 && c2 > 32 && c2 < 127 ? CELL_CLEAN : CELL_DIRTY;
  }

  /**
   * evaluateRow + render for the common new identifiers of a scanned line, written at `o` with no intermediate
   * objects or strings: a well-formed upper-case BIC or a valid routing number, found in the directory or not,
   * and a sandbox route naming a bank the fixtures do not hold. Returns the outcome kind with the tail's end in
   * `directEnd`, or NO_DIRECT for everything else. Held to evaluateRow by csv-batch-direct.test.ts.
   */
  private direct(src: Buffer, m: ColumnMapping, ob: Buffer, o: number): number {
    const starts = this.starts;
    const ends = this.ends;
    let type: 'bic' | 'routing' | 'route' | undefined;
    const tk = this.cellKind(src, m.type);
    if (tk === CELL_DIRTY) return NO_DIRECT;
    if (tk === CELL_CLEAN) {
      type = typeAt(src, starts[m.type as number] as number, ends[m.type as number] as number);
      if (type === undefined) return NO_DIRECT;
    } else {
      const fk = this.cellKind(src, m.fromBic);
      const tok = this.cellKind(src, m.toBic);
      if (fk === CELL_DIRTY || tok === CELL_DIRTY) return NO_DIRECT;
      if (fk === CELL_CLEAN || tok === CELL_CLEAN) type = 'route';
      else {
        const bk = this.cellKind(src, m.bic);
        const rk = this.cellKind(src, m.routing);
        if (bk === CELL_DIRTY || rk === CELL_DIRTY) return NO_DIRECT;
        if (m.bic !== null && m.bic === m.routing) {
          if (bk !== CELL_CLEAN) return NO_DIRECT;
          type = 'routing';
          for (let k = starts[m.bic] as number; k < (ends[m.bic] as number); k++) {
            const c = (src[k] as number);
            if (c > 127) return NO_DIRECT;
            if (!((c >= 48 && c <= 57) || c === 45 || c === 32 || (c >= 9 && c <= 13))) {
              type = 'bic';
              break;
            }
          }
        } else if (bk === CELL_CLEAN && rk === CELL_CLEAN) return NO_DIRECT;
        else if (bk === CELL_CLEAN) type = 'bic';
        else if (rk === CELL_CLEAN) type = 'routing';
        else return NO_DIRECT;
      }
    }

    const dir = this.dir;
    if (type === 'bic') {
      if (this.cellKind(src, m.bic) !== CELL_CLEAN) return NO_DIRECT;
      const a = starts[m.bic as number] as number;
      const b = ends[m.bic as number] as number;
      if (!plainBic(src, a, b)) return NO_DIRECT;
      const entry = dir === null ? null : dir.findBic(src.toString('latin1', a, b));
      let kind = 0;
      if (dir === null || entry !== null) {
        if (entry !== null && entry.bankName.length > DIRECT_BANK_NAME_MAX) return NO_DIRECT;
        ob.set(B_VALID, o);
        o += B_VALID.length;
      } else {
        const miss = this.miss;
        if (miss === null) return NO_DIRECT;
        ob.set(B_INVALID, o);
        o += B_INVALID.length;
        ob.set(miss.bicHead, o);
        o = copyChars(src, a, b, ob, o + miss.bicHead.length);
        ob.set(miss.tail, o);
        o += miss.tail.length;
        ob[o++] = 44;
        kind = this.ctx.sandbox ? 1 : 2;
      }
      o = copyChars(src, a, a + 4, ob, o);
      ob[o++] = 44;
      o = copyChars(src, a + 4, a + 6, ob, o);
      ob[o++] = 44;
      o = copyChars(src, a + 6, a + 8, ob, o);
      ob[o++] = 44;
      if (b - a === 11) o = copyChars(src, a + 8, b, ob, o);
      else {
        ob.set(B_XXX, o);
        o += 3;
      }
      ob[o++] = 44;
      if (entry !== null) o += ob.write(csvCell(entry.bankName), o);
      ob.set(B_CRLF, o);
      this.directEnd = o + 2;
      return kind;
    }

    if (type === 'routing') {
      if (this.cellKind(src, m.routing) !== CELL_CLEAN) return NO_DIRECT;
      const a = starts[m.routing as number] as number;
      const b = ends[m.routing as number] as number;
      if (b - a !== 9) return NO_DIRECT;
      const v = src.toString('latin1', a, b);
      if (!isNineDigits(v) || !abaChecksumValid(v)) return NO_DIRECT;
      if (federalReserveDistrict(v) === null && !v.startsWith('00') && !v.startsWith('80')) return NO_DIRECT;
      const entry = dir === null ? null : dir.findAba(v);
      if (dir === null || entry !== null) {
        if (entry !== null && entry.bankName.length > DIRECT_BANK_NAME_MAX) return NO_DIRECT;
        ob.set(B_VALID_NO_PARTS, o);
        o += B_VALID_NO_PARTS.length;
        if (entry !== null) o += ob.write(csvCell(entry.bankName), o);
        ob.set(B_CRLF, o);
        this.directEnd = o + 2;
        return 0;
      }
      const miss = this.miss;
      if (miss === null) return NO_DIRECT;
      ob.set(B_INVALID, o);
      o += B_INVALID.length;
      ob.set(miss.abaHead, o);
      o = copyChars(src, a, b, ob, o + miss.abaHead.length);
      ob.set(miss.tail, o);
      o += miss.tail.length;
      ob.set(B_NO_PARTS_NO_BANK, o);
      this.directEnd = o + B_NO_PARTS_NO_BANK.length;
      return this.ctx.sandbox ? 1 : 2;
    }

    // A route: only the sandbox answer for a bank the fixtures do not hold; paths are searched by evaluateRow.
    if (!this.ctx.sandbox || dir === null || this.miss === null) return NO_DIRECT;
    if (this.cellKind(src, m.fromBic) !== CELL_CLEAN || this.cellKind(src, m.toBic) !== CELL_CLEAN) return NO_DIRECT;
    if (this.cellKind(src, m.currency) !== CELL_CLEAN) return NO_DIRECT;
    const fa = starts[m.fromBic as number] as number;
    const fb = ends[m.fromBic as number] as number;
    const ta = starts[m.toBic as number] as number;
    const tb = ends[m.toBic as number] as number;
    const ca = starts[m.currency as number] as number;
    if ((ends[m.currency as number] as number) - ca !== 3) return NO_DIRECT;
    for (let k = ca; k < ca + 3; k++) {
      const c = (src[k] as number);
      if (c < 65 || c > 90) return NO_DIRECT;
    }
    if (!plainBic(src, fa, fb) || !plainBic(src, ta, tb)) return NO_DIRECT;
    const fromMissing = dir.findBic(src.toString('latin1', fa, fb)) === null;
    const toMissing = dir.findBic(src.toString('latin1', ta, tb)) === null;
    if (!fromMissing && !toMissing) return NO_DIRECT;
    ob.set(B_INVALID, o);
    o += B_INVALID.length;
    ob.set(this.miss.bicHead, o);
    o += this.miss.bicHead.length;
    if (fromMissing) o = copyChars(src, fa, fb, ob, o);
    if (fromMissing && toMissing) {
      ob.set(B_AND, o);
      o += B_AND.length;
    }
    if (toMissing) o = copyChars(src, ta, tb, ob, o);
    ob.set(this.miss.tail, o);
    o += this.miss.tail.length;
    ob.set(B_NO_PARTS_NO_BANK, o);
    this.directEnd = o + B_NO_PARTS_NO_BANK.length;
    return 1;
  }
}

export async function validateCsvFile(opts: ValidateCsvOptions): Promise<BatchSummary> {
  const started = performance.now();
  const { signal } = opts;
  signal?.throwIfAborted();
  const totalBytes = (await stat(opts.input)).size;
  const ctx: RoutingContext = { directory: opts.directory, sandbox: opts.sandbox };

  // Bytes, not text: most lines are answered from the bytes themselves (see BatchEngine.line); the others are
  // decoded and go through the record parser, whose rules stay the reference for anything unusual.
  const input = createReadStream(opts.input, { highWaterMark: READ_CHUNK_BYTES });
  if (signal) addAbortSignal(signal, input);
  const out = new ByteSink(createWriteStream(opts.output, { highWaterMark: SINK_HIGH_WATER }));
  const invalidOut = opts.invalidOnlyOutput
    ? new ByteSink(createWriteStream(opts.invalidOnlyOutput, { highWaterMark: SINK_HIGH_WATER }))
    : null;
  const engine = new BatchEngine(ctx, opts.mapping, out, invalidOut, opts.header);
  out.beforeSwap = () => engine.flushInvalidRows();
  const summary = engine.summary;
  const directLines = opts.directLines !== false;
  const textLine = directLines ? (text: string, s: number, e: number): boolean => engine.textLine(text, s, e) : null;
  const parser = new CsvRecordParser((r) => engine.record(r), undefined, textLine, textLine);
  const decoder = new StringDecoder('utf8');

  /**
   * Byte mode: complete lines go to `engine.line`, and a line it declines is decoded and pushed to the parser on
   * its own. Text mode (the first chunk, with the BOM and the header; a quoted record spanning lines; an over-long
   * line): the chunk's complete lines are decoded and pushed together, and byte mode resumes once the parser is
   * between records. Every decoded piece ends with a line feed, so the decoder never holds half a character
   * when byte mode resumes, and pieces decode exactly as the whole file would.
   */
  let byteMode = false;
  let pending: Buffer | null = null;
  /** The last decoded piece did not end with a line feed: the decoder may hold part of a character. */
  let decoderMidLine = false;
  const pushText = (piece: Buffer): void => {
    if (piece.length === 0) return;
    decoderMidLine = piece[piece.length - 1] !== 10;
    parser.push(decoder.write(piece));
  };
  const feed = (chunk: Buffer): void => {
    const buf = pending === null ? chunk : Buffer.concat([pending, chunk]);
    pending = null;
    const n = buf.length;
    let pos = 0;
    if (byteMode) {
      for (;;) {
        const nl = buf.indexOf(10, pos);
        if (nl === -1) break;
        const e = nl > pos && buf[nl - 1] === 13 ? nl - 1 : nl;
        if (!engine.line(buf, pos, e)) {
          // A line over the record cap (a runaway quote, say) goes with the rest of the chunk, so the parser's cap
          // sees the text it saw when it read whole chunks.
          if (nl + 1 - pos > DEFAULT_MAX_RECORD_CHARS) {
            byteMode = false;
            break;
          }
          pushText(buf.subarray(pos, nl + 1));
          if (!parser.idle) {
            byteMode = false;
            pos = nl + 1;
            break;
          }
        }
        pos = nl + 1;
      }
    }
    if (!byteMode) {
      const last = buf.lastIndexOf(10);
      if (last >= pos) {
        pushText(buf.subarray(pos, last + 1));
        pos = last + 1;
      }
      if (!directLines || !parser.idle || decoderMidLine) {
        pushText(buf.subarray(pos));
        return;
      }
      byteMode = true;
    }
    if (pos < n) {
      // An unfinished line waits for the next chunk as bytes; a long one goes to the parser, whose cap applies.
      if (n - pos > DEFAULT_MAX_RECORD_CHARS) {
        pushText(buf.subarray(pos));
        byteMode = false;
      } else pending = Buffer.from(buf.subarray(pos));
    }
  };

  let lastProgress = 0;
  const report = (final: boolean): void => {
    if (!opts.onProgress) return;
    const now = performance.now();
    if (!final && now - lastProgress < PROGRESS_INTERVAL_MS) return;
    lastProgress = now;
    const elapsed = (now - started) / 1000;
    const bytes = final ? totalBytes : input.bytesRead;
    const rate = elapsed > 0 ? bytes / elapsed : 0;
    opts.onProgress({
      rows: summary.rows,
      bytes,
      totalBytes,
      percent: totalBytes > 0 ? Math.min(100, (bytes / totalBytes) * 100) : 100,
      rowsPerSecond: elapsed > 0 ? summary.rows / elapsed : 0,
      etaSeconds: final ? 0 : rate > 0 ? (totalBytes - bytes) / rate : null,
    });
  };

  try {
    for await (const chunk of input) {
      feed(chunk as Buffer);
      await out.flush(signal);
      await invalidOut?.flush(signal);
      signal?.throwIfAborted();
      report(false);
    }
    if (pending !== null) pushText(pending);
    parser.push(decoder.end());
    parser.end();
    engine.finish();
    await out.flush(signal);
    await invalidOut?.flush(signal);
    signal?.throwIfAborted();
    await out.close();
    await invalidOut?.close();
  } catch (err) {
    input.destroy();
    // A half-written result file would look like a complete one, so it goes.
    await Promise.allSettled([discard(out.stream, opts.output), ...(invalidOut && opts.invalidOnlyOutput ? [discard(invalidOut.stream, opts.invalidOnlyOutput)] : [])]);
    throw err;
  }
  summary.durationMs = Math.round(performance.now() - started);
  report(true);
  return summary;
}


async function discard(stream: WriteStream, path: string): Promise<void> {
  stream.destroy();
  await finished(stream).catch(() => undefined);
  await unlink(path).catch(() => undefined);
}

/** First rows of a file with the detected header and column mapping, for the console's mapping step. */
export async function previewCsv(
  input: string,
  n = 10,
): Promise<{ headers: string[]; rows: string[][]; mapping: ColumnMapping; hasHeader: boolean }> {
  const records: string[][] = [];
  let layout: Layout | null = null;
  const parser = new CsvRecordParser((r) => {
    if (isBlankRecord(r.cells)) return;
    if (layout === null) {
      layout = detectLayout(r.cells, undefined);
      if (layout.hasHeader) return;
    }
    if (layout.sniffNextRow) {
      layout.mapping = mappingFromData(r.cells);
      layout.sniffNextRow = false;
    }
    if (records.length < n) records.push(r.cells);
  });
  const stream = createReadStream(input, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream) {
      parser.push(chunk as string);
      if (records.length >= n) break;
    }
    if (records.length < n) parser.end();
  } finally {
    stream.destroy();
  }
  const l = layout as Layout | null;
  return {
    headers: l?.headers ?? [],
    rows: records,
    mapping: l?.mapping ?? emptyMapping(),
    hasHeader: l?.hasHeader ?? false,
  };
}
