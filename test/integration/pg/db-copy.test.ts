// Moving a desktop store up (docs/team-server.md): a SQLite store filled by the real service — two organizations,
// keys created and revoked, sandbox and live checks (charges, reversals of inconclusive answers, async ones through
// the queue), webhooks with deliveries to a local receiver, audit entries — copied by `vconsole db copy` into an
// empty PostgreSQL database. Then every row is compared, the audit chains verify on PostgreSQL and the balances
// match, identity columns continue, and a second copy into the now non-empty target is refused. `vconsole db
// check` and `vconsole migrate` on both engines; `serve --database` refuses in one line.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src-main/cli/main';
import { runWithAudit } from '../../../src-main/core/audit/audit-context';
import { createKey, revokeKey } from '../../../src-main/core/keys/keys-service';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { checkStoreInvariants } from '../../../src-main/core/store-invariants';
import { openDatabase } from '../../../src-main/store/database';
import { MIGRATIONS } from '../../../src-main/store/migrations';
import { createPgPort, type PgPort } from '../../../src-main/store/pg/pg-port';
import { createSqlitePort } from '../../../src-main/store/sqlite-port';
import { storeFile } from '../../../src-main/store/store-open';
import { api, enableLive, newKey, NG_OK, TEST_PASSWORD } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';
import { receiverAndService, registerWebhook, until } from '../webhooks/helpers';

const NG_INCONCLUSIVE = { country: 'NG', accountNumber: '0999999995', bankCode: '058' } as const;
const NG_NOT_FOUND = { country: 'NG', accountNumber: '0000000000', bankCode: '058' } as const;

