// Migration 10: who ran each verification and through which door (provenance), and the History search index
// (docs/console-live.md). Released: never edit; add a new migration instead.
//
// - Provenance columns on `verifications`: the actor (an API key, a signed-in user, or the installation's owner
//   acting through the console or the CLI), a label to show (the key's name or the user's email, as it was when the
//   check ran) and the door. Rows from before this migration have none (NULL: "not recorded").
// - `verification_search`: an FTS5 index over what an analyst types to find a check — the identifier (account
//   number, phone, ID number) with its separators removed, for prefix search; the names compared and returned; the
//   country; and the row's organization and environment as one token (`scope`), so that a search is answered
//   from the index alone, never reading the rows it skips. Contentless (the text lives in `verifications`),
//   rowid = the verification's rowid, prefix indexes for 2 to 6 characters (a prefix of an indexed length reads
//   one list instead of merging every term it covers), kept current by triggers in the same transaction as the row,
//   backfilled here for existing rows.
import type { Migration } from '../migrations';

// The identifier as one searchable token: letters and digits only, lower case ("+234 801-234" → "234801234").
const IDENT = (col: string) =>
  `lower(replace(replace(replace(replace(replace(replace(replace(${col}, '+', ''), ' ', ''), '-', ''), '.', ''), '/', ''), '(', ''), ')', ''))`;

// The names a check compared (request: a CoP/VoP account name, identity validation names, an address subject) and
// the names it returned (result), space-separated.
const REQUEST_NAMES = ['$.accountName', '$.validation.firstName', '$.validation.lastName', '$.subject.firstName', '$.subject.lastName'];
const RESULT_NAMES = ['$.accountName', '$.fullName', '$.firstName', '$.middleName', '$.lastName'];
const NAMES = (req: string, res: string) =>
  `trim(${[...REQUEST_NAMES.map((f) => `coalesce(json_extract(${req}, '${f}'), '')`), ...RESULT_NAMES.map((f) => `coalesce(json_extract(${res}, '${f}'), '')`)].join(` || ' ' || `)})`;

// Organization and environment as one token ("org_ab12" + "sandbox" → "orgab12xsandbox"); search.ts builds the same.
const SCOPE = (r: string) => `lower(replace(replace(${r}.organization_id, '_', ''), '-', '')) || 'x' || ${r}.environment`;

const DOC = (r: string) => `${SCOPE(r)}, ${IDENT(`${r}.identifier`)}, ${NAMES(`${r}.request`, `${r}.result`)}, lower(${r}.country)`;
const COLUMNS = 'rowid, scope, ident, names, country';

/**
 * The index's columns and one row's document (`r`: the row's alias), as the triggers below wrote them. Migration 20
 * took the index off the write path: its indexer (core/verification/search-index.ts) builds rows with these, so both
 * keep one definition. Exported only; the SQL of this migration is unchanged.
 */
export const SEARCH_INDEX_COLUMNS = COLUMNS;
export const searchDocumentSql = (r: string): string => DOC(r);

/** Indexes every verification (the migration's backfill). */
export const SEARCH_BACKFILL_SQL = `INSERT INTO verification_search (${COLUMNS})
  SELECT v.rowid, ${DOC('v')} FROM verifications v;`;

export const m010SearchProvenance: Migration = {
  version: 10,
  name: 'search-provenance',
  sql: `
ALTER TABLE verifications ADD COLUMN actor_type TEXT CHECK (actor_type IN ('api_key','user','owner'));
ALTER TABLE verifications ADD COLUMN actor_id TEXT;
ALTER TABLE verifications ADD COLUMN actor_label TEXT;
ALTER TABLE verifications ADD COLUMN door TEXT CHECK (door IN ('api','console','cli'));

CREATE VIRTUAL TABLE verification_search USING fts5(
  scope, ident, names, country,
  content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '2 3 4 5 6'
);
${SEARCH_BACKFILL_SQL}

CREATE TRIGGER verification_search_insert AFTER INSERT ON verifications BEGIN
  INSERT INTO verification_search (${COLUMNS}) VALUES (NEW.rowid, ${DOC('NEW')});
END;
CREATE TRIGGER verification_search_update AFTER UPDATE OF identifier, request, result, country ON verifications BEGIN
  DELETE FROM verification_search WHERE rowid = OLD.rowid;
  INSERT INTO verification_search (${COLUMNS}) VALUES (NEW.rowid, ${DOC('NEW')});
END;
CREATE TRIGGER verification_search_delete AFTER DELETE ON verifications BEGIN
  DELETE FROM verification_search WHERE rowid = OLD.rowid;
END;
`,
};
