// The usage CSV export: RFC 4180 quoting and OWASP CSV-injection neutralisation.
import { describe, it, expect } from 'vitest';
import { neutraliseCsvText as neutraliseCell } from '../../../src-shared/csv';
import { csvField, toCsv, usageCsv, USAGE_CSV_HEADER } from '../../../src-renderer/features/wallet/usage-csv';

describe('neutraliseCell', () => {
  // Payloads from OWASP "CSV Injection" (https://owasp.org/www-community/attacks/CSV_Injection).
  it.each([
    ["=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
    ['=HYPERLINK("http://evil.example","x")', '\'=HYPERLINK("http://evil.example","x")'],
    ['+1+1', "'+1+1"],
    ['-2+3+cmd|\' /C calc\'!A0', "'-2+3+cmd|' /C calc'!A0"],
    ['@SUM(1+1)*cmd|\' /C calc\'!A0', "'@SUM(1+1)*cmd|' /C calc'!A0"],
    ['\t=1+1', "'\t=1+1"],
    ['\r=1+1', "'\r=1+1"],
  ])('prefixes %j', (input, expected) => {
    expect(neutraliseCell(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    for (const s of ['account:NG', 'ver_123', 'a=b', 'x-y', '', 'user@example.com']) expect(neutraliseCell(s)).toBe(s);
  });
});

describe('csvField (RFC 4180 §2)', () => {
  it('quotes fields with commas, quotes or line breaks and doubles inner quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line1\nline2')).toBe('"line1\nline2"');
    expect(csvField('plain')).toBe('plain');
  });
  it('neutralises before quoting so the quote cannot hide a formula', () => {
    expect(csvField('=1,2')).toBe(`"'=1,2"`);
  });
  it('writes numbers raw (a negative amount is data, not a formula) and empties null', () => {
    expect(csvField(-550)).toBe('-550');
    expect(csvField(-5.5)).toBe('-5.5');
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
  });
  it('joins rows with CRLF and ends with one', () => {
    expect(toCsv(['a', 'b'], [[1, 'x'], ['y,z', null]])).toBe('a,b\r\n1,x\r\n"y,z",\r\n');
  });
});

describe('usageCsv', () => {
  it('writes one line per record with the amount in minor and major units', () => {
    const csv = usageCsv([
      { id: 'use_1', verificationId: 'ver_1', service: 'account:NG', kind: 'charge', amount: -550, currency: 'USD', ledgerEntryId: 'led_1', createdAt: '2026-01-02T03:04:05.000Z' },
      { id: 'use_2', verificationId: '=HYPERLINK("x")', service: '@evil', kind: 'reversal', amount: 550, currency: 'USD', ledgerEntryId: 'led_2', createdAt: '2026-01-02T03:04:06.000Z' },
    ]);
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(USAGE_CSV_HEADER.join(','));
    expect(lines[1]).toBe('use_1,2026-01-02T03:04:05.000Z,charge,account:NG,ver_1,-550,-5.5,USD,led_1');
    expect(lines[2]).toBe(`use_2,2026-01-02T03:04:06.000Z,reversal,'@evil,"'=HYPERLINK(""x"")",550,5.5,USD,led_2`);
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
  });
});