/** Runs the CLI in this process, capturing what it prints. */
async function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; out: string; err: string }> {
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries({ VCONSOLE_DATABASE_URL: undefined, VCONSOLE_DATA_DIR: undefined, ...env })) {
    saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  const [ow, ew] = [process.stdout.write, process.stderr.write];
  let out = '';
  let err = '';
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((err += s), true)) as typeof process.stderr.write;
  try {
    return { code: await main(args), out, err };
  } finally {
    process.stdout.write = ow;
    process.stderr.write = ew;
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

let dataDir: string;
const dbs: TestDatabase[] = [];
const ports: PgPort[] = [];
async function freshPg(): Promise<{ db: TestDatabase; port: PgPort }> {
  const db = await freshDatabase();
  dbs.push(db);
  const port = createPgPort(db.url);
  ports.push(port);
  return { db, port };
}

/** Fills a store through the running service, as a user and clients would, then stops it. */
async function populate(): Promise<string> {
  const { receiver, ts } = await receiverAndService({ dataDir: mkdtempSync(join(tmpdir(), 'vc-copy-')) });
  const deps = ts.service.deps;
  const orgA = await bootstrap(deps, { email: `owner-${newKey().slice(5, 13)}@example.com`, password: TEST_PASSWORD, organizationName: 'Desk One' });
  const orgB = await bootstrap(deps, { email: `Owner-B-${newKey().slice(5, 13)}@Example.com`, password: TEST_PASSWORD, organizationName: 'Desk Two — Ünïcode' });
  for (const org of [orgA, orgB]) await enableLive(ts, 'account:NG', { organizationId: org.organizationId, balance: 10_000, price: 25 });
  // Keys created and revoked from the command line's door (audited as such).
  await runWithAudit({ door: 'cli', actor: { type: 'cli', id: null, label: 'test (command line)' } }, async () => {
    const p = { kind: 'console' as const, organizationId: orgA.organizationId, environment: 'live' as const, role: 'OWNER' as const, door: 'cli' as const };
    const k = await createKey(deps, p, { name: 'ci "runner"', environment: 'live' });
    await revokeKey(deps, orgA.organizationId, k.id);
  });
  const hooks = [];
  for (const org of [orgA, orgB]) {
    hooks.push(await registerWebhook(ts, org.keys.sandbox.key, `${receiver.url}/hook-${org.organizationId}`));
    hooks.push(await registerWebhook(ts, org.keys.live.key, `${receiver.url}/live-${org.organizationId}`));
  }
  let asyncCount = 0;
  for (const org of [orgA, orgB]) {
    for (const [key, body] of [
      [org.keys.sandbox.key, NG_OK],
      [org.keys.sandbox.key, { ...NG_OK, mode: 'async' }],
      [org.keys.live.key, NG_OK],
      [org.keys.live.key, NG_OK],
      [org.keys.live.key, NG_INCONCLUSIVE],
      [org.keys.live.key, NG_NOT_FOUND],
      [org.keys.live.key, { ...NG_INCONCLUSIVE, mode: 'async' }],
      [org.keys.live.key, { ...NG_OK, mode: 'async', accountNumber: '0123456788' }],
    ] as const) {
      const r = await api(ts.url, 'POST', '/verify/account', { key, idem: newKey(), body });
      expect([200, 202], r.text).toContain(r.status);
      if (r.status === 202) asyncCount += 1;
    }
  }
  // Everything settles: async checks done, every event fanned out, every delivery answered.
  await until(() => (deps.db!.prepare("SELECT count(*) AS n FROM verifications WHERE status = 'pending'").get() as { n: number }).n === 0, 'async checks');
  await until(() => (deps.db!.prepare('SELECT count(*) AS n FROM outbox_events WHERE dispatched_at IS NULL').get() as { n: number }).n === 0, 'outbox');
  await until(() => {
    const d = deps.db!.prepare("SELECT count(*) AS n, sum(status = 'success') AS ok FROM webhook_deliveries").get() as { n: number; ok: number | null };
    return d.n > 0 && d.n === d.ok;
  }, 'deliveries');
  expect(asyncCount).toBe(6);
  await ts.stop({ keepDir: true });
  await receiver.close();
  return ts.dataDir;
}

const tableNames = (db: Database.Database) =>
  (db.prepare("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name").all() as { name: string }[]).map(
    (r) => r.name,
  );

const canon = (rows: Record<string, unknown>[]) => rows.map((r) => JSON.stringify(r)).sort();

beforeAll(async () => {
  dataDir = await populate();
}, 120_000);

afterAll(async () => {
  for (const p of ports) await p.close();
  for (const d of dbs) await d.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('vconsole db copy', () => {
  let url: string;
  let port: PgPort;

  it('copies a populated store whole into an empty PostgreSQL database, in one checked transaction', async () => {
    ({ db: { url }, port } = await freshPg());
    const r = await cli(['db', 'copy', '--from', dataDir, '--to', url, '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { rows: number; schemaVersion: number; to: string; tables: { name: string; rows: number }[]; checks: { organizations: number; auditEntries: number; wallets: number } };
    expect(report.schemaVersion).toBe(MIGRATIONS[MIGRATIONS.length - 1]!.version);
    expect(report.to).not.toContain(new URL(url).password);
    expect(report.checks.organizations).toBe(2);
    expect(report.checks.wallets).toBe(2);
    expect(report.checks.auditEntries).toBeGreaterThan(8);
    // The store was really populated: every kind of row the brief names is there.
    const byName = Object.fromEntries(report.tables.map((t) => [t.name, t.rows]));
    for (const t of ['organizations', 'users', 'api_keys', 'verifications', 'ledger_entries', 'usage_records', 'webhooks', 'outbox_events', 'webhook_deliveries', 'webhook_attempts', 'audit_events', 'jobs', 'idempotency_keys']) {
      expect(byName[t], t).toBeGreaterThan(0);
    }
    expect(byName['verification_search'] ?? byName['verification_search_data']).toBeUndefined();
    // The copy is analyzed (a manual ANALYZE, not autovacuum's): a service's first queries plan with its statistics.
    await until(async () => {
      const rows = await port.all<{ relname: string }>(
        "SELECT relname FROM pg_stat_user_tables WHERE relname IN ('webhook_deliveries', 'verifications', 'jobs') AND last_analyze IS NOT NULL",
      );
      return rows.length === 3;
    }, 'the copied tables analyzed');
  });

  it('leaves every row identical, value for value, in every table', async () => {
    const sqlite = new Database(storeFile(dataDir), { readonly: true });
    const src = createSqlitePort(sqlite);
    try {
      const tables = tableNames(sqlite).filter((t) => !t.startsWith('verification_search'));
      expect(tables.length).toBeGreaterThan(30);
      for (const t of tables) {
        const cols = (sqlite.prepare(`SELECT name FROM pragma_table_info(?)`).all(t) as { name: string }[]).map((c) => `"${c.name}"`).join(', ');
        const here = await src.all(`SELECT ${cols} FROM "${t}"`);
        const there = await port.all(`SELECT ${cols} FROM "${t}"`);
        expect(canon(there), t).toEqual(canon(here));
      }
      const ledger = await src.get<{ charges: number; reversals: number }>("SELECT sum(kind = 'charge') AS charges, sum(kind = 'reversal') AS reversals FROM ledger_entries");
      expect(ledger!.charges).toBeGreaterThan(4);
      expect(ledger!.reversals).toBeGreaterThan(1);
    } finally {
      sqlite.close();
    }
  });

  it('leaves audit chains that verify on PostgreSQL and balances that match the ledger', async () => {
    const pgSide = await checkStoreInvariants(port);
    expect(pgSide.problems).toEqual([]);
    expect(pgSide.audit.map((a) => a.ok)).toEqual([true, true]);
    const sqlite = openDatabase(storeFile(dataDir));
    try {
      const sqliteSide = await checkStoreInvariants(createSqlitePort(sqlite));
      expect(pgSide.audit.map((a) => [a.organizationId, a.entries, a.head])).toEqual(sqliteSide.audit.map((a) => [a.organizationId, a.entries, a.head]));
      expect(pgSide.wallets).toEqual(sqliteSide.wallets);
      expect(pgSide.wallets.every((w) => w.balance < 10_000 && w.balance === w.ledgerSum)).toBe(true);
    } finally {
      sqlite.close();
    }
  });

  it('continues identity columns after the highest copied value', async () => {
    const max = (await port.get<{ m: number }>('SELECT max(seq) AS m FROM webhook_attempts'))!.m;
    const delivery = (await port.get<{ id: string }>('SELECT id FROM webhook_deliveries LIMIT 1'))!.id;
    const r = await port.get<{ seq: number }>("INSERT INTO webhook_attempts (delivery_id, kind, url, started_at, duration_ms) VALUES (?, 'manual', 'http://x', 'now', 1) RETURNING seq", [delivery]);
    expect(r!.seq).toBe(max + 1);
    await port.run('DELETE FROM webhook_attempts WHERE seq = ?', [r!.seq]);
  });

  it('refuses a target that is not empty, and changes nothing in it', async () => {
    const before = (await port.get<{ n: number }>('SELECT count(*) AS n FROM verifications'))!.n;
    const r = await cli(['db', 'copy', '--from', storeFile(dataDir), '--to', url]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^vconsole: db copy refused: the target database postgres:\/\/.*\*\*\*.* is not empty \(table \w+ has \d+ rows?\)\. db copy only copies into an empty team database/);
    expect(r.err.split('\n').filter(Boolean)).toHaveLength(1);
    expect((await port.get<{ n: number }>('SELECT count(*) AS n FROM verifications'))!.n).toBe(before);
  });

  it.each([
    ['tables of its own', 'CREATE TABLE invoices (id bigint PRIMARY KEY)', ['invoices']],
    ['its own schema_migrations (another framework’s)', 'CREATE TABLE invoices (id bigint PRIMARY KEY); CREATE TABLE schema_migrations (version text PRIMARY KEY)', ['invoices', 'schema_migrations']],
  ])("refuses another application's database (%s) before writing anything to it", async (_what, ddl, tablesBefore) => {
    const { db: target, port: p } = await freshPg();
    await p.exec(ddl);
    const r = await cli(['db', 'copy', '--from', dataDir, '--to', target.url]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^vconsole: db copy refused: the target database .* holds tables that are not this app's \(invoices\) and no record of its migrations: nothing was written to it/);
    const tables = await p.all<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1");
    expect(tables.map((t) => t.t)).toEqual(tablesBefore);
  });

  it('refuses a store whose audit chain was edited, and commits nothing', async () => {
    const tampered = join(mkdtempSync(join(tmpdir(), 'vc-tamper-')), 'store.sqlite');
    copyFileSync(storeFile(dataDir), tampered);
    const db = new Database(tampered);
    db.exec("DROP TRIGGER audit_events_no_update; UPDATE audit_events SET action = 'key.created' WHERE seq = 2");
    db.close();
    const { db: target, port: p } = await freshPg();
    const r = await cli(['db', 'copy', '--from', tampered, '--to', target.url]);
    rmSync(join(tampered, '..'), { recursive: true, force: true });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/breaks its own invariants.*the audit chain of \S+ breaks at entry 2 .*edited/);
    // The target was migrated, and is still empty: a later copy may go ahead.
    expect((await p.get<{ n: number }>('SELECT count(*) AS n FROM organizations'))!.n).toBe(0);
    expect((await p.get<{ n: number }>('SELECT count(*) AS n FROM schema_migrations'))!.n).toBe(MIGRATIONS.length);
  });

  it('refuses a store from an older app until it is migrated', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-old-'));
    openDatabase(storeFile(dir), MIGRATIONS.slice(0, -1)).close();
    const { db: target } = await freshPg();
    const r = await cli(['db', 'copy', '--from', storeFile(dir), '--to', target.url]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('older than this app');
    const m = await cli(['migrate', '--data-dir', dir]);
    expect(m.code).toBe(0);
    expect(m.out).toMatch(/schema version \d+ → \d+ \(1 migration applied\)/);
    const again = await cli(['db', 'copy', '--from', dir, '--to', target.url]);
    expect(again.code).toBe(0);
    expect(again.out).toContain('Copied ');
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('vconsole db copy beside a running service', () => {
  it('copies one consistent snapshot while live charges keep committing', async () => {
    const { receiver, ts } = await receiverAndService({ dataDir: mkdtempSync(join(tmpdir(), 'vc-live-copy-')) });
    try {
      const org = await bootstrap(ts.service.deps, { email: `live-${newKey().slice(5, 13)}@example.com`, password: TEST_PASSWORD });
      await enableLive(ts, 'account:NG', { organizationId: org.organizationId, balance: 100_000, price: 7 });
      let stop = false;
      let sent = 0;
      const writer = (async () => {
        while (!stop) {
          const body = sent % 3 === 0 ? NG_INCONCLUSIVE : NG_OK;
          const r = await api(ts.url, 'POST', '/verify/account', { key: org.keys.live.key, idem: newKey(), body });
          expect(r.status).toBe(200);
          sent += 1;
        }
      })();
      await until(() => sent >= 5, 'writes before the copy');
      const { db: target, port } = await freshPg();
      const r = await cli(['db', 'copy', '--from', ts.dataDir, '--to', target.url, '--json']);
      const during = sent;
      await until(() => sent >= during + 3, 'writes after the copy');
      stop = true;
      await writer;
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      // The copy's own checks passed (the ledger sums to the balance, chains verify): a torn read would have failed
      // them. It holds a prefix of the writes: some made before it, none of those made after it finished.
      const copied = (await port.get<{ n: number }>('SELECT count(*) AS n FROM verifications'))!.n;
      const now = (ts.service.deps.db!.prepare('SELECT count(*) AS n FROM verifications').get() as { n: number }).n;
      expect(copied).toBeGreaterThanOrEqual(5);
      expect(copied).toBeLessThan(now);
      expect((await checkStoreInvariants(port)).problems).toEqual([]);
    } finally {
      await ts.stop();
      await receiver.close();
    }
  }, 60_000);
});

describe('vconsole db check and migrate on both engines', () => {
  it('db check reports the engine, the schema version and the same row counts for the store and its copy', async () => {
    const { db } = await freshPg();
    expect((await cli(['db', 'copy', '--from', dataDir, '--to', db.url])).code).toBe(0);
    const s = await cli(['db', 'check', '--data-dir', dataDir, '--json']);
    const p = await cli(['db', 'check', '--json'], { VCONSOLE_DATABASE_URL: db.url });
    expect([s.code, p.code]).toEqual([0, 0]);
    const sj = JSON.parse(s.out);
    const pj = JSON.parse(p.out);
    expect(sj.engine).toBe('sqlite');
    expect(pj.engine).toBe('postgresql');
    expect(pj.schemaVersion).toBe(sj.schemaVersion);
    expect(pj.schema).toBe('current');
    expect(pj.unicodeCase).toBe(true);
    expect(pj.rows).toEqual(sj.rows);
    expect(pj.rows.verifications).toBeGreaterThan(0);
    const text = await cli(['db', 'check', '--database', db.url]);
    expect(text.out).toMatch(/^Engine: PostgreSQL \d+/);
    expect(text.out).toMatch(/Schema version: \d+ \(this app: \d+\)\n/);
    expect(text.out).not.toContain(new URL(db.url).password);
  });

  it('migrate brings an empty database up once, and db check says what an unmigrated one needs', async () => {
    const { db } = await freshPg();
    const before = await cli(['db', 'check', '--database', db.url]);
    expect(before.code).toBe(1);
    expect(before.out).toContain('no schema yet: run `vconsole migrate --database URL`');
    const first = await cli(['migrate', '--database', db.url]);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^PostgreSQL postgres:\/\/\S+: schema version 0 → \d+ \(\d+ migrations applied\)\.\n$/);
    const second = await cli(['migrate', '--json'], { VCONSOLE_DATABASE_URL: db.url });
    expect(JSON.parse(second.out)).toMatchObject({ engine: 'postgresql', applied: [], waited: false });
    expect((await cli(['db', 'check', '--database', db.url])).code).toBe(0);
  });

  it('with VCONSOLE_DATABASE_URL set, the admin commands act on that database (never silently on a data folder)', async () => {
    const r = await cli(['keys', 'list'], { VCONSOLE_DATABASE_URL: 'postgres://u:p@127.0.0.1:1/x' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/Could not open the PostgreSQL database at postgres:\/\/u:\*+@127\.0\.0\.1:1\/x: .*ECONNREFUSED/);
    const notPg = await cli(['keys', 'list'], { VCONSOLE_DATABASE_URL: 'mysql://x' });
    expect(notPg.code).toBe(2);
    expect(notPg.err).toContain('VCONSOLE_DATABASE_URL must be a postgres:// or postgresql:// URL');
    const bad = await cli(['migrate', '--database', 'mysql://x']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--database expects a postgres:// (or postgresql://) URL');
    const badTo = await cli(['db', 'copy', '--from', dataDir, '--to', 'sqlite:///x']);
    expect(badTo.code).toBe(2);
    expect(badTo.err).toContain('--to expects a postgres:// (or postgresql://) URL');
  });

  it('serve --database with a server that does not answer says so in one line, without the password (the real binary)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-serve-pg-'));
    try {
      const r = spawnSync(process.execPath, ['bin/vconsole.mjs', 'serve', '--database', 'postgres://u:secret@127.0.0.1:1/team', '--port', '0', '--data-dir', dir], {
        encoding: 'utf8',
        timeout: 60_000,
        // Through tsx: this test is about the message, not the build (which would print its own lines first when stale).
        env: { ...process.env, VCONSOLE_DATABASE_URL: '', VCONSOLE_DATA_DIR: '', VCONSOLE_TSX: '1' },
      });
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^vconsole: Could not open the PostgreSQL database at postgres:\/\/u:\*+@127\.0\.0\.1:1\/team: .*ECONNREFUSED/);
      expect(r.stderr).not.toContain('secret');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
