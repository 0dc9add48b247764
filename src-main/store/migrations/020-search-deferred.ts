// Migration 20: the History search index (migration 10) leaves the write path (issue 16, item 2). Its insert
// trigger wrote an FTS5 row — prefix indexes 2 to 6, ten json_extracts — inside every check's transaction: about
// 40 µs of the ≈ 230 µs of event-loop CPU per sync check, and most of the WAL frames of each group commit. Now the
// index is brought up to date in batches, by the service in the background and by every search before it reads
// the index (core/verification/search-index.ts), so a search answers exactly as before (docs/console-live.md).
// Released: never edit; add a new migration instead.
//
// - `verification_search_state.indexed_through`: the index holds every row whose rowid is at most this watermark
//   (set here to the current last rowid: the rows so far are indexed by migration 10's backfill and triggers);
//   rows above it are not indexed yet. The indexer indexes them in rowid order and moves the watermark.
// - `verification_search_dirty`: rowids already indexed whose searchable columns (identifier, request, result,
//   country) changed since — an async check completing, say. The trigger only notes the rowid (an integer key,
//   far cheaper than an FTS5 row); the indexer replaces their index rows.
// - Deleting an indexed row removes its index row and its dirty note at once, as before. A row above the watermark
//   was never indexed: the trigger does not run (FTS5 with contentless_delete=1 finds a row to delete through its
//   %_docsize entry and does nothing for a rowid it never held — tested — so this only saves the lookup). When the
//   deleted rows were the last ones, the next insert reuses their rowids (the table has no INTEGER PRIMARY KEY):
//   the watermark comes down to the last rowid left, so a reused rowid is above it and gets indexed.
// The names start with `verification_search_`: derived data beside the FTS5 table, never copied to PostgreSQL
// (store/pg/copy.ts) and without a PostgreSQL counterpart (PostgreSQL's search is an expression index kept by
// PostgreSQL itself; its migration 20 is a no-op).
import type { Migration } from '../migrations';

export const m020SearchDeferred: Migration = {
  version: 20,
  name: 'search-deferred',
  sql: `
DROP TRIGGER verification_search_insert;
DROP TRIGGER verification_search_update;
DROP TRIGGER verification_search_delete;

CREATE TABLE verification_search_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  indexed_through INTEGER NOT NULL
) STRICT;
INSERT INTO verification_search_state (id, indexed_through) SELECT 1, coalesce(max(rowid), 0) FROM verifications;

CREATE TABLE verification_search_dirty (
  verification_rowid INTEGER PRIMARY KEY
) STRICT;

CREATE TRIGGER verification_search_changed AFTER UPDATE OF identifier, request, result, country ON verifications
WHEN OLD.rowid <= (SELECT indexed_through FROM verification_search_state WHERE id = 1) BEGIN
  INSERT OR IGNORE INTO verification_search_dirty (verification_rowid) VALUES (OLD.rowid);
END;

CREATE TRIGGER verification_search_delete AFTER DELETE ON verifications
WHEN OLD.rowid <= (SELECT indexed_through FROM verification_search_state WHERE id = 1) BEGIN
  DELETE FROM verification_search WHERE rowid = OLD.rowid;
  DELETE FROM verification_search_dirty WHERE verification_rowid = OLD.rowid;
  UPDATE verification_search_state SET indexed_through = (SELECT coalesce(max(rowid), 0) FROM verifications)
    WHERE id = 1 AND indexed_through > (SELECT coalesce(max(rowid), 0) FROM verifications);
END;
`,
};
