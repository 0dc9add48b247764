// PostgreSQL migrations (docs/team-server.md): on an empty database, again (nothing to do), the refusals SQLite
// makes (a changed migration, a newer schema), two migrators at once under the advisory lock, and the integrity
// rules SQLite enforces with triggers, here as constraints and triggers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';
import { createPgPort, type PgPort } from '../../../src-main/store/pg/pg-port';
import { MIGRATION_LOCK, migratePostgres, PG_MIGRATIONS, PgSchemaError } from '../../../src-main/store/pg/migrate';
import { MIGRATIONS } from '../../../src-main/store/migrations';

const dbs: TestDatabase[] = [];
const ports: PgPort[] = [];
async function fresh(): Promise<PgPort> {
  const db = await freshDatabase();
  dbs.push(db);
  const port = createPgPort(db.url);
  ports.push(port);
  return port;
}

afterAll(async () => {
  for (const p of ports) await p.close();
  for (const d of dbs) await d.drop();
});

describe('PostgreSQL migrations', () => {
  it('pair with the SQLite migrations one for one: same versions, same names', () => {
    expect(PG_MIGRATIONS.map((m) => [m.version, m.name])).toEqual(MIGRATIONS.map((m) => [m.version, m.name]));
  });

  it('migrate an empty database to the latest version, then find nothing to do', async () => {
    const port = await fresh();
    const first = await migratePostgres(port);
    expect(first.from).toBe(0);
    expect(first.to).toBe(MIGRATIONS[MIGRATIONS.length - 1]!.version);
    expect(first.applied.map((m) => m.version)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    const again = await migratePostgres(port);
    expect(again).toEqual({ from: first.to, to: first.to, applied: [], waited: false });
    const rows = await port.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((m) => m.version));
  });

  it('refuse a database whose applied migration changed, or that a newer app wrote', async () => {
    const port = await fresh();
    await migratePostgres(port);
    const edited = PG_MIGRATIONS.map((m) => (m.version === 3 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
    await expect(migratePostgres(port, { migrations: edited })).rejects.toThrow(/Migration 3 \(webhooks\) was changed after it ran/);
    await port.run('INSERT INTO schema_migrations (version, name, hash, applied_at) VALUES (?, ?, ?, ?)', [999, 'future', 'x', new Date().toISOString()]);
    const err = await migratePostgres(port).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PgSchemaError);
    expect((err as Error).message).toMatch(/schema version 999, newer than this app/);
  });

  it('keep the tables in a schema of their own when the URL sets search_path (docs/team-server.md, "Set-up")', async () => {
    const port = await fresh();
    await port.exec('CREATE SCHEMA vc_team');
    const u = new URL(dbs[dbs.length - 1]!.url);
    u.searchParams.set('options', '-c search_path=vc_team');
    const scoped = createPgPort(u.toString());
    ports.push(scoped);
    await migratePostgres(scoped);
    expect(await port.all("SELECT DISTINCT table_schema AS s FROM information_schema.tables WHERE table_name IN ('verifications', 'schema_migrations', 'audit_events')")).toEqual([{ s: 'vc_team' }]);
    // The search index's functions are found during maintenance although they live outside public.
    await scoped.run("INSERT INTO organizations (id, name, created_at) VALUES ('org_s', 's', 'x')");
    await scoped.run(
      "INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode, request, created_at) VALUES ('ver_s', 'org_s', 'live', 'account', 'account', 'NG', '0123', 'success', 'sync', '{}', 'x')",
    );
    await scoped.exec('REINDEX TABLE verifications');
    expect((await migratePostgres(scoped)).applied).toEqual([]);
  });

  it('a failing migration applies nothing', async () => {
    const port = await fresh();
    const broken = [...PG_MIGRATIONS.slice(0, 2), { version: 3, name: 'webhooks', sql: 'CREATE TABLE nope (x int); SELECT no_such_function();' }];
    await expect(migratePostgres(port, { migrations: broken })).rejects.toThrow(/migration 3 \(webhooks\) failed: .*no_such_function.*stays at version 0/);
    expect(await port.get("SELECT to_regclass('organizations')::text AS t")).toEqual({ t: null });
    expect(await port.all('SELECT version FROM schema_migrations')).toEqual([]);
  });

  it('two migrators at once: one migrates, the other waits for the lock and then finds nothing to do', async () => {
    const db = await freshDatabase();
    dbs.push(db);
    const a = createPgPort(db.url);
    const b = createPgPort(db.url);
    ports.push(a, b);
    let bWaiting = false;
    let secondResult: ReturnType<typeof migratePostgres> | undefined;
    // A holds the lock until B is seen waiting on it in pg_locks: the order is forced, not left to timing.
    const first = migratePostgres(a, {
      lockedForTests: async () => {
        const second = migratePostgres(b, { onWait: () => (bWaiting = true) });
        secondResult = second;
        for (;;) {
          const w = await a.get<{ n: number }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = ? AND objid = ?", [MIGRATION_LOCK[0], MIGRATION_LOCK[1]]);
          if (w && w.n > 0) break;
          await new Promise((r) => setTimeout(r, 10));
        }
      },
    });
    const ra = await first;
    const rb = await secondResult!;
    expect(bWaiting).toBe(true);
    expect(ra.applied).toHaveLength(PG_MIGRATIONS.length);
    expect(ra.waited).toBe(false);
    expect(rb.applied).toEqual([]);
    expect(rb.waited).toBe(true);
    expect((await a.get<{ n: number }>('SELECT count(*) AS n FROM schema_migrations'))!.n).toBe(PG_MIGRATIONS.length);
  });
});

describe('integrity rules on PostgreSQL', () => {
  let port: PgPort;
  beforeAll(async () => {
    port = await fresh();
    await migratePostgres(port);
    const now = new Date().toISOString();
    await port.run('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)', ['org_1', 'One', now]);
    await port.run("INSERT INTO wallets (organization_id, balance, currency, status, created_at, updated_at) VALUES ('org_1', 100, 'USD', 'active', ?, ?)", [now, now]);
    await port.run("INSERT INTO ledger_entries (id, organization_id, amount, currency, kind, created_at) VALUES ('led_t', 'org_1', 100, 'USD', 'topup', ?)", [now]);
    await port.run("INSERT INTO ledger_entries (id, organization_id, amount, currency, kind, verification_id, created_at) VALUES ('led_c', 'org_1', -25, 'USD', 'charge', 'ver_1', ?)", [now]);
    await port.run("INSERT INTO ledger_entries (id, organization_id, amount, currency, kind, verification_id, refers_to, created_at) VALUES ('led_r', 'org_1', 25, 'USD', 'reversal', 'ver_1', 'led_c', ?)", [now]);
  });

  it('the wallet never goes below zero', async () => {
    await expect(port.run("UPDATE wallets SET balance = -1 WHERE organization_id = 'org_1'")).rejects.toThrow(/wallets_balance_check/);
  });

  it('the ledger is append-only and a charge has one reversal at most', async () => {
    await expect(port.run("UPDATE ledger_entries SET amount = 1 WHERE id = 'led_t'")).rejects.toThrow('ledger entries are append-only');
    await expect(port.run("DELETE FROM ledger_entries WHERE id = 'led_t'")).rejects.toThrow('ledger entries are append-only');
    await expect(port.exec('TRUNCATE ledger_entries CASCADE')).rejects.toThrow('ledger entries are append-only');
    await expect(
      port.run("INSERT INTO ledger_entries (id, organization_id, amount, currency, kind, refers_to, created_at) VALUES ('led_r2', 'org_1', 25, 'USD', 'reversal', 'led_c', 'x')"),
    ).rejects.toThrow(/ledger_entries_refers_to_key/);
    await expect(port.run("INSERT INTO ledger_entries (id, organization_id, amount, currency, kind, created_at) VALUES ('led_bad', 'org_1', 5, 'USD', 'charge', 'x')")).rejects.toThrow(/check/);
    await expect(port.run("INSERT INTO ledger_entries (id, organization_id, amount, currency, kind, created_at) VALUES ('led_bad', 'org_1', 5, 'USD', 'reversal', 'x')")).rejects.toThrow(/check/);
  });

  it('audit entries are append-only; retention deletes only inside its guarded transaction', async () => {
    const ins = "INSERT INTO audit_events (organization_id, seq, id, at, actor_type, actor_label, door, action, detail, prev_hash, hash) VALUES ('org_1', ?, ?, 'x', 'system', 'system', 'system', 'a', '{}', 'p', 'h')";
    await port.run(ins, [1, 'aud_1']);
    await port.run(ins, [2, 'aud_2']);
    await expect(port.run("UPDATE audit_events SET action = 'b' WHERE seq = 1")).rejects.toThrow('audit events are append-only');
    await expect(port.run('DELETE FROM audit_events WHERE seq = 1')).rejects.toThrow('audit events are append-only');
    await expect(port.exec('TRUNCATE audit_events')).rejects.toThrow('audit events are append-only');
    const removed = await port.transaction(async (tx) => {
      await tx.run('INSERT INTO audit_prune_guard (active) VALUES (1)');
      const r = await tx.run('DELETE FROM audit_events WHERE seq <= 1');
      await tx.run('DELETE FROM audit_prune_guard');
      return r.changes;
    });
    expect(removed).toBe(1);
    await expect(port.run('DELETE FROM audit_events WHERE seq = 2')).rejects.toThrow('audit events are append-only');
  });

  it('emails are unique whatever their case, and found whatever their case (SQLite: COLLATE NOCASE)', async () => {
    await port.run("INSERT INTO users (id, organization_id, email, password_hash, role, created_at) VALUES ('usr_1', 'org_1', 'Ann@Example.com', 'h', 'OWNER', 'x')");
    await expect(port.run("INSERT INTO users (id, organization_id, email, password_hash, role, created_at) VALUES ('usr_2', 'org_1', 'ann@example.COM', 'h', 'OWNER', 'x')")).rejects.toThrow(/users_email_key/);
    expect(await port.get('SELECT id FROM users WHERE email = ?', ['ANN@example.com'])).toEqual({ id: 'usr_1' });
  });

  it('keep no write counter for verifications since migration 19 (writers of every instance would serialise on its row)', async () => {
    const v0 = (await port.get<{ version: number }>("SELECT version FROM table_versions WHERE name = 'verifications'"))!.version;
    const row = (id: string) =>
      port.run(
        "INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode, request, created_at) VALUES (?, 'org_1', 'sandbox', 'account', 'account', 'NG', '0123', 'success', 'sync', '{}', 'x')",
        [id],
      );
    await row('ver_a');
    await row('ver_b');
    await port.run("UPDATE verifications SET status = 'failed' WHERE organization_id = 'org_1'");
    await port.run("UPDATE verifications SET status = 'failed' WHERE id = 'none'");
    await port.run("DELETE FROM verifications WHERE id = 'ver_a'");
    expect((await port.get<{ version: number }>("SELECT version FROM table_versions WHERE name = 'verifications'"))!.version).toBe(v0);
    expect(await port.get("SELECT 1 AS found FROM pg_trigger WHERE tgname LIKE 'verifications_version_%'")).toBeUndefined();
  });
});
