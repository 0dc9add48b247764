// PostgreSQL migration 19: the write counter of `verifications` (migration 7) is dropped — every insert of every
// instance updated its one row, so concurrent checks conflicted under SERIALIZABLE and ran again until their retries
// ran out (found with eight concurrent sync checks on two instances). List pages count their rows each time on
// PostgreSQL (store/list-query.ts). The table stays (db copy and check read it). Released: never edit.
import type { PgMigration } from '../migrate';

export const pg019PgCounterOff: PgMigration = {
  version: 19,
  name: 'pg-counter-off',
  sql: `
DROP TRIGGER verifications_version_insert ON verifications;
DROP TRIGGER verifications_version_delete ON verifications;
DROP TRIGGER verifications_version_update ON verifications;
DROP FUNCTION vc_bump_table_version();
`,
};
