// PostgreSQL migration 7: a write counter per listed table — the counterpart of SQLite's migration 7. SQLite's
// triggers add one per row written; here one statement-level trigger per operation adds the number of rows the
// statement wrote (transition tables), the same count in one UPDATE per statement. Released: never edit.
import type { PgMigration } from '../migrate';

export const pg007TableVersions: PgMigration = {
  version: 7,
  name: 'table-versions',
  sql: `
CREATE TABLE table_versions (
  name text PRIMARY KEY,
  version bigint NOT NULL
);
INSERT INTO table_versions (name, version) VALUES ('verifications', 0);

CREATE FUNCTION vc_bump_table_version() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE n bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT count(*) INTO n FROM old_rows;
  ELSE
    SELECT count(*) INTO n FROM new_rows;
  END IF;
  IF n > 0 THEN
    UPDATE table_versions SET version = version + n WHERE name = TG_ARGV[0];
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER verifications_version_insert AFTER INSERT ON verifications
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vc_bump_table_version('verifications');
CREATE TRIGGER verifications_version_delete AFTER DELETE ON verifications
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION vc_bump_table_version('verifications');
CREATE TRIGGER verifications_version_update AFTER UPDATE ON verifications
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vc_bump_table_version('verifications');
`,
};
