// History search on PostgreSQL: the same text, the same matches as SQLite's FTS5 search (core/verification/search.ts,
// parseSearch), against the expression index of PostgreSQL migration 10. A term becomes lexemes tagged as the index
// tags them (`s` scope, `i` identifier, `n` name, `c` country), normalised by the database's own vc_search_words()
// so that accents and case fold exactly as when the rows were indexed; prefixes are `:*`. Ids (`ver_…`) are found
// through the primary key, as on SQLite.
import { searchTerms } from '../../../src-shared/search-terms';
import type { SqlQueries } from '../sql-port';

/** The indexed expression; a query must repeat it exactly for PostgreSQL to use the index. */
export const PG_SEARCH_DOCUMENT = (alias = 'v') =>
  `vc_search_document(${alias}.organization_id, ${alias}.environment, ${alias}.identifier, ${alias}.request, ${alias}.result, ${alias}.country)`;

/** A lexeme as a tsquery literal: quoted, quotes and backslashes doubled, optionally a prefix. */
export function tsLexeme(lexeme: string, prefix: boolean): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'${prefix ? ':*' : ''}`;
}

/** The scope token (organization and environment as one token), as migration 10 and search.ts's scopeToken build it. */
function scopeToken(organizationId: string, environment: string): string {
  return `${organizationId.replace(/[_-]/g, '').toLowerCase()}x${environment}`;
}

export interface PgSearch {
  /** Id prefixes (`ver_…`), each required; with any, the other words are not applied (as on SQLite). */
  ids: string[];
  /** The tsquery for `@@` against PG_SEARCH_DOCUMENT, scope included; null when no word needs the index. */
  tsquery: string | null;
}

/** Splits the text as parseSearch does, and builds the tsquery with the database's normalisation. */
export async function pgSearchQuery(q: SqlQueries, text: string, organizationId: string, environment: string): Promise<PgSearch> {
  const { ids, terms } = searchTerms(text);
  if (ids.length > 0 || terms.length === 0) return { ids, tsquery: null };
  // One round trip normalises every piece of text, in order.
  const pieces = terms.flatMap((t) => (t.kind === 'names' ? t.words : t.kind === 'ident' ? [t.text, ...t.also.flatMap((a) => (a.country ? [a.digits, a.country] : [a.digits]))] : [t.text]));
  const normal = (await q.all<{ i: number; w: string }>('SELECT t.i, w FROM json_array_elements_text(?::json) WITH ORDINALITY AS t(x, i), unnest(vc_search_words(t.x)) WITH ORDINALITY AS u(w, k) ORDER BY t.i, u.k', [JSON.stringify(pieces)])).reduce(
    (m, r) => m.set(r.i, [...(m.get(r.i) ?? []), r.w]),
    new Map<number, string[]>(),
  );
  let at = 0;
  const next = () => normal.get(++at) ?? [];
  const parts: string[] = [tsLexeme(`s${scopeToken(organizationId, environment)}`, false)];
  for (const t of terms) {
    if (t.kind === 'ident') {
      // The identifier as typed, or any other spelling of it (a phone number local or international): one of them.
      const lexemes = (kind: string, prefix: boolean) => next().map((w) => tsLexeme(`${kind}${w}`, prefix)).join(' & ');
      const spellings = [lexemes('i', true), ...t.also.map((a) => [lexemes('i', true), ...(a.country ? [lexemes('c', false)] : [])].filter(Boolean).join(' & '))].filter(Boolean);
      if (spellings.length === 1) parts.push(spellings[0]!);
      else if (spellings.length > 1) parts.push(`(${spellings.map((s) => `(${s})`).join(' | ')})`);
    }
    else if (t.kind === 'country') parts.push(...next().map((w) => tsLexeme(`c${w}`, false)));
    else {
      const names = t.words.flatMap(() => next().map((w) => tsLexeme(`n${w}`, true)));
      if (names.length > 0) parts.push(`(${names.join(' & ')})`);
    }
  }
  return { ids, tsquery: parts.join(' & ') };
}
