// History's free-text search (issue 13 §3): a verification id or its start, identifier prefixes (account number,
// phone, ID number — separators ignored), holder names (prefix, accents ignored) and country codes, all terms
// required (an id alone decides), newest first. Names and identifiers go through the FTS5 index of migration 10
// (kept off the write path since migration 20: a search that reads it catches it up first, search-index.ts); an id
// through the primary key. Counting stops at SEARCH_COUNT_CAP so a one-letter search over a million checks stays fast.
// On SQLite: FTS5, rowid and json_each below. On PostgreSQL (`q.engine`): the same text, the same filters and matches
// through the expression index of PostgreSQL migration 10 (store/pg/search.ts builds the tsquery), newest first by
// (created_at, id) as the History list orders.
import type { HistorySearchOutput } from '../../../src-shared/channels-history';
import { VERIFICATION_KINDS, type VerificationRecord, type VerificationTypeFilter } from '../../../src-shared/schemas/verification';
import type { SqlQueries } from '../../store/sql-port';
import { ListFilter } from '../../store/list-query';
import { listVerificationsJson } from './records';
import { searchTerms } from '../../../src-shared/search-terms';
import { dialectOf } from '../../store/pg/dialect';
import { PG_SEARCH_DOCUMENT, pgSearchQuery } from '../../store/pg/search';
import { catchUpSearchIndex } from './search-index';
import type { LongReads } from '../../store/reader-thread';

export const SEARCH_COUNT_CAP = 1000;

export interface SearchInput {
  q: string;
  type?: VerificationTypeFilter | undefined;
  status?: string | undefined;
  country?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit: number;
  offset: number;
}

const KIND_FILTERS = new Set<string>(VERIFICATION_KINDS);

/** The index's token for an organization and environment (migration 10 builds the same in SQL). */
export function scopeToken(organizationId: string, environment: string): string {
  return `${organizationId.replace(/[_-]/g, '').toLowerCase()}x${environment}`;
}

/** An FTS5 string literal: the text in double quotes, inner quotes doubled (nothing in it is query syntax). */
const lit = (s: string) => `"${s.replace(/"/g, '""')}"`;

export interface ParsedSearch {
  /** Id prefixes (`ver_…`), each required. */
  ids: string[];
  /** The FTS5 MATCH expression, or null when no term needs the index. */
  match: string | null;
}

/** The FTS5 form of a search text: ids apart, the rest one MATCH expression. */
export function parseSearch(text: string): ParsedSearch {
  const { ids, terms } = searchTerms(text);
  // Every name piece is a prefix. An exact term (a country) streams from the index; a prefix has to gather every
  // term it covers, so the cheap reading goes where it is the likely one.
  const parts = terms.map((t) =>
    t.kind === 'ident'
      ? t.also.length === 0
        ? `ident:${lit(t.text)}*`
        : `(${[`ident:${lit(t.text)}*`, ...t.also.map((a) => (a.country ? `(ident:${lit(a.digits)}* AND country:${lit(a.country.toLowerCase())})` : `ident:${lit(a.digits)}*`))].join(' OR ')})`
      : t.kind === 'country' ? `country:${lit(t.text.toLowerCase())}` : `(${t.words.map((w) => `names:${lit(w)}*`).join(' AND ')})`,
  );
  return { ids, match: parts.length > 0 ? parts.join(' AND ') : null };
}

function listInput(input: SearchInput) {
  return { limit: input.limit, offset: input.offset, type: input.type, status: input.status as never, country: input.country, from: input.from, to: input.to };
}

