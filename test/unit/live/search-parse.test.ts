// How History's search text becomes index terms: ids, identifier prefixes with separators dropped, country codes,
// name prefixes; every word quoted, so no text is ever FTS5 query syntax.
import { describe, expect, it } from 'vitest';
import { parseSearch, scopeToken } from '../../../src-main/core/verification/search';

describe('parseSearch', () => {
  it('reads ids, identifier prefixes, country codes and names', () => {
    expect(parseSearch('ver_AB12')).toEqual({ ids: ['ver_ab12'], match: null });
    expect(parseSearch('+234 801-23')).toEqual({ ids: [], match: 'ident:"234"* AND ident:"80123"*' });
    expect(parseSearch('NG')).toEqual({ ids: [], match: 'country:"ng"' });
    expect(parseSearch('  Okafor  ')).toEqual({ ids: [], match: '(names:"Okafor"*)' });
    expect(parseSearch("O'Neil-Smith")).toEqual({ ids: [], match: '(names:"O"* AND names:"Neil"* AND names:"Smith"*)' });
    expect(parseSearch('')).toEqual({ ids: [], match: null });
  });
  it('quotes every word: query syntax is searched as text or dropped', () => {
    for (const q of ['"', '*', '(', ')', ':', '^', '-']) expect(parseSearch(q).match).toBeNull();
    expect(parseSearch('AND OR NOT NEAR')).toEqual({ ids: [], match: '(names:"AND"*) AND country:"or" AND (names:"NOT"*) AND (names:"NEAR"*)' });
    expect(parseSearch('a"b')).toEqual({ ids: [], match: '(names:"a"* AND names:"b"*)' });
  });
  it('keeps at most 12 words', () => {
    expect(parseSearch(Array.from({ length: 20 }, (_, i) => `name${'x'.repeat(i)}`).join(' ').replace(/\d/g, '')).match!.split(' AND ')).toHaveLength(12);
  });
  it('builds the same scope token as the index (letters and digits of the organization id, then the environment)', () => {
    expect(scopeToken('org_AB12-cd', 'live')).toBe('orgab12cdxlive');
  });
});
