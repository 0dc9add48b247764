// The terms of a History search text, as both engines' searches read them (core/verification/search.ts for SQLite's
// FTS5, store/pg/search.ts for PostgreSQL): pure, so the two cannot split the text differently.

/** One term of a History search text (both engines build their index query from these). */
export type SearchTerm = { kind: 'ident'; text: string } | { kind: 'country'; text: string } | { kind: 'names'; words: string[] };

/**
 * Splits the text into terms: an id (`ver_…`), an identifier prefix (has a digit), a country code or a name — at
 * most 12 words. SQLite's FTS5 search (parseSearch) and PostgreSQL's (store/pg/search.ts) read the same terms.
 */
export function searchTerms(text: string): { ids: string[]; terms: SearchTerm[] } {
  const ids: string[] = [];
  const terms: SearchTerm[] = [];
  for (const raw of text.trim().split(/\s+/).filter(Boolean).slice(0, 12)) {
    if (/^ver_[A-Za-z0-9]*$/i.test(raw)) {
      ids.push(raw.toLowerCase());
      continue;
    }
    if (/\d/.test(raw)) {
      // The index keeps identifiers as one token of letters and digits ("+234 801-234" → "234801234").
      const ident = raw.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
      if (ident) terms.push({ kind: 'ident', text: ident });
      continue;
    }
    // A name term: split as the index's tokenizer does. Two letters are a country code (a name is found from its
    // third letter on).
    const words = raw.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    if (words.length === 0) continue;
    terms.push(words.length === 1 && /^\p{L}{2}$/u.test(raw) ? { kind: 'country', text: raw } : { kind: 'names', words });
  }
  return { ids, terms };
}
