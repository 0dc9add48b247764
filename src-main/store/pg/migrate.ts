// PostgreSQL migrations: versioned, forward-only, numbered as SQLite's (store/migrations.ts) so that "schema version
// N" means the same tables on both engines. The rules are SQLite's too (store/database.ts): every migration is
// recorded in schema_migrations with a SHA-256 of its text; a database whose applied migrations changed, or that a
// newer app wrote, is refused; pending ones are applied in one transaction.
//
// Many instances may start at once against one database: the runner holds a session-level advisory lock while it
// reads and applies, so one instance migrates and the others wait for it, then find nothing left to do.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PgPort } from './pg-port';
import { pg001Foundation } from './migrations/001-foundation';
import { pg002Billing } from './migrations/002-billing';
import { pg003Webhooks } from './migrations/003-webhooks';
import { pg004Routing } from './migrations/004-routing';
import { pg005Providers } from './migrations/005-providers';
import { pg006UserStatus } from './migrations/006-user-status';
import { pg007TableVersions } from './migrations/007-table-versions';
import { pg008SealedWebhookSecrets } from './migrations/008-sealed-webhook-secrets';
import { pg009ProviderCa } from './migrations/009-provider-ca';
import { pg010SearchProvenance } from './migrations/010-search-provenance';
import { pg011WebhookOps } from './migrations/011-webhook-ops';
import { pg013Audit } from './migrations/013-audit';
import { pg014DemoData } from './migrations/014-demo-data';
import { pg015ConsoleSessions } from './migrations/015-console-sessions';
import { pg016PartialQueueIndexes } from './migrations/016-partial-queue-indexes';
import { pg017RateLimitWindows } from './migrations/017-rate-limit-windows';
import { pg018ChangeNotifications } from './migrations/018-change-notifications';
import { pg019PgCounterOff } from './migrations/019-pg-counter-off';
import { pg020SearchDeferred } from './migrations/020-search-deferred';
import { pg021SearchDeleteWatermark } from './migrations/021-search-delete-watermark';
import { pg022DeliveriesByWebhook } from './migrations/022-deliveries-by-webhook';
import { pg023DeliveriesByStatus } from './migrations/023-deliveries-by-status';
import { pg024VerificationsStatusCovering } from './migrations/024-verifications-status-covering';
import { pg025DeliveriesListOrder } from './migrations/025-deliveries-list-order';
import { pg026LoginReservations } from './migrations/026-login-reservations';
import { pg027AuditChainsBeforeTrail } from './migrations/027-audit-chains-before-trail';

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

/** All PostgreSQL migrations in order: one per SQLite migration, same version and name (a test keeps them paired). */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  pg001Foundation,
  pg002Billing,
  pg003Webhooks,
  pg004Routing,
  pg005Providers,
  pg006UserStatus,
  pg007TableVersions,
  pg008SealedWebhookSecrets,
  pg009ProviderCa,
  pg010SearchProvenance,
  pg011WebhookOps,
  pg013Audit,
  pg014DemoData,
  pg015ConsoleSessions,
  pg016PartialQueueIndexes,
  pg017RateLimitWindows,
  pg018ChangeNotifications,
  pg019PgCounterOff,
  pg020SearchDeferred,
  pg021SearchDeleteWatermark,
  pg022DeliveriesByWebhook,
  pg023DeliveriesByStatus,
  pg024VerificationsStatusCovering,
  pg025DeliveriesListOrder,
  pg026LoginReservations,
  pg027AuditChainsBeforeTrail,
];

/** The advisory lock every migrator (and `db copy`) of this app takes: two int4 keys, "vc" and 1. */
export const MIGRATION_LOCK = [0x7663, 1] as const;

export class PgSchemaError extends Error {
  override name = 'PgSchemaError';
}

export function pgMigrationHash(m: PgMigration): string {
  return createHash('sha256').update(`${m.version}\n${m.name}\n${m.sql}`).digest('hex');
}

export function latestVersion(migrations: readonly PgMigration[] = PG_MIGRATIONS): number {
  return migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version;
}

