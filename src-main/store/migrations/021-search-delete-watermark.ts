// Migration 21: the delete trigger of migration 20 keeps the search index's watermark at or below the last rowid for
// every delete, not only for deletes of indexed rows (docs/console-live.md, "Search"). Released: never edit; add a
// new migration instead.
//
// Migration 20's trigger ran only for a row at or below the watermark, and lowered the watermark while that row's
// neighbours were still there. One statement (demo data removal) that deleted indexed rows and the unindexed rows
// above them — the newest — left the watermark above the last rowid: the next inserts reused those rowids, counted
// as indexed, and no search ever found them. Now the trigger runs for every deleted row, so the last one of a
// statement sees what is left; its index row is removed only when it had one (at or below the watermark), before
// the watermark comes down. A delete is rare (demo data removal): a lookup of the last rowid per row is cheap.
//
// A store hurt already is repaired: its watermark comes down to its last rowid, and rows at or below the watermark
// that the index does not hold (no entry in FTS5's own %_docsize table, one row per indexed rowid) are noted for
// the indexer, which indexes them.
import type { Migration } from '../migrations';

export const m021SearchDeleteWatermark: Migration = {
  version: 21,
  name: 'search-delete-watermark',
  sql: `
DROP TRIGGER verification_search_delete;
CREATE TRIGGER verification_search_delete AFTER DELETE ON verifications BEGIN
  DELETE FROM verification_search WHERE rowid = OLD.rowid
    AND OLD.rowid <= (SELECT indexed_through FROM verification_search_state WHERE id = 1);
  DELETE FROM verification_search_dirty WHERE verification_rowid = OLD.rowid;
  UPDATE verification_search_state SET indexed_through = (SELECT coalesce(max(rowid), 0) FROM verifications)
    WHERE id = 1 AND indexed_through > (SELECT coalesce(max(rowid), 0) FROM verifications);
END;

UPDATE verification_search_state SET indexed_through = (SELECT coalesce(max(rowid), 0) FROM verifications)
  WHERE id = 1 AND indexed_through > (SELECT coalesce(max(rowid), 0) FROM verifications);
INSERT OR IGNORE INTO verification_search_dirty (verification_rowid)
  SELECT v.rowid FROM verifications v
  WHERE v.rowid <= (SELECT indexed_through FROM verification_search_state WHERE id = 1)
    AND NOT EXISTS (SELECT 1 FROM verification_search_docsize d WHERE d.id = v.rowid);
`,
};
