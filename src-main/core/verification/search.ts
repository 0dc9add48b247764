// History's free-text search (issue 13 §3): a verification id or its start, identifier prefixes (account number,
// phone, ID number — separators ignored), holder names (prefix, accents ignored) and country codes, all terms
// required, newest first. Names and identifiers go through the FTS5 index of migration 10; an id through the
// primary key. Counting stops at SEARCH_COUNT_CAP so a one-letter search over a million checks stays fast.
import type { HistorySearchOutput } from '../../../src-shared/channels-history';
import type { VerificationRecord } from '../../../src-shared/schemas/verification';
import type { Db } from '../../store/database';
import { ListFilter } from '../../store/list-query';
import { listVerificationsJson } from './records';

export const SEARCH_COUNT_CAP = 1000;

export interface SearchInput {
  q: string;
  type?: string | undefined;
  status?: string | undefined;
  country?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit: number;
  offset: number;
}

const KIND_FILTERS = new Set(['account', 'phone', 'identity', 'face', 'address']);

/** An FTS5 string literal: the text in double quotes, inner quotes doubled (nothing in it is query syntax). */
const lit = (s: string) => `"${s.replace(/"/g, '""')}"`;

export interface ParsedSearch {
  /** Id prefixes (`ver_…`), each required. */
  ids: string[];
  /** The FTS5 MATCH expression, or null when no term needs the index. */
  match: string | null;
}

/** Splits the text into terms: an id, an identifier prefix (has a digit), a country code or a name, or both. */
export function parseSearch(text: string): ParsedSearch {
  const ids: string[] = [];
  const parts: string[] = [];
  for (const raw of text.trim().split(/\s+/).filter(Boolean).slice(0, 12)) {
    if (/^ver_[A-Za-z0-9]*$/i.test(raw)) {
      ids.push(raw.toLowerCase());
      continue;
    }
    if (/\d/.test(raw)) {
      // The index keeps identifiers as one token of letters and digits ("+234 801-234" → "234801234").
      const ident = raw.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
      if (ident) parts.push(`ident:${lit(ident)}*`);
      continue;
    }
    // A name term: split as the index's tokenizer does; every piece a prefix.
    const words = raw.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    if (words.length === 0) continue;
    const names = words.map((w) => `names:${lit(w)}*`).join(' AND ');
    // Two letters may be a country code as well as the start of a name.
    parts.push(words.length === 1 && /^\p{L}{2}$/u.test(raw) ? `(country:${lit(raw.toLowerCase())} OR ${names})` : `(${names})`);
  }
  return { ids, match: parts.length > 0 ? parts.join(' AND ') : null };
}

export function searchVerifications(db: Db, organizationId: string, environment: string, input: SearchInput): HistorySearchOutput {
  const { ids, match } = parseSearch(input.q);
  if (ids.length === 0 && match === null) {
    // No text: the ordinary list, with its exact total.
    const q = { limit: input.limit, offset: input.offset, type: input.type, status: input.status as never, country: input.country, from: input.from, to: input.to };
    const { data, total } = listVerificationsJson(db, organizationId, environment, q);
    return page(data, total, false, input);
  }
  const filter = new ListFilter()
    .eq('v.organization_id', organizationId)
    .eq('v.environment', environment)
    .eq(input.type && KIND_FILTERS.has(input.type) ? 'v.kind' : 'v.verification_type', input.type)
    .eq('v.status', input.status)
    .eq('v.country', input.country)
    .createdBetween(input.from, input.to, 'v.created_at');
  const where: string[] = [filter.sql()];
  const params: unknown[] = [...filter.args];
  for (const id of ids) {
    // A prefix range on the primary key, looked up first (the planner would otherwise walk the organization's
    // rows in list order and test each id).
    where.push('v.rowid IN (SELECT rowid FROM verifications WHERE id >= ? AND id < ? LIMIT ?)');
    params.push(id, `${id}\uffff`, SEARCH_COUNT_CAP + 1);
  }
  // The index drives: it yields matches newest first (rowid order), so the page stops after `limit` rows.
  const from = match ? 'verification_search s JOIN verifications v ON v.rowid = s.rowid' : 'verifications v';
  const order = match ? 's.rowid DESC' : 'v.rowid DESC';
  if (match) {
    where.unshift('verification_search MATCH ?');
    params.unshift(match);
  }
  const cond = where.filter((w) => w !== '').join(' AND ');
  const rows = db
    .prepare(`SELECT v.result AS result FROM ${from} WHERE ${cond} ORDER BY ${order} LIMIT ? OFFSET ?`)
    .all(...params, input.limit, input.offset) as { result: string }[];
  const counted = (db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${cond} LIMIT ?)`).get(...params, SEARCH_COUNT_CAP + 1) as { n: number }).n;
  return page(
    rows.map((r) => r.result),
    Math.min(counted, SEARCH_COUNT_CAP),
    counted > SEARCH_COUNT_CAP,
    input,
  );
}

function page(json: string[], total: number, capped: boolean, input: SearchInput): HistorySearchOutput {
  return {
    data: json.map((r) => JSON.parse(r) as VerificationRecord),
    pagination: { total, totalCapped: capped, limit: input.limit, offset: input.offset, hasMore: capped || input.offset + json.length < total },
  };
}
