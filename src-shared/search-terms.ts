// The terms of a History search text, as both engines' searches read them (core/verification/search.ts for SQLite's
// FTS5, store/pg/search.ts for PostgreSQL): pure, so the two cannot split the text differently.
import { looksInternational, phonePrefixSpellings } from './phone-markets';

/** One term of a History search text (both engines build their index query from these). */
export type SearchTerm =
  /** An identifier prefix, and the other spellings it may be stored under (a phone number local or international). */
  | { kind: 'ident'; text: string; also: { digits: string; country?: string }[] }
  | { kind: 'country'; text: string }
  | { kind: 'names'; words: string[] };

/**
 * Splits the text into terms: an id (`ver_…`), an identifier prefix (has a digit), a country code or a name — at
 * most 12 words. SQLite's FTS5 search (parseSearch) and PostgreSQL's (store/pg/search.ts) read the same terms.
 */
export function searchTerms(text: string): { ids: string[]; terms: SearchTerm[] } {
  const ids: string[] = [];
  const terms: SearchTerm[] = [];
  for (const raw of phoneNumbersJoined(text.trim().split(/\s+/).filter(Boolean)).slice(0, 12)) {
    if (/^ver_[A-Za-z0-9]*$/i.test(raw)) {
      ids.push(raw.toLowerCase());
      continue;
    }
    if (/\d/.test(raw)) {
      // The index keeps identifiers as one token of letters and digits ("+234 801-234" → "234801234").
      const ident = raw.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
      if (ident) terms.push({ kind: 'ident', text: ident, also: phonePrefixSpellings(raw) });
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

/**
 * An international phone number typed in groups (`+234 801-23`, `00234 802 123`) is one identifier: the words that
 * follow `+…` (or `00` and a market's calling code: looksInternational) and hold only digits and separators are
 * joined to it. Apart, `801` would have to begin the whole
 * number (`2348012…`), which it never does.
 */
function phoneNumbersJoined(words: string[]): string[] {
  const out: string[] = [];
  for (const w of words) {
    const last = out[out.length - 1];
    if (last !== undefined && /^(\+|00)[\d\-(). ]+$/.test(last) && looksInternational(last) && /^[\d\-().]+$/.test(w) && /\d/.test(w)) out[out.length - 1] = `${last} ${w}`;
    else out.push(w);
  }
  return out;
}