export async function searchVerifications(q: SqlQueries, organizationId: string, environment: string, input: SearchInput, longReads?: LongReads): Promise<HistorySearchOutput> {
  if (q.engine === 'postgres') return searchVerificationsPg(q, organizationId, environment, input);
  const parsed = parseSearch(input.q);
  const ids = parsed.ids;
  // An id names one check: with an id in the text the other words are not applied (the filters still are). Words
  // next to an id would otherwise make the index walk every row they match to find the one the id already found.
  const match = ids.length > 0 ? null : parsed.match;
  if (ids.length === 0 && match === null) {
    // No text: the ordinary list, with its exact total (counted off the event loop where the store allows).
    const { data, total } = await listVerificationsJson(q, organizationId, environment, listInput(input), longReads);
    return page(data, total, false, input);
  }
  // With ids, the rows are the few the primary key found: `+column` keeps the planner from using another index
  // (SQLite's documented way to disqualify a term from driving an index).
  const c = (column: string) => `${ids.length > 0 ? '+' : ''}v.${column}`;
  const filter = new ListFilter()
    .eq(c('organization_id'), organizationId)
    .eq(c('environment'), environment)
    .eq(c(input.type && KIND_FILTERS.has(input.type) ? 'kind' : 'verification_type'), input.type)
    .eq(c('status'), input.status)
    .eq(c('country'), input.country)
    .createdBetween(input.from, input.to, c('created_at'));
  const where: string[] = [filter.sql()];
  const params: (string | number)[] = [...filter.args];
  if (ids.length > 0) {
    // Ids first, through the primary key alone: the rows whose id starts with every id term (a handful), then
    // everything else is checked on those rows only. (Left to the planner, the id range lost to the
    // organization's list index and the search walked every row of the organization.)
    let rowids: number[] | null = null;
    for (const id of ids) {
      const found = await q.all<{ r: number }>('SELECT rowid AS r FROM verifications WHERE id >= ? AND id < ? LIMIT ?', [id, `${id}\uffff`, SEARCH_COUNT_CAP + 1]);
      const set = new Set(found.map((f) => f.r));
      rowids = rowids === null ? [...set] : rowids.filter((r) => set.has(r));
    }
    if (!rowids || rowids.length === 0) return page([], 0, false, input);
    where.push(`v.rowid IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(rowids));
  }
  // The index drives: it yields matches newest first (rowid order). Its scope token restricts it to this
  // organization and environment, so without other filters no row is read until the page is fetched.
  const filtered = input.type !== undefined || input.status !== undefined || input.country !== undefined || input.from !== undefined || input.to !== undefined;
  let from = 'verifications v';
  let order = 'v.rowid DESC';
  let cond: string;
  if (match) {
    // The index is brought up to date first (search-index.ts): a check written a moment ago is found, and a check
    // whose names changed is found by its new names only. Nothing is written when nothing lags.
    await catchUpSearchIndex(q);
    const scoped = `scope:${lit(scopeToken(organizationId, environment))} AND ${match}`;
    order = 's.rowid DESC';
    if (filtered) {
      from = 'verification_search s JOIN verifications v ON v.rowid = s.rowid';
      cond = ['verification_search MATCH ?', ...where].join(' AND ');
    } else {
      from = 'verification_search s';
      cond = 'verification_search MATCH ?';
      where.length = 0;
      params.length = 0;
    }
    params.unshift(scoped);
  } else {
    cond = where.filter((w) => w !== '').join(' AND ');
  }
  // One pass over the matches gives both the count (up to the cap) and the page: the index is read once.
  const window = Math.max(SEARCH_COUNT_CAP + 1, input.offset + input.limit);
  // Words: with a filter every match is joined to its row until the window is full or the matches run out (340–390 ms
  // on 500,000 checks for a common word and a status); alone, a short prefix ("1", "a") still walks its matches in
  // the index (47–121 ms). So the pass is read off the event loop where the store allows. The index is caught up and
  // committed above, so the reader thread sees what this connection wrote.
  const reads = match && longReads && !q.inTransaction ? longReads : q;
  const hits = (await reads.all<{ r: number }>(`SELECT ${match ? 's' : 'v'}.rowid AS r FROM ${from} WHERE ${cond} ORDER BY ${order} LIMIT ?`, [...params, window])).map((h) => h.r);
  // The scope is checked again on the rows themselves: the index only ever narrows what the rows allow.
  return pageOfHits(
    q,
    hits,
    'SELECT result FROM verifications WHERE rowid IN (SELECT value FROM json_each(?)) AND +organization_id = ? AND +environment = ? ORDER BY rowid DESC',
    organizationId,
    environment,
    input,
  );
}

/**
 * PostgreSQL: the same rules (an id decides; every other term required; the filters always), the rows newest first
 * by (created_at, id), counted up to the cap. Id prefixes are ranges of the primary key; words are one tsquery
 * against the expression index, scope included.
 */
async function searchVerificationsPg(q: SqlQueries, organizationId: string, environment: string, input: SearchInput): Promise<HistorySearchOutput> {
  const s = await pgSearchQuery(q, input.q, organizationId, environment);
  if (s.ids.length === 0 && s.tsquery === null) {
    const { data, total } = await listVerificationsJson(q, organizationId, environment, listInput(input));
    return page(data, total, false, input);
  }
  const filter = new ListFilter()
    .eq('v.organization_id', organizationId)
    .eq('v.environment', environment)
    .eq(input.type && KIND_FILTERS.has(input.type) ? 'v.kind' : 'v.verification_type', input.type)
    .eq('v.status', input.status)
    .eq('v.country', input.country)
    .createdBetween(input.from, input.to, 'v.created_at');
  for (const id of s.ids) filter.where('v.id >= ? AND v.id < ?', id, `${id}\uffff`);
  if (s.ids.length === 0 && s.tsquery !== null) filter.where(`${PG_SEARCH_DOCUMENT('v')} @@ ?::tsquery`, s.tsquery);
  const window = Math.max(SEARCH_COUNT_CAP + 1, input.offset + input.limit);
  const hits = (
    await q.all<{ id: string }>(`SELECT v.id FROM verifications v WHERE ${filter.sql()} ORDER BY v.created_at DESC, v.id DESC LIMIT ?`, [...filter.args, window])
  ).map((h) => h.id);
  return pageOfHits(
    q,
    hits,
    `SELECT result FROM verifications WHERE id IN ${dialectOf(q.engine).jsonArrayValues()} AND organization_id = ? AND environment = ? ORDER BY created_at DESC, id DESC`,
    organizationId,
    environment,
    input,
  );
}

/**
 * The page of the hits (row keys, newest first) that `input` asks for, read by `rowsSql` (parameters: the page's
 * keys as a JSON array, the organization, the environment), counted up to the cap. Both engines end a search here.
 */
async function pageOfHits(
  q: SqlQueries,
  hits: readonly (string | number)[],
  rowsSql: string,
  organizationId: string,
  environment: string,
  input: SearchInput,
): Promise<HistorySearchOutput> {
  const shown = hits.slice(input.offset, input.offset + input.limit);
  const rows = shown.length === 0 ? [] : await q.all<{ result: string }>(rowsSql, [JSON.stringify(shown), organizationId, environment]);
  return page(
    rows.map((r) => r.result),
    Math.min(hits.length, SEARCH_COUNT_CAP),
    hits.length > SEARCH_COUNT_CAP,
    input,
  );
}

function page(json: string[], total: number, capped: boolean, input: SearchInput): HistorySearchOutput {
  return {
    data: json.map((r) => JSON.parse(r) as VerificationRecord),
    pagination: { total, totalCapped: capped, limit: input.limit, offset: input.offset, hasMore: capped || input.offset + json.length < total },
  };
}
