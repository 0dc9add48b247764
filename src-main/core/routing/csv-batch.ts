// Streaming batch-CSV validator: reads a CSV of any size, checks each row as a BIC, routing number or route, and
// writes a result CSV (plus an optional invalid-only CSV) with flat memory and backpressure on the outputs.
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { once } from 'node:events';
import { addAbortSignal } from 'node:stream';
import { finished } from 'node:stream/promises';
import { csvText } from '../../../src-shared/csv';
import { evaluateBic, evaluateRoute, evaluateRoutingNumber, type RoutingContext } from './checks';
import { CsvRecordParser, isBlankRecord, type CsvRecord, type CsvRowError } from './csv-reader';
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

function normaliseHeader(s: string): string {
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

interface Layout {
  hasHeader: boolean;
  headers: string[];
  mapping: ColumnMapping;
  /** Header row of unknown names: the columns are guessed from the first data row instead. */
  sniffNextRow: boolean;
}

function looksLikeIdentifier(cell: string): boolean {
  const v = cell.trim();
  return BIC_SHAPE.test(v) || /^\d{8,10}$/.test(v);
}

function detectLayout(first: readonly string[], override: Partial<ColumnMapping> | undefined): Layout {
  const fromHeader = mappingFromHeader(first);
  // A first row with no known column name and nothing that looks like a BIC or routing number is a header too.
  const unknownHeader = fromHeader === null && !first.some(looksLikeIdentifier);
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

/** Writes in ~64 KiB pieces as rows arrive (short-lived strings keep the GC cheap); awaits `drain` between chunks. */
class BufferedWriter {
  private buf = '';
  private error: Error | null = null;
  private needsDrain = false;

  constructor(readonly stream: WriteStream) {
    stream.on('error', (e) => {
      this.error ??= e;
    });
  }

  add(s: string): void {
    this.buf += s;
    if (this.buf.length >= WRITE_PIECE_CHARS) this.writeOut();
  }

  private writeOut(): void {
    if (this.buf.length === 0 || this.error) return;
    if (!this.stream.write(this.buf)) this.needsDrain = true;
    this.buf = '';
  }

  /** Called between input chunks: the input is not read on while the output is over its high-water mark. */
  async flush(signal: AbortSignal | undefined): Promise<void> {
    if (this.error) throw this.error;
    this.writeOut();
    if (this.needsDrain && this.stream.writableNeedDrain) await once(this.stream, 'drain', signal ? { signal } : {});
    this.needsDrain = false;
  }

  async close(): Promise<void> {
    this.writeOut();
    this.stream.end();
    await finished(this.stream);
    if (this.error) throw this.error;
  }
}

/** A row outcome rendered once: its counters and the result columns appended to the input line. */
interface Verdict {
  valid: boolean;
  codes: string[];
  tail: string;
}

function render(o: RowOutcome): Verdict {
  const p = o.parts;
  // The parts come from parseBic, which admits only A-Z and 0-9: nothing to quote or neutralise.
  const parts = p ? `${p.institutionCode ?? ''},${p.countryCode ?? ''},${p.locationCode ?? ''},${p.branchCode ?? ''}` : ',,,';
  return {
    valid: o.valid,
    codes: o.codes,
    tail: `,${o.valid ? 'true' : 'false'},${csvCell(o.reasons.join('; '))},${parts},${csvCell(o.bankName ?? '')}\r\n`,
  };
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

/** First and last mapped column; the verdict depends on nothing outside them. */
interface KeySpan {
  first: number;
  last: number;
}

const NO_SPAN: KeySpan = { first: -1, last: -1 };

function keySpan(m: ColumnMapping): KeySpan {
  let first = -1;
  let last = -1;
  for (const key of MAPPING_KEYS) {
    const i = m[key];
    if (i === null) continue;
    if (first === -1 || i < first) first = i;
    if (i > last) last = i;
  }
  return { first, last };
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
 * Verdicts of rows with quoted cells, by their joined identifier cells. Two generations: when the young map is
 * full it becomes the old one, and an old hit moves back to young, so files with many one-off identifiers keep
 * their frequent ones (clearing a single map would drop them all).
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
const SEEN_SLOTS = 1 << 16;

/**
 * Verdicts of quote-free rows by the raw text of their mapped columns, in a direct-mapped table: the hash is taken
 * while scanning the line, and a hit is confirmed by comparing the text in place, so a repeated row costs no
 * allocation. A one-off identifier overwrites a single slot; frequent ones come straight back.
 */
class SpanCache {
  private readonly keys: (string | undefined)[] = new Array<string | undefined>(SPAN_CACHE_SLOTS).fill(undefined);
  private readonly values: (Verdict | undefined)[] = new Array<Verdict | undefined>(SPAN_CACHE_SLOTS).fill(undefined);
  private readonly seen = new Int32Array(SEEN_SLOTS);

  get(hash: number, text: string, start: number, end: number): Verdict | undefined {
    const slot = hash & (SPAN_CACHE_SLOTS - 1);
    const k = this.keys[slot];
    if (k === undefined || k.length !== end - start) return undefined;
    for (let i = 0; i < k.length; i++) if (k.charCodeAt(i) !== text.charCodeAt(start + i)) return undefined;
    return this.values[slot];
  }

  /**
   * Admits a verdict the second time its hash is seen: a one-off identifier's verdict then dies young instead of
   * being copied into the old generation for nothing (a quarter of the benchmark file's rows are one-offs).
   */
  set(hash: number, text: string, start: number, end: number, v: Verdict): void {
    const seenSlot = (hash >>> 15) & (SEEN_SLOTS - 1);
    if (this.seen[seenSlot] !== hash) {
      this.seen[seenSlot] = hash;
      return;
    }
    const slot = hash & (SPAN_CACHE_SLOTS - 1);
    this.keys[slot] = ownCopy(text.slice(start, end));
    this.values[slot] = v;
  }

  clear(): void {
    this.keys.fill(undefined);
    this.values.fill(undefined);
    this.seen.fill(0);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Engine

const PROGRESS_INTERVAL_MS = 200;
const WRITE_PIECE_CHARS = 64 * 1024;
const READ_CHUNK_BYTES = 256 * 1024;

export async function validateCsvFile(opts: ValidateCsvOptions): Promise<BatchSummary> {
  const started = performance.now();
  const { signal } = opts;
  signal?.throwIfAborted();
  const totalBytes = (await stat(opts.input)).size;
  const ctx: RoutingContext = { directory: opts.directory, sandbox: opts.sandbox };

  const input = createReadStream(opts.input, { encoding: 'utf8', highWaterMark: READ_CHUNK_BYTES });
  if (signal) addAbortSignal(signal, input);
  const out = new BufferedWriter(createWriteStream(opts.output));
  const invalidOut = opts.invalidOnlyOutput ? new BufferedWriter(createWriteStream(opts.invalidOnlyOutput)) : null;

  const summary: BatchSummary = { rows: 0, valid: 0, invalid: 0, reasons: {}, durationMs: 0 };
  const verdicts = new VerdictCache();
  const plainVerdicts = new SpanCache();
  let layout: Layout | null = null;
  let span: KeySpan = NO_SPAN;

  const writeHeader = (l: Layout): void => {
    const line = csvLine([...l.headers, ...RESULT_COLUMNS]);
    out.add(line);
    invalidOut?.add(line);
  };

  const count = (verdict: Verdict, line: string): void => {
    summary.rows++;
    if (verdict.valid) summary.valid++;
    else summary.invalid++;
    const codes = verdict.codes;
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i] as string;
      summary.reasons[code] = (summary.reasons[code] ?? 0) + 1;
    }
    out.add(line);
    if (!verdict.valid) invalidOut?.add(line);
  };

  const onRecord = (record: CsvRecord): void => {
    const rc = record.cells;
    if (record.error === null && isBlankRecord(rc)) return;
    if (layout === null) {
      layout = detectLayout(rc, opts.mapping);
      span = keySpan(layout.mapping);
      writeHeader(layout);
      if (layout.hasHeader) return;
    }
    if (layout.sniffNextRow) {
      layout.mapping = { ...mappingFromData(rc), ...definedOnly(opts.mapping) };
      layout.sniffNextRow = false;
      span = keySpan(layout.mapping);
      verdicts.clear();
      plainVerdicts.clear();
    }
    const width = layout.headers.length;
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
      verdict = render(
        invalid('COLUMN_COUNT_MISMATCH', `The row has ${rc.length} cells but the file has ${width} columns.`),
      );
    } else {
      // The outcome depends only on the mapped cells (the directory is fixed for the run), and batch files repeat
      // the same banks over and over, so identical identifier cells are checked once.
      const key = joinedKey(cells, layout.mapping);
      const hit = verdicts.get(key);
      if (hit !== undefined) verdict = hit;
      else {
        verdict = render(evaluateRow(cells, layout.mapping, ctx));
        verdicts.set(key, verdict);
      }
    }
    // A quote-free line that no formula neutralisation touches is copied as is.
    const plain = record.raw !== null && cells === rc && !startsFormula(cells);
    count(verdict, (plain ? (record.raw as string) : csvCells(cells)) + verdict.tail);
  };

  /**
   * The hot path, for a quote-free line: one pass over its characters finds the column count, any cell a
   * spreadsheet would read as a formula, and a hash of the mapped columns' text, which finds the verdict without
   * building a key, a record or a cell array. Anything unusual returns false and goes through `onRecord`.
   */
  const onPlainLine = (text: string, s: number, e: number): boolean => {
    const l = layout;
    if (l === null || l.sniffNextRow) return false;
    const first = span.first;
    const last = span.last;
    let col = 0;
    let data = false;
    let cellStart = true;
    let inSpan = first === 0;
    let keyStart = first === 0 ? s : -1;
    let keyEnd = -1;
    let h = FNV_OFFSET;
    for (let i = s; i < e; i++) {
      const c = text.charCodeAt(i);
      if (cellStart) {
        if (c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13) return false;
        cellStart = false;
      }
      if (c === 44) {
        if (col === last) {
          inSpan = false;
          keyEnd = i;
        } else if (inSpan) h = Math.imul(h ^ c, FNV_PRIME);
        col++;
        if (col === first) {
          inSpan = true;
          keyStart = i + 1;
        }
        cellStart = true;
        continue;
      }
      if (c > 32 && c < 127) data = true;
      if (inSpan) h = Math.imul(h ^ c, FNV_PRIME);
    }
    // Blank lines, short or long rows: the record path has the rules (and non-ASCII blanks need trim()).
    if (!data || col + 1 !== l.headers.length) return false;
    if (keyStart === -1) keyStart = keyEnd = e;
    else if (keyEnd === -1) keyEnd = e;
    const raw = text.slice(s, e);
    let verdict = plainVerdicts.get(h, text, keyStart, keyEnd);
    if (verdict === undefined) {
      verdict = render(evaluateRow(raw.split(','), l.mapping, ctx));
      plainVerdicts.set(h, text, keyStart, keyEnd, verdict);
    }
    count(verdict, raw + verdict.tail);
    return true;
  };

  const parser = new CsvRecordParser(onRecord, undefined, onPlainLine);
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
      parser.push(chunk as string);
      await out.flush(signal);
      await invalidOut?.flush(signal);
      signal?.throwIfAborted();
      report(false);
    }
    parser.end();
    if (layout === null) writeHeader({ hasHeader: false, headers: [], mapping: emptyMapping(), sniffNextRow: false });
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
