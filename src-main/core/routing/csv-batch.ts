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


/** One CSV cell of a result file (the shared rule of src-shared/csv.ts). */
export const csvCell = csvText;

const FORMULA_AT_CELL_START = /(?:^|,)[=+\-@\t\r]/;

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
  const parts = p
    ? `${csvCell(p.institutionCode ?? '')},${csvCell(p.countryCode ?? '')},${csvCell(p.locationCode ?? '')},${csvCell(p.branchCode ?? '')}`
    : ',,,';
  return {
    valid: o.valid,
    codes: o.codes,
    tail: `,${o.valid ? 'true' : 'false'},${csvCell(o.reasons.join('; '))},${parts},${csvCell(o.bankName ?? '')}\r\n`,
  };
}

const VERDICT_CACHE_ENTRIES = 20_000;

// ---------------------------------------------------------------------------------------------------------------
// Engine

const PROGRESS_INTERVAL_MS = 200;
const WRITE_PIECE_CHARS = 64 * 1024;
const READ_CHUNK_BYTES = 64 * 1024;

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
  const verdicts = new Map<string, Verdict>();
  let layout: Layout | null = null;

  const writeHeader = (l: Layout): void => {
    const line = csvLine([...l.headers, ...RESULT_COLUMNS]);
    out.add(line);
    invalidOut?.add(line);
  };

  const onRecord = (record: CsvRecord): void => {
    if (record.error === null && isBlankRecord(record.cells)) return;
    if (layout === null) {
      layout = detectLayout(record.cells, opts.mapping);
      writeHeader(layout);
      if (layout.hasHeader) return;
    }
    if (layout.sniffNextRow) {
      layout.mapping = { ...mappingFromData(record.cells), ...definedOnly(opts.mapping) };
      layout.sniffNextRow = false;
    }
    const { cells, overflow } = fitRow(record.cells, layout.headers.length);
    let verdict: Verdict;
    if (record.error !== null) verdict = render(invalid(record.error, CSV_ERROR_MESSAGES[record.error]));
    else if (overflow) {
      verdict = render(
        invalid('COLUMN_COUNT_MISMATCH', `The row has ${record.cells.length} cells but the file has ${layout.headers.length} columns.`),
      );
    } else {
      // The outcome depends only on these cells (the directory is fixed for the run), and batch files repeat the
      // same banks over and over, so identical identifier cells are checked once.
      const m = layout.mapping;
      const key = `${cellAt(cells, m.type)}\u0001${cellAt(cells, m.bic)}\u0001${cellAt(cells, m.routing)}\u0001${cellAt(cells, m.fromBic)}\u0001${cellAt(cells, m.toBic)}\u0001${cellAt(cells, m.currency)}`;
      const hit = verdicts.get(key);
      if (hit) verdict = hit;
      else {
        verdict = render(evaluateRow(cells, m, ctx));
        if (verdicts.size >= VERDICT_CACHE_ENTRIES) verdicts.clear();
        verdicts.set(key, verdict);
      }
    }

    summary.rows++;
    if (verdict.valid) summary.valid++;
    else summary.invalid++;
    for (const code of verdict.codes) summary.reasons[code] = (summary.reasons[code] ?? 0) + 1;

    // A quote-free input line that no formula neutralisation touches is copied as is: most rows, and the hot path.
    const original =
      record.raw !== null && cells === record.cells && !FORMULA_AT_CELL_START.test(record.raw) ? record.raw : csvCells(cells);
    const line = original + verdict.tail;
    out.add(line);
    if (!verdict.valid) invalidOut?.add(line);
  };

  const parser = new CsvRecordParser(onRecord);
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
