// What a downloaded file starts with, decided once (src-shared/download-prefix.ts): a CSV's byte order mark, so a
// spreadsheet reads it as UTF-8; nothing for JSON. The files the renderer builds follow it (wallet/download.ts), and so
// does the doors' streamed audit export (its bytes: audit-download.test.ts, app-download.test.ts).
import { describe, expect, it } from 'vitest';
import { downloadPrefix } from '../../../src-shared/download-prefix';

describe('downloadPrefix', () => {
  it.each(['text/csv', 'text/csv;charset=utf-8', 'text/csv; charset=utf-8', 'Text/CSV', ' text/csv ; header=present'])('a CSV (%j) starts with a byte order mark', (type) => {
    expect(downloadPrefix(type)).toBe('\uFEFF');
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'text/plain', 'text/csvx', 'application/text/csv', ''])('%j starts with nothing', (type) => {
    expect(downloadPrefix(type)).toBe('');
  });
});
