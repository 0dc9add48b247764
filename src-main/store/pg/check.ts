// `vconsole db check --database postgres://…`: the engine, the server, the schema version against this app's, and row
// counts. Reads only: an unmigrated database is reported, never migrated here.
import { appliedMigrations, judgeSchema, latestVersion, type SchemaState } from './migrate';
import type { PgPort } from './pg-port';

export interface PgCheck {
  engine: 'postgresql';
  database: string;
  server: string;
  schemaVersion: number;
  appSchemaVersion: number;
  schema: SchemaState['status'];
  problem: string | null;
  /** Whether the database folds case beyond ASCII (lower('Ä') = 'ä'): History search and email matching rely on it. */
  unicodeCase: boolean;
  rows: Record<string, number>;
}

export async function inspectPostgres(port: PgPort, countedTables: readonly string[]): Promise<PgCheck> {
  const server = (await port.get<{ v: string }>("SELECT current_setting('server_version') AS v"))!.v;
  const unicodeCase = (await port.get<{ ok: number }>("SELECT lower('ÄИ') = 'äи' AS ok"))!.ok === 1;
  const state = await port.withClient(async (c) => judgeSchema(await appliedMigrations(c)));
  const rows: Record<string, number> = {};
  if (state.status !== 'empty') {
    for (const t of countedTables) {
      const exists = await port.get<{ t: string | null }>('SELECT to_regclass(?)::text AS t', [t]);
      if (exists?.t) rows[t] = (await port.get<{ n: number }>(`SELECT count(*) AS n FROM "${t}"`))!.n;
    }
  }
  return {
    engine: 'postgresql',
    database: port.where,
    server,
    schemaVersion: state.version,
    appSchemaVersion: latestVersion(),
    schema: state.status,
    problem: 'problem' in state ? state.problem : state.status === 'empty' ? 'no schema yet: run `vconsole migrate --database URL` (or `vconsole db copy`)' : state.status === 'behind' ? 'migrations are pending: run `vconsole migrate --database URL`' : null,
    unicodeCase,
    rows,
  };
}
