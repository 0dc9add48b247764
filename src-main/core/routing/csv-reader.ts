// Streaming CSV record parser (RFC 4180 plus the leniency real exports need) for batch files and directory imports.
// Hand-rolled rather than papaparse's stream mode: after an unclosed quote papaparse reads the rest of the file into one
// field (every later row lost, memory growing with the file); here a record is capped and the parser resynchronises.

export type CsvRowError = 'STRAY_QUOTE' | 'UNCLOSED_QUOTE' | 'ROW_TOO_LONG';

export interface CsvRecord {
  cells: string[];
  /** Set when the record was malformed; the cells are then a best-effort split and the row must be reported invalid. */
  error: CsvRowError | null;
  /** 1-based physical line on which the record starts. */
  line: number;
  /** The record's text when it held no quote (so `cells.join(',')` would rebuild it); null otherwise. */
  raw: string | null;
}

/** A record (with quoted newlines) may span at most this many characters before its opening quote is deemed stray. */
export const DEFAULT_MAX_RECORD_CHARS = 64 * 1024;

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

type SlowResult = { kind: 'record'; next: number; cells: string[]; error: CsvRowError | null } | { kind: 'more' } | { kind: 'unclosed' };

/**
 * Optional hook for quote-free lines (`text.slice(start, end)`, CR already dropped): a consumer that can handle the
 * line from the text itself returns true, and no record, slice or cell array is made for it; false makes it an
 * ordinary record. The batch engine answers most rows this way.
 */
export type PlainLineHandler = (text: string, start: number, end: number) => boolean;

export class CsvRecordParser {
  private carry = '';
  private line = 1;
  private started = false;
  private skippingLongLine = false;

  constructor(
    private readonly onRecord: (record: CsvRecord) => void,
    private readonly maxRecordChars: number = DEFAULT_MAX_RECORD_CHARS,
    private readonly onPlainLine: PlainLineHandler | null = null,
    /**
     * Optional hook for a line that holds a quote and ends in a newline: the consumer may answer it from the text
     * when the line is a whole, well-formed record by itself; false sends it through the state machine as before.
     */
    private readonly onQuotedLine: PlainLineHandler | null = null,
  ) {}

  /** Between records: input started, nothing carried over, no over-long line being skipped. */
  get idle(): boolean {
    return this.started && this.carry.length === 0 && !this.skippingLongLine;
  }