const CREATE_SCHEMA_MIGRATIONS = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version bigint PRIMARY KEY, name text NOT NULL, hash text NOT NULL, applied_at text NOT NULL)`;

export interface AppliedMigration {
  version: number;
  name: string;
  hash: string;
  applied_at: string;
}

/** The migrations recorded in the database (none when it has no schema_migrations table yet). */
export async function appliedMigrations(client: Pick<pg.ClientBase, 'query'>): Promise<AppliedMigration[]> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
  if (!exists.rows[0]?.t) return [];
  const r = await client.query<{ version: string; name: string; hash: string; applied_at: string }>('SELECT version, name, hash, applied_at FROM schema_migrations ORDER BY version');
  return r.rows.map((x) => ({ version: Number(x.version), name: x.name, hash: x.hash, applied_at: x.applied_at }));
}

export type SchemaState =
  | { status: 'empty'; version: 0 }
  | { status: 'current' | 'behind'; version: number }
  | { status: 'newer' | 'changed'; version: number; problem: string };

/** Where a database stands against this app's migrations (the same judgement the runner makes). */
export function judgeSchema(applied: AppliedMigration[], migrations: readonly PgMigration[] = PG_MIGRATIONS): SchemaState {
  if (applied.length === 0) return { status: 'empty', version: 0 };
  const version = applied[applied.length - 1]!.version;
  const latest = latestVersion(migrations);
  if (version > latest) return { status: 'newer', version, problem: `The database is at schema version ${version}, newer than this app (${latest}). Update the app; refusing to use it.` };
  for (const row of applied) {
    const m = migrations.find((x) => x.version === row.version);
    if (!m || pgMigrationHash(m) !== row.hash) {
      return { status: 'changed', version, problem: `Migration ${row.version} (${row.name}) was changed after it ran. Migrations are forward-only; add a new one.` };
    }
  }
  return { status: version === latest ? 'current' : 'behind', version };
}

export interface MigrateResult {
  from: number;
  to: number;
  applied: { version: number; name: string }[];
  /** Another migrator held the lock when this one arrived: it waited for it. */
  waited: boolean;
}

export interface MigrateOptions {
  migrations?: readonly PgMigration[];
  /** Called once if another migrator holds the lock (the CLI says it is waiting). */
  onWait?: () => void;
  /** Tests: runs with the lock held, before anything is read (to hold a second migrator at the door). */
  lockedForTests?: () => Promise<void>;
}

/** Applies pending migrations under the advisory lock. Refuses a newer or changed schema (PgSchemaError). */
export async function migratePostgres(port: PgPort, o: MigrateOptions = {}): Promise<MigrateResult> {
  const migrations = o.migrations ?? PG_MIGRATIONS;
  return port.withClient(async (client, markBroken) => {
    let waited = false;
    const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [...MIGRATION_LOCK]);
    if (!got.rows[0]?.ok) {
      waited = true;
      o.onWait?.();
      await client.query('SELECT pg_advisory_lock($1, $2)', [...MIGRATION_LOCK]);
    }
    try {
      await o.lockedForTests?.();
      await client.query(CREATE_SCHEMA_MIGRATIONS);
      const applied = await appliedMigrations(client);
      const state = judgeSchema(applied, migrations);
      if (state.status === 'newer' || state.status === 'changed') throw new PgSchemaError(state.problem);
      const from = state.version;
      const pending = migrations.filter((m) => m.version > from);
      if (pending.length > 0) {
        await client.query('BEGIN');
        let current = pending[0]!;
        try {
          for (const m of pending) {
            current = m;
            await client.query(m.sql);
            await client.query('INSERT INTO schema_migrations (version, name, hash, applied_at) VALUES ($1, $2, $3, $4)', [m.version, m.name, pgMigrationHash(m), new Date().toISOString()]);
          }
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new PgSchemaError(`PostgreSQL migration ${current.version} (${current.name}) failed: ${(e as Error).message}. Nothing was applied (the database stays at version ${from}).`, { cause: e });
        }
      }
      return { from, to: latestVersion(migrations), applied: pending.map((m) => ({ version: m.version, name: m.name })), waited };
    } finally {
      // A lock that could not be released must not go back to the pool with its connection (a session-level lock
      // lives as long as the session): the connection is closed, which releases it.
      await client.query('SELECT pg_advisory_unlock($1, $2)', [...MIGRATION_LOCK]).catch((e: unknown) => markBroken(e instanceof Error ? e : new Error(String(e))));
    }
  });
}
