// PostgreSQL migration 10: provenance columns and History search — the counterpart of SQLite's migration 10.
//
// SQLite keeps an FTS5 index (derived data, filled by triggers). PostgreSQL gets the same search from a GIN index
// over an expression, so nothing is copied or kept by triggers: vc_search_document() builds, from a row's own
// columns, the same terms FTS5 indexes, each tagged with its FTS5 column — `s` scope (organization and environment
// as one token), `i` identifier (separators removed), `n` the names compared and returned, `c` country — as
// lexemes taken verbatim (array_to_tsvector: no stemming, no stop words). A search asks for `'i0123':*` (prefix)
// and the like (store/pg/search.ts builds the query). Words are split at spaces and punctuation, accents removed
// (NFD, combining marks dropped), lower-cased by the database's locale: the same function normalises the search
// terms, so both sides agree whatever the locale. An expression index must find its functions while PostgreSQL
// maintains it with a restricted search_path, hence `SET search_path FROM CURRENT`. Released: never edit; add a new migration.
import type { PgMigration } from '../migrate';

export const pg010SearchProvenance: PgMigration = {
  version: 10,
  name: 'search-provenance',
  sql: `
ALTER TABLE verifications ADD COLUMN actor_type text CHECK (actor_type IN ('api_key','user','owner'));
ALTER TABLE verifications ADD COLUMN actor_id text;
ALTER TABLE verifications ADD COLUMN actor_label text;
ALTER TABLE verifications ADD COLUMN door text CHECK (door IN ('api','console','cli'));

CREATE FUNCTION vc_search_words(text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
  SELECT coalesce(array_agg(w), '{}'::text[])
  FROM regexp_split_to_table(
    lower(regexp_replace(normalize($1, NFD), '[\\u0300-\\u036f]+', '', 'g')),
    '[\\s\\x21-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7e\\u00a0-\\u00bf\\u00d7\\u00f7\\u2000-\\u206f\\u3000-\\u303f]+'
  ) AS w
  WHERE w <> ''
$fn$;

CREATE FUNCTION vc_search_document(organization_id text, environment text, identifier text, request text, result text, country text)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
-- Index maintenance runs with search_path = pg_catalog (PostgreSQL 17+): the schema the function was made in comes along.
SET search_path FROM CURRENT AS $fn$
  SELECT array_to_tsvector(
    ARRAY['s' || lower(replace(replace($1, '_', ''), '-', '')) || 'x' || $2]
    || ARRAY(SELECT 'i' || w FROM unnest(vc_search_words(translate($3, '+ -./()', ''))) AS w)
    || ARRAY(SELECT 'n' || w FROM unnest(vc_search_words(concat_ws(' ',
         $4::json #>> '{accountName}', $4::json #>> '{validation,firstName}', $4::json #>> '{validation,lastName}',
         $4::json #>> '{subject,firstName}', $4::json #>> '{subject,lastName}',
         $5::json #>> '{accountName}', $5::json #>> '{fullName}', $5::json #>> '{firstName}',
         $5::json #>> '{middleName}', $5::json #>> '{lastName}'))) AS w)
    || ARRAY(SELECT 'c' || w FROM unnest(vc_search_words($6)) AS w)
  )
$fn$;

CREATE INDEX verifications_search ON verifications
  USING gin (vc_search_document(organization_id, environment, identifier, request, result, country));
`,
};