  push(chunk: string): void {
    if (this.carry.length > 0 && this.started) {
      // A partial quote-free line ended by the chunk's quote-free first line: that line on its own, then the rest of
      // the chunk as it is. Same records as carry + chunk, but the chunk stays a flat string, which a consumer
      // reading it char by char scans a third faster than a concatenation.
      const nl = chunk.indexOf('\n');
      if (nl !== -1 && this.carry.indexOf('"') === -1 && chunk.lastIndexOf('"', nl) === -1) {
        const head = this.carry + chunk.slice(0, nl + 1);
        this.carry = '';
        this.run(head, false, 0);
        this.carry = this.run(chunk, false, nl + 1);
        return;
      }
    }
    let text = this.carry.length > 0 ? this.carry + chunk : chunk;
    if (!this.started) {
      if (text.length === 0) return;
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.carry = this.run(text, false, 0);
  }

  end(): void {
    const text = this.carry;
    this.carry = '';
    if (text.length > 0) this.run(text, true, 0);
  }

  /** Parses complete records out of `text` from `start`; returns the unparsed tail to carry into the next chunk. */
  private run(text: string, final: boolean, start: number): string {
    const n = text.length;
    let pos = start;
    // Cached so that a quote-free line costs one indexOf, not a scan to the end of the chunk per line.
    let nextQuote = text.indexOf('"', start);
    if (nextQuote === -1) nextQuote = n;

    while (pos < n) {
      if (this.skippingLongLine) {
        const nl = text.indexOf('\n', pos);
        if (nl === -1) return '';
        this.skippingLongLine = false;
        this.line++;
        pos = nl + 1;
        continue;
      }
      if (nextQuote < pos) {
        nextQuote = text.indexOf('"', pos);
        if (nextQuote === -1) nextQuote = n;
      }
      let nl = text.indexOf('\n', pos);
      if (nl === -1) {
        if (!final) {
          if (n - pos > this.maxRecordChars && nextQuote >= n) {
            this.emitTooLong(text, pos);
            return '';
          }
          if (nextQuote >= n) return text.slice(pos);
        }
        nl = n;
      }
      if (nextQuote >= nl) {
        let end = nl;
        if (end > pos && text.charCodeAt(end - 1) === CR) end--;
        if (end - pos > this.maxRecordChars) {
          // The cap holds whatever the chunking: a whole over-long line in one chunk is as too long as a split one.
          this.onRecord({ cells: text.slice(pos, pos + 256).split(','), error: 'ROW_TOO_LONG', line: this.line, raw: null });
          this.line++;
          pos = nl + 1;
          continue;
        }
        if (this.onPlainLine === null || !this.onPlainLine(text, pos, end)) {
          const raw = text.slice(pos, end);
          this.onRecord({ cells: raw.split(','), error: null, line: this.line, raw });
        }
        this.line++;
        pos = nl + 1;
        continue;
      }
      if (this.onQuotedLine !== null && nl < n) {
        let end = nl;
        if (end > pos && text.charCodeAt(end - 1) === CR) end--;
        if (this.onQuotedLine(text, pos, end)) {
          this.line++;
          pos = nl + 1;
          continue;
        }
      }
      const r = this.parseSlow(text, pos, final);
      if (r.kind === 'record' && recordEnd(text, r.next) - pos > this.maxRecordChars) {
        // A record (quoted newlines included) beyond the cap: reported on its first line, whatever the chunking.
        this.onRecord({ cells: text.slice(pos, pos + 256).split(','), error: 'ROW_TOO_LONG', line: this.line, raw: null });
        this.line += countNewlines(text, pos, Math.min(r.next, n));
        pos = r.next;
        continue;
      }
      if (r.kind === 'record') {
        this.onRecord({ cells: r.cells, error: r.error, line: this.line, raw: null });
        this.line += countNewlines(text, pos, Math.min(r.next, n));
        pos = r.next;
        continue;
      }
      if (r.kind === 'more' && n - pos <= this.maxRecordChars) return text.slice(pos);
      // Unclosed quote at end of input, or a quoted record longer than the cap: the opening quote was stray. Report
      // its first physical line as malformed and resume on the next line. The skipped region holds no lone quote (a
      // lone one would have ended the quoted field), so re-parsing it cannot run away again: total work stays linear.
      const lineEnd = text.indexOf('\n', pos);
      if (lineEnd === -1) {
        if (final) {
          this.onRecord({ cells: stripCr(text.slice(pos)).split(','), error: 'UNCLOSED_QUOTE', line: this.line, raw: null });
          return '';
        }
        this.emitTooLong(text, pos);
        return '';
      }
      this.onRecord({ cells: stripCr(text.slice(pos, lineEnd)).split(','), error: 'UNCLOSED_QUOTE', line: this.line, raw: null });
      this.line++;
      pos = lineEnd + 1;
    }
    return '';
  }

  private emitTooLong(text: string, pos: number): void {
    this.onRecord({ cells: text.slice(pos, pos + 256).split(','), error: 'ROW_TOO_LONG', line: this.line, raw: null });
    this.skippingLongLine = true;
  }

  /** Character state machine for a record that contains a quote; may span lines. */
  private parseSlow(text: string, start: number, final: boolean): SlowResult {
    const n = text.length;
    const cells: string[] = [];
    let field = '';
    let fieldStart = true;
    let inQuotes = false;
    let error: CsvRowError | null = null;
    let i = start;
    while (i < n) {
      if (inQuotes) {
        const q = text.indexOf('"', i);
        if (q === -1) return final ? { kind: 'unclosed' } : { kind: 'more' };
        field += text.slice(i, q);
        if (q + 1 >= n && !final) return { kind: 'more' };
        const next = q + 1 < n ? text.charCodeAt(q + 1) : -1;
        if (next === QUOTE) {
          field += '"';
          i = q + 2;
        } else if (next === COMMA || next === LF || next === CR || next === -1) {
          inQuotes = false;
          i = q + 1;
        } else {
          // `"abc"def`: keep the quote as text, leave quoted mode, flag the row.
          error ??= 'STRAY_QUOTE';
          field += '"';
          inQuotes = false;
          i = q + 1;
        }
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === COMMA) {
        cells.push(field);
        field = '';
        fieldStart = true;
        i++;
      } else if (c === LF) {
        cells.push(field);
        return { kind: 'record', next: i + 1, cells, error };
      } else if (c === CR && (i + 1 >= n || text.charCodeAt(i + 1) === LF)) {
        if (i + 1 >= n && !final) return { kind: 'more' };
        cells.push(field);
        return { kind: 'record', next: i + 2, cells, error };
      } else if (c === QUOTE) {
        if (fieldStart && field.length === 0) {
          inQuotes = true;
        } else {
          error ??= 'STRAY_QUOTE';
          field += '"';
        }
        fieldStart = false;
        i++;
      } else {
        let j = i + 1;
        while (j < n) {
          const d = text.charCodeAt(j);
          if (d === COMMA || d === LF || d === CR || d === QUOTE) break;
          j++;
        }
        field += text.slice(i, j);
        fieldStart = false;
        i = j;
      }
    }
    if (!final) return { kind: 'more' };
    if (inQuotes) return { kind: 'unclosed' };
    cells.push(field);
    return { kind: 'record', next: n, cells, error };
  }
}

/** Where a record ending at `next` (just past its line break, if any) ends without that line break. */
function recordEnd(text: string, next: number): number {
  let end = Math.min(next, text.length);
  if (end > 0 && text.charCodeAt(end - 1) === LF) end--;
  if (end > 0 && text.charCodeAt(end - 1) === CR) end--;
  return end;
}

function stripCr(s: string): string {
  return s.length > 0 && s.charCodeAt(s.length - 1) === CR ? s.slice(0, -1) : s;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  let i = text.indexOf('\n', from);
  while (i !== -1 && i < to) {
    count++;
    i = text.indexOf('\n', i + 1);
  }
  return count;
}

/** True when a record carries no data (an empty line, or only separators and blanks). */
export function isBlankRecord(cells: readonly string[]): boolean {
  for (const c of cells) if (c.trim().length > 0) return false;
  return true;
}

/** Parses a whole in-memory string; for previews and small files. */
export function parseCsvText(text: string, maxRecordChars?: number): CsvRecord[] {
  const out: CsvRecord[] = [];
  const p = new CsvRecordParser((r) => out.push(r), maxRecordChars);
  p.push(text);
  p.end();
  return out;
}
