// How History's search text becomes index terms: ids, identifier prefixes with separators dropped, country codes,
// name prefixes; every word quoted, so no text is ever FTS5 query syntax.
import { describe, expect, it } from 'vitest';
import { parseSearch, scopeToken } from '../../../src-main/core/verification/search';

describe('parseSearch', () => {
  it('reads ids, identifier prefixes, country codes and names', () => {
    expect(parseSearch('ver_AB12')).toEqual({ ids: ['ver_ab12'], match: null });
    // An international number typed in groups is one identifier, found in either spelling (below).
    expect(parseSearch('+234 801-23')).toEqual({ ids: [], match: '(ident:"23480123"* OR (ident:"80123"* AND country:"ng") OR (ident:"080123"* AND country:"ng"))' });
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

describe('a phone number searched in its international form', () => {
  // Found by the console review: a check typed as 0802 123 4567 shows +2348021234567, and searching that found nothing.
  it('also matches the local spellings of the market whose calling code it starts with, in that market only', () => {
    expect(parseSearch('+2348021234567')).toEqual({ ids: [], match: '(ident:"2348021234567"* OR (ident:"8021234567"* AND country:"ng") OR (ident:"08021234567"* AND country:"ng"))' });
    expect(parseSearch('00234802')).toEqual({ ids: [], match: '(ident:"00234802"* OR (ident:"234802"* AND country:"ng") OR (ident:"802"* AND country:"ng") OR (ident:"0802"* AND country:"ng"))' });
    // Côte d'Ivoire dials no trunk prefix: its national number is the local form.
    expect(parseSearch('+2250123')).toEqual({ ids: [], match: '(ident:"2250123"* OR (ident:"0123"* AND country:"ci"))' });
    // A local prefix stays one term (most often an account number); so does a code alone.
    expect(parseSearch('0802')).toEqual({ ids: [], match: 'ident:"0802"*' });
    expect(parseSearch('+234')).toEqual({ ids: [], match: 'ident:"234"*' });
    // 00 and no market's calling code: an account number, one term, not joined to the next word (found by the final review).
    expect(parseSearch('0012345678')).toEqual({ ids: [], match: 'ident:"0012345678"*' });
    expect(parseSearch('0012345678 058')).toEqual({ ids: [], match: 'ident:"0012345678"* AND ident:"058"*' });
  });
});
