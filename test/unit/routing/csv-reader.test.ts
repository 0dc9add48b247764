// The streaming CSV record parser: RFC 4180 cases, hostile input, and chunk-boundary independence (property test).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvRecordParser, parseCsvText, type CsvRecord } from '../../../src-main/core/routing/csv-reader';

function parseChunks(chunks: string[], max?: number): CsvRecord[] {
  const out: CsvRecord[] = [];
  const p = new CsvRecordParser((r) => out.push(r), max);
  for (const c of chunks) p.push(c);
  p.end();
  return out;
}

const cellsOf = (rs: CsvRecord[]): string[][] => rs.map((r) => r.cells);

describe('CsvRecordParser', () => {
  it('parses RFC 4180 quoting: commas, escaped quotes, CRLF and LF, newlines inside quotes', () => {
    const rs = parseCsvText('\uFEFFa,b\r\n"x, y","say ""hi"""\n"multi\r\nline",z');
    expect(cellsOf(rs)).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"'],
      ['multi\r\nline', 'z'],
    ]);
    expect(rs.map((r) => r.line)).toEqual([1, 2, 3]);
    expect(rs.every((r) => r.error === null)).toBe(true);
  });

  it('keeps empty lines as blank records and a trailing newline adds none', () => {
    expect(cellsOf(parseCsvText('a\n\n\r\nb\n'))).toEqual([['a'], [''], [''], ['b']]);
  });

  it('flags stray quotes and keeps going', () => {
    const rs = parseCsvText('ok,1\nab"c,2\n"abc"def,3\nfine,4\n');
    expect(rs.map((r) => r.error)).toEqual([null, 'STRAY_QUOTE', 'STRAY_QUOTE', null]);
    expect(rs[3]?.cells).toEqual(['fine', '4']);
  });

  it('resynchronises after an unclosed quote at end of input', () => {
    const rs = parseCsvText('a,1\n"never closed,2\nb,3\nc,4\n');
    expect(rs.map((r) => r.error)).toEqual([null, 'UNCLOSED_QUOTE', null, null]);
    expect(cellsOf(rs).slice(2)).toEqual([
      ['b', '3'],
      ['c', '4'],
    ]);
  });

  it('bounds a runaway quoted record by the cap instead of buffering the rest of the file', () => {
    const body = Array.from({ length: 2000 }, (_, i) => `row${i},${i}`).join('\n');
    const rs = parseChunks(['head,x\n"oops,1\n', body.slice(0, 5000), body.slice(5000), '\n'], 1024);
    expect(rs[1]?.error).toBe('UNCLOSED_QUOTE');
    // Every row after the stray quote is still delivered, once, in order.
    expect(rs.slice(2).map((r) => r.cells[0])).toEqual(Array.from({ length: 2000 }, (_, i) => `row${i}`));
  });

  it('reports an over-long line once and skips the rest of it', () => {
    const rs = parseChunks(['a,1\n', 'x'.repeat(3000), 'y'.repeat(3000), '\nb,2\n'], 1024);
    expect(rs.map((r) => r.error)).toEqual([null, 'ROW_TOO_LONG', null]);
    expect(rs[2]?.cells).toEqual(['b', '2']);
  });

  it('gives the same records however the input is split into chunks', () => {
    const cell = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('', '"', '""', ',', '\n', '\r\n', 'a"b', ' =1+2', 'é€😀'),
    );
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), (rows, cuts) => {
        const text = rows.map((r) => r.map((c) => `"${c.replaceAll('"', '""')}"`).join(',')).join('\r\n');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let prev = 0;
        for (const p of points) {
          chunks.push(text.slice(prev, p));
          prev = p;
        }
        chunks.push(text.slice(prev));
        const rs = parseChunks(chunks);
        expect(rs.every((r) => r.error === null)).toBe(true);
        expect(cellsOf(rs)).toEqual(rows);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary input and each record reports a line', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ',', '"', '\n', '\r', 'x', ' ') , maxLength: 200 }), (text) => {
        const rs = parseChunks([text.slice(0, 7), text.slice(7)], 16);
        for (const r of rs) expect(r.line).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
