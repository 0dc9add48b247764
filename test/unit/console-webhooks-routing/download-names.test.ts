// Download names keep their letters: the door sends RFC 6266's `filename*=UTF-8''…` beside an ASCII `filename="…"`,
// and the console's fetchDownload reads `filename*` first (was: "ümlaut.csv" downloaded as "mlaut.csv").
import { describe, expect, it } from 'vitest';
import { attachmentDisposition } from '../../../src-main/console/content-disposition';
import { downloadFilename } from '../../../src-renderer/client/download-name';

describe('download names', () => {
  it('sends the name as it is in filename*, with an ASCII stand-in in filename', () => {
    expect(attachmentDisposition('name with spaces & ümlaut-results.csv')).toBe(
      `attachment; filename="name_with_spaces_umlaut-results.csv"; filename*=UTF-8''name%20with%20spaces%20%26%20%C3%BCmlaut-results.csv`,
    );
    expect(attachmentDisposition("O'Brien (1)*.csv")).toBe(`attachment; filename="O_Brien_1_.csv"; filename*=UTF-8''O%27Brien%20%281%29%2A.csv`);
    expect(attachmentDisposition('付款.csv')).toBe(`attachment; filename="_.csv"; filename*=UTF-8''%E4%BB%98%E6%AC%BE.csv`);
    expect(attachmentDisposition('payees-results.csv')).toBe(`attachment; filename="payees-results.csv"; filename*=UTF-8''payees-results.csv`);
  });

  it('reads filename* first, then filename, then says "download"', () => {
    for (const name of ['name with spaces & ümlaut-results.csv', "O'Brien (1)*.csv", '付款.csv', 'audit.jsonl']) {
      expect(downloadFilename(attachmentDisposition(name))).toBe(name);
    }
    expect(downloadFilename(`attachment; filename*=utf-8''%C3%BC.csv; filename="u.csv"`)).toBe('ü.csv');
    expect(downloadFilename('attachment; filename="audit-2026.csv"')).toBe('audit-2026.csv');
    expect(downloadFilename(`attachment; filename="fallback.csv"; filename*=UTF-8''%E0%A4`)).toBe('fallback.csv');
    expect(downloadFilename(null)).toBe('download');
  });
});
