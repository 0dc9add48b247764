// A file that cannot be a CSV is refused by its first bytes (a 3 MB PNG was read as Latin-1 with a garbage header);
// text in any of the encodings the service reads is let through.
import { describe, expect, it } from 'vitest';
import { notCsvReason } from '../../src-shared/file-sniff';

const bytes = (...b: number[]) => new Uint8Array(b);
const text = (s: string) => new TextEncoder().encode(s);

describe('notCsvReason', () => {
  it('refuses images, archives and documents by signature, naming what they are', () => {
    expect(notCsvReason('photo.png', 3_000_000, bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))).toMatch(/^photo\.png is a PNG image, not a CSV file/);
    expect(notCsvReason('book.xlsx', 9000, bytes(0x50, 0x4b, 0x03, 0x04, 0x14))).toContain('ZIP archive');
    expect(notCsvReason('a.pdf', 9000, text('%PDF-1.7'))).toContain('PDF document');
  });
  it('refuses binary data: NUL bytes, or many control characters', () => {
    expect(notCsvReason('x.csv', 100, bytes(0x61, 0x00, 0x62))).toContain('NUL bytes');
    expect(notCsvReason('y.csv', 100, bytes(...Array.from({ length: 100 }, (_, i) => (i % 3 === 0 ? 0x01 : 0x41))))).toContain('control characters');
  });
  it('refuses an empty file once, without a field name', () => {
    expect(notCsvReason('empty.csv', 0, bytes())).toBe('empty.csv is empty: it holds no rows to check.');
  });
  it('lets text through: UTF-8, Latin-1, UTF-16 with its mark, tabs and CRLF', () => {
    expect(notCsvReason('a.csv', 20, text('bic;name\r\nDEUTDEFF;Bank\r\n'))).toBeNull();
    expect(notCsvReason('b.csv', 20, bytes(0x62, 0x69, 0x63, 0x0a, 0xe9, 0x0a))).toBeNull();
    expect(notCsvReason('c.csv', 20, bytes(0xff, 0xfe, 0x62, 0x00, 0x69, 0x00))).toBeNull();
    expect(notCsvReason('d.tsv', 20, text('bic\tname\nX\tY\n'))).toBeNull();
  });
  it('lets UTF-16 without its mark through, as the service reads it (found by the late review: refused as binary)', () => {
    const le = new Uint8Array([...'bic,bank_name\r\nDEUTDEFF,Deutsche Bank\r\n'].flatMap((c) => [c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8]));
    expect(notCsvReason('le.csv', le.length, le)).toBeNull();
    const be = new Uint8Array(le.length);
    for (let i = 0; i < le.length; i += 2) [be[i], be[i + 1]] = [le[i + 1]!, le[i]!];
    expect(notCsvReason('be.csv', be.length, be)).toBeNull();
    // Random NULs are still binary.
    expect(notCsvReason('x.bin', 8, bytes(0x41, 0x00, 0x00, 0x42, 0x00, 0x00, 0x43, 0x44))).toMatch(/binary data/);
  });
});
