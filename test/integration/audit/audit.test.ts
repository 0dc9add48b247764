// The audit trail (issue 15): every listed action writes exactly one entry in the commit of its change, with the
// right actor and door; a crash between the change and its entry leaves neither; UPDATE and DELETE are refused;
// editing, deleting or reordering rows with another tool is detected and named; an export verifies offline and a
// modified one does not; retention keeps the chain verifiable from a checkpoint; a DEVELOPER cannot read it.
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReaderThread } from '../../../src-main/store/reader-thread';
import { ManualClock } from '../../../src-main/core/clock';
import { runWithAudit } from '../../../src-main/core/audit/audit-context';
import { topUp } from '../../../src-main/core/billing/billing';
import { createUser } from '../../../src-main/core/orgs/organizations';
import { dispatch } from '../../../src-main/console/handlers';
import { allEntries, exportAudit, pruneAudit, verifyExport, verifyStore, type AuditEntry, type AuditExport } from '../../../src-main/core/audit/audit-log';
import { iso } from '../../../src-main/core/clock';
import { createServicePort } from '../../../src-main/store/service-port';
import { AUDIT_CHAINS_BEFORE_TRAIL_SETTING, m027AuditChainsBeforeTrail } from '../../../src-main/store/migrations/027-audit-chains-before-trail';
import { pg027AuditChainsBeforeTrail } from '../../../src-main/store/pg/migrations/027-audit-chains-before-trail';
import { checkStoreInvariants } from '../../../src-main/core/store-invariants';
import { api, dropTestStore, enableLive, login, NG_OK, sqliteOnly, startTestService, TEST_PASSWORD, type TestService } from '../../helpers/harness';
import { prepareDataDir, removeDataDirs, runCli, startChild, type ChildService } from '../../reliability/child-service';

let ts: TestService;
let ownerToken: string;
const clock = new ManualClock(Date.parse('2026-01-05T10:00:00.000Z'));
const entries = (): Promise<AuditEntry[]> => allEntries(ts.service.deps.sql, ts.org!.organizationId);
const byAction = async (a: string) => (await entries()).filter((e) => e.action === a);

beforeAll(async () => {
  ts = await startTestService({ clock });
  ownerToken = (await login(ts.url, ts.email)).accessToken;
}, 60_000);
afterAll(async () => {
  await ts?.stop();
  removeDataDirs();
});

describe('what is recorded', () => {
  it('setup records the organization, its owner and both keys, in the console-less system door', async () => {
    expect((await entries()).map((e) => e.action)).toEqual(['organization.created', 'user.created', 'key.created', 'key.created', 'auth.login_succeeded']);
    expect((await byAction('user.created'))[0]!.detail).toEqual({ email: ts.email, role: 'OWNER' });
  });

  it('each action writes exactly one entry, with its actor and door, and never a secret', async () => {
    const before = (await entries()).length;
    // API door, as the signed-in owner.
    const key = await api(ts.url, 'POST', '/client/api-keys', { token: ownerToken, body: { name: 'ci', environment: 'sandbox' } });
    expect(key.status).toBe(201);
    expect((await api(ts.url, 'DELETE', `/client/api-keys/${key.body.id}`, { token: ownerToken })).status).toBe(200);
    // Sign-in failures (wrong password, unknown email) and a refresh-token reuse.
    expect((await api(ts.url, 'POST', '/auth/login', { body: { email: ts.email, password: 'Hunter2-typo' } })).status).toBe(401);
    expect((await api(ts.url, 'POST', '/auth/login', { body: { email: 'nobody@example.com', password: 'Hunter2-typo' } })).status).toBe(401);
    const pair = await login(ts.url, ts.email);
    expect((await api(ts.url, 'POST', '/auth/refresh', { body: { refreshToken: pair.refreshToken } })).status).toBe(200);
    expect((await api(ts.url, 'POST', '/auth/refresh', { body: { refreshToken: pair.refreshToken } })).status).toBe(401);
    // Console door: billing, settings, users, providers, configuration.
    const h = ts.service.handlers;
    const ok = async (channel: string, input: unknown) => {
      const r = await dispatch(h, channel, input);
      expect(r, channel).toMatchObject({ ok: true });
      return (r as { value: unknown }).value;
    };
    await ok('prices:set', { service: 'account:NG', amount: 150, currency: 'USD' });
    await ok('services:enable', { service: 'account:NG' });
    await ok('services:disable', { service: 'account:NG' });
    await ok('wallet:topUp', { amount: 10_000, currency: 'USD' });
    await ok('settings:update', { rateLimitPerMinute: 500 });
    const user = (await ok('users:create', { email: 'analyst@example.com', password: TEST_PASSWORD, role: 'DEVELOPER' })) as { id: string };
    await ok('users:setRole', { id: user.id, role: 'ADMIN' });
    await ok('users:deactivate', { id: user.id });
    await ok('providers:set', { id: 'bank-a', adapter: 'generic', baseUrl: 'https://bank-a.example.com', authScheme: 'bearer', secret: 'super-secret-credential-123', routes: ['account:NG'] });
    await ok('providers:remove', { id: 'bank-a' });
    const exported = (await ok('config:export', {})) as unknown;
    await ok('config:import', { file: exported });
    const added = (await entries()).slice(before);
    const counts: Record<string, number> = {};
    for (const e of added) counts[e.action] = (counts[e.action] ?? 0) + 1;
    expect(counts).toEqual({
      'key.created': 1,
      'key.revoked': 1,
      'auth.login_failed': 2,
      'auth.login_succeeded': 1,
      'auth.refresh_reuse_detected': 1,
      'price.set': 1,
      'service.enabled': 1,
      'service.disabled': 1,
      'wallet.topped_up': 1,
      'settings.updated': 1,
      'user.created': 1,
      'user.role_changed': 1,
      'user.deactivated': 1,
      'provider.created': 1,
      'provider.removed': 1,
      'config.imported': 1,
    });
    const created = added.find((e) => e.action === 'key.created')!;
    expect(created).toMatchObject({ door: 'api', actor: { type: 'user', label: ts.email }, target: { type: 'apiKey', id: key.body.id } });
    const topUp = added.find((e) => e.action === 'wallet.topped_up')!;
    expect(topUp).toMatchObject({ door: 'console', actor: { type: 'console' } });
    const failed = added.filter((e) => e.action === 'auth.login_failed').map((e) => e.detail);
    expect(failed).toEqual([
      { email: ts.email, ip: '127.0.0.1', reason: 'wrong password' },
      { email: 'nobody@example.com', ip: '127.0.0.1', reason: 'unknown email' },
    ]);
    expect(added.find((e) => e.action === 'provider.created')!.detail).toMatchObject({ sealedValue: 'replaced' });
    const text = JSON.stringify(await entries());
    for (const secret of ['super-secret-credential-123', 'Hunter2-typo', TEST_PASSWORD, pair.refreshToken, key.body.key as string]) expect(text).not.toContain(secret);
    expect((await verifyStore(ts.service.deps.sql)).every((r) => r.ok)).toBe(true);
  });

  it('changes committed together in one group each carry the actor and door of the code that asked for them', async () => {
    // Both top-ups are asked for in the same tick, so the service's group commit runs them in one transaction: each
    // entry must still name its own door context, not the one of the write that happened to start the group.
    const org = ts.org!.organizationId;
    const asked = [
      { door: 'cli' as const, actor: { type: 'cli' as const, id: null, label: 'first (command line)' } },
      { door: 'console' as const, actor: { type: 'console' as const, id: null, label: 'second (console)' } },
      { door: 'system' as const, actor: { type: 'system' as const, id: null, label: 'third (system)' } },
    ];
    const wallets = await Promise.all(asked.map((ctx, i) => runWithAudit(ctx, () => topUp(ts.service.deps, org, 101 + i, 'USD'))));
    const entries = await byAction('wallet.topped_up');
    for (const [i, ctx] of asked.entries()) {
      const e = entries.find((x) => x.detail['amount'] === 101 + i && x.detail['balanceAfter'] === wallets[i]!.balance)!;
      expect(e, ctx.actor.label).toMatchObject({ door: ctx.door, actor: ctx.actor });
    }
  });

  it('a change that fails writes no entry', async () => {
    const before = (await entries()).length;
    const r = await dispatch(ts.service.handlers, 'users:create', { email: ts.email, password: TEST_PASSWORD, role: 'DEVELOPER' });
    expect(r.ok).toBe(false);
    expect((await entries()).length).toBe(before);
  });
});

describe('integrity', () => {
  it('the store refuses UPDATE and DELETE of entries', async () => {
    const sql = ts.service.deps.sql;
    await expect(sql.transaction((tx) => tx.run("UPDATE audit_events SET action = 'x' WHERE seq = 1"))).rejects.toThrow(/append-only/);
    await expect(sql.transaction((tx) => tx.run('DELETE FROM audit_events WHERE seq = 1'))).rejects.toThrow(/append-only/);
  });

  // Tampers with a copy of the SQLite file (its backup API): SQLite only.
  sqliteOnly.it('editing, deleting or reordering rows with another tool is detected and named', async () => {
    const tamper = async (sql: string): Promise<{ ok: boolean; firstBad: { seq: number; reason: string } | null }> => {
      const dir = mkdtempSync(join(tmpdir(), 'vc-tamper-'));
      try {
        const copy = join(dir, 'verification-console.sqlite');
        await ts.service.deps.db!.backup(copy);
        const db = new Database(copy);
        db.exec(`DROP TRIGGER audit_events_no_update; DROP TRIGGER audit_events_no_delete; ${sql}`);
        const r = (await verifyStore(createServicePort(db))).find((x) => x.organizationId === ts.org!.organizationId)!;
        db.close();
        return r;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const edited = await tamper(`UPDATE audit_events SET detail = '{"amount":1000000}' WHERE action = 'wallet.topped_up'`);
    expect(edited.ok).toBe(false);
    expect(edited.firstBad!.reason).toMatch(/edited/);
    const deleted = await tamper("DELETE FROM audit_events WHERE action = 'key.revoked'");
    expect(deleted.ok).toBe(false);
    expect(deleted.firstBad!.reason).toMatch(/deleted, inserted or moved/);
    const swapped = await tamper('UPDATE audit_events SET seq = -seq WHERE seq IN (3, 4); UPDATE audit_events SET seq = CASE seq WHEN -3 THEN 4 ELSE 3 END WHERE seq IN (-3, -4)');
    expect(swapped.ok).toBe(false);
    expect(swapped.firstBad).toMatchObject({ seq: 3 });
    // The untouched store still verifies.
    expect((await verifyStore(ts.service.deps.sql)).every((r) => r.ok)).toBe(true);
  });

  it('an export verifies offline with `vconsole audit verify --file`; a modified export does not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-export-'));
    try {
      const r = await dispatch(ts.service.handlers, 'audit:export', { format: 'json' });
      const file = join(dir, 'audit.json');
      writeFileSync(file, (r as { value: { content: string } }).value.content);
      const good = await runCli(['audit', 'verify', '--file', file, '--json']);
      expect(good.code, good.stderr).toBe(0);
      expect(JSON.parse(good.stdout)).toMatchObject({ ok: true });
      const x = JSON.parse(readFileSync(file, 'utf8')) as { entries: { action: string; detail: Record<string, unknown> }[] };
      x.entries.find((e) => e.action === 'wallet.topped_up')!.detail['amount'] = 1;
      writeFileSync(file, JSON.stringify(x));
      const bad = await runCli(['audit', 'verify', '--file', file]);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(/NOT VERIFIED at entry #\d+ .*edited/);
      // Dropping the newest entries is caught by the export's stated head.
      const y = await exportAudit(ts.service.deps.sql, ts.org!.organizationId, clock.now());
      y.entries.pop();
      writeFileSync(file, JSON.stringify(y));
      const cut = await runCli(['audit', 'verify', '--file', file]);
      expect(cut.code).toBe(1);
      expect(cut.stdout).toMatch(/removed from the end/);
      const csv = await dispatch(ts.service.handlers, 'audit:export', { format: 'csv' });
      expect((csv as { value: { content: string } }).value.content.split('\r\n')[0]).toBe('seq,id,at,actor_type,actor_id,actor,door,action,target_type,target_id,detail,prev_hash,hash');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  sqliteOnly.it("the console's check and export read the chain through the service's reader thread, with the same answers", async () => {
    const reader = ts.service.deps.longReads!;
    expect(reader).toBeInstanceOf(ReaderThread);
    const served = (reader as ReaderThread).served;
    const before = { ...served };
    // The chain is read as one walk (LongReads.walk): its pages go through the walk's reads.
    const walked = vi.fn<(sql: string, params?: unknown) => void>();
    const thread = reader as ReaderThread;
    const walk = thread.walk.bind(thread);
    const pages = vi.spyOn(thread, 'walk').mockImplementation(() => {
      const w = walk();
      return { get: w.get, all: (sql, params) => (walked(sql, params), w.all(sql, params)) };
    });
    try {
      const org = ts.org!.organizationId;
      const chainReads = () => walked.mock.calls.filter(([sql]) => /FROM audit_events a/.test(sql));
      const v = await dispatch(ts.service.handlers, 'audit:verify', {});
      expect(v).toMatchObject({ ok: true, value: { ok: true, entries: (await entries()).length } });
      expect(chainReads().length).toBeGreaterThanOrEqual(1);
      expect(chainReads().every(([, params]) => (params as unknown[])[1] === org)).toBe(true);
      walked.mockClear();
      const x = await dispatch(ts.service.handlers, 'audit:export', { format: 'json' });
      expect((x as { value: { content: string } }).value.content).toBe(`${JSON.stringify(await exportAudit(ts.service.deps.sql, org, clock.now()), null, 2)}\n`);
      expect(chainReads().length).toBeGreaterThanOrEqual(1);
      expect(chainReads().every(([, params]) => (params as unknown[])[1] === org)).toBe(true);
      // Answered by the thread itself, not by its fallback on the service's connection.
      expect(served.fallback).toBe(before.fallback);
      expect(served.thread).toBeGreaterThan(before.thread);
    } finally {
      pages.mockRestore();
    }
  });

  it('retention prunes old entries and keeps the chain verifiable from a checkpoint', async () => {
    const total = (await entries()).length;
    clock.advance(30 * 86_400_000);
    expect(await dispatch(ts.service.handlers, 'wallet:topUp', { amount: 500, currency: 'USD' })).toMatchObject({ ok: true });
    const removed = await pruneAudit(ts.service.deps, 10);
    expect(removed[ts.org!.organizationId]).toBe(total);
    const left = await entries();
    expect(left.map((e) => e.action)).toEqual(['wallet.topped_up', 'audit.pruned']);
    expect(left[0]!.seq).toBe(total + 1);
    expect((await verifyStore(ts.service.deps.sql)).every((r) => r.ok)).toBe(true);
    const v = await dispatch(ts.service.handlers, 'audit:verify', {});
    expect(v).toMatchObject({ ok: true, value: { ok: true, checkpoint: { seq: total } } });
  });
});

// What a review did to a copy of a real store: the oldest entries deleted (the prune guard lets the DELETE through, as
// in retention's own transaction) and a checkpoint row put where they were, so the rest still walks from it to the
// same head. Through the SQL port, so on either engine; each case on its own service, since the store is left broken.
describe('a chain that does not start at its genesis verifies only where its own audit.pruned entry proves the prune', () => {
  const DAY = 86_400_000;
  const T0 = Date.parse('2026-03-01T10:00:00.000Z');
  const started: TestService[] = [];
  afterAll(async () => {
    for (const t of started) await t.stop();
  });

  /** A service with its setup's entries (4) and `n` top-ups after them, on a clock the test moves. */
  async function withEntries(n: number): Promise<{ t: TestService; c: ManualClock; org: string }> {
    const c = new ManualClock(T0);
    const t = await startTestService({ clock: c });
    started.push(t);
    const org = t.org!.organizationId;
    for (let i = 0; i < n; i++) await topUp(t.service.deps, org, 100 + i, 'USD');
    return { t, c, org };
  }

  /** Deletes the entries up to `through` and, unless `checkpoint` is false, records a checkpoint at the last of them. */
  async function deleteOldest(t: TestService, through: number, checkpoint = true): Promise<void> {
    const org = t.org!.organizationId;
    await t.service.deps.sql.transaction(async (tx) => {
      const last = await tx.get<{ seq: number; hash: string }>('SELECT seq, hash FROM audit_events WHERE organization_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1', [org, through]);
      await tx.run('INSERT INTO audit_prune_guard (active) VALUES (1)');
      await tx.run('DELETE FROM audit_events WHERE organization_id = ? AND seq <= ?', [org, through]);
      await tx.run('DELETE FROM audit_prune_guard');
      if (checkpoint && last) {
        await tx.run(
          'INSERT INTO audit_checkpoints (organization_id, seq, hash, pruned_at) VALUES (?, ?, ?, ?) ON CONFLICT (organization_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash',
          [org, last.seq, last.hash, iso(T0)],
        );
      }
    });
  }

  /** `vconsole audit verify` on the service's store, the service stopped first (its folder and database then removed). */
  async function cliVerify(t: TestService) {
    await t.stop({ keepDir: true });
    started.splice(started.indexOf(t), 1);
    try {
      return await runCli(['audit', 'verify', '--data-dir', t.dataDir], { env: t.databaseUrl ? { VCONSOLE_DATABASE_URL: t.databaseUrl } : {} });
    } finally {
      await dropTestStore(t.dataDir);
      rmSync(t.dataDir, { recursive: true, force: true });
    }
  }

  const storeVerdict = async (t: TestService) => (await verifyStore(t.service.deps.sql)).find((r) => r.organizationId === t.org!.organizationId);
  const consoleVerdict = async (t: TestService) => ((await dispatch(t.service.handlers, 'audit:verify', {})) as { value: { ok: boolean; firstBad: unknown; head: unknown } }).value;

  it('the oldest entries deleted and a checkpoint added for them: broken at the first entry left, in the store, the console and an export', async () => {
    const { t, org } = await withEntries(25);
    const head = (await allEntries(t.service.deps.sql, org)).at(-1)!;
    expect(head.seq).toBe(29);
    await deleteOldest(t, 20);
    const broken = { ok: false, firstBad: { seq: 21, reason: expect.stringMatching(/checkpoint after entry #20, but no audit\.pruned entry/) } };
    expect(await storeVerdict(t)).toMatchObject(broken);
    expect(await consoleVerdict(t)).toMatchObject(broken);
    // The console's export of it holds the same 9 entries from the same start: it does not verify offline either.
    const x = await exportAudit(t.service.deps.sql, org, T0);
    expect(x).toMatchObject({ start: { seq: 20 }, head: { seq: head.seq, hash: head.hash } });
    expect(verifyExport(x)).toMatchObject(broken);
    // Where the review saw "9 entries verified. Head: #29 …" and exit 0.
    const cli = await cliVerify(t);
    expect(cli.code, cli.stdout + cli.stderr).toBe(1);
    expect(cli.stdout).toMatch(/NOT VERIFIED at entry #21 .*no audit\.pruned entry/);
  });

  it("real prunes verify, the newest audit.pruned superseding an earlier one; more entries deleted and the checkpoint moved past the prune's do not", async () => {
    const { t, c, org } = await withEntries(0);
    const sql = t.service.deps.sql;
    c.advance(30 * DAY);
    for (let i = 0; i < 10; i++) await topUp(t.service.deps, org, 200 + i, 'USD'); // #5–#14
    c.advance(DAY);
    // The setup's 4 entries are older than 10 days: pruned, and #15 says so.
    expect((await pruneAudit(t.service.deps, 10))[org]).toBe(4);
    c.advance(10 * DAY + DAY / 2);
    // The top-ups (30.5 days ago: older than 11) go; the first prune's own entry (#15, 10.5 days ago) stays.
    expect((await pruneAudit(t.service.deps, 11))[org]).toBe(10);
    const left = await allEntries(sql, org);
    expect(left.map((e) => [e.seq, e.action, e.detail['throughSeq']])).toEqual([
      [15, 'audit.pruned', 4],
      [16, 'audit.pruned', 14],
    ]);
    // The prune records the checkpoint's hash too: the last entry removed, #14.
    expect(await sql.get('SELECT seq, hash FROM audit_checkpoints WHERE organization_id = ?', [org])).toEqual({ seq: 14, hash: left[0]!.prevHash });
    expect(left[1]!.detail['throughHash']).toBe(left[0]!.prevHash);
    expect(await storeVerdict(t)).toMatchObject({ ok: true, entries: 2, head: { seq: 16 } });
    expect(await consoleVerdict(t)).toMatchObject({ ok: true, head: { seq: 16 } });
    expect(verifyExport(await exportAudit(sql, org, c.now()))).toMatchObject({ ok: true, entries: 2 });
    // The first prune's entry deleted too, the checkpoint moved to it: the newest prune says the chain starts after #14.
    await deleteOldest(t, 15);
    const broken = { ok: false, firstBad: { seq: 16, reason: expect.stringMatching(/latest audit\.pruned entry \(#16\) records a prune through #14/) } };
    expect(await storeVerdict(t)).toMatchObject(broken);
    expect(await consoleVerdict(t)).toMatchObject(broken);
    expect(verifyExport(await exportAudit(sql, org, c.now()))).toMatchObject(broken);
  });

  it("every entry of an organization deleted: broken, with or without a checkpoint, where it was 'The audit trail is empty.'", async () => {
    for (const checkpoint of [false, true]) {
      const { t, org } = await withEntries(3);
      await deleteOldest(t, 7, checkpoint);
      expect(await allEntries(t.service.deps.sql, org)).toEqual([]);
      const missing = { ok: false, entries: 0, firstBad: { seq: checkpoint ? 8 : 1, id: '(missing)', reason: checkpoint ? expect.stringMatching(/no audit\.pruned entry/) : expect.stringMatching(/no audit entries/) } };
      expect(await storeVerdict(t), `checkpoint: ${checkpoint}`).toMatchObject(missing);
      expect(await consoleVerdict(t), `checkpoint: ${checkpoint}`).toMatchObject(missing);
      // An export of no entry from the genesis proves nothing either way: its head is the genesis, which a kept head
      // tells apart. From a checkpoint it must carry the prune's entry.
      expect(verifyExport(await exportAudit(t.service.deps.sql, org, T0))).toMatchObject(checkpoint ? missing : { ok: true, entries: 0, head: { seq: 0 } });
      const cli = await cliVerify(t);
      expect(cli.code, cli.stdout + cli.stderr).toBe(1);
      expect(cli.stdout).toMatch(checkpoint ? /NOT VERIFIED at entry #8 \(missing\): .*The 0 entries before it verify\./ : /NOT VERIFIED at entry #1 \(missing\): .*no audit entries/);
    }
  });

  it('an organization from before the audit trail (no entry when the store was upgraded, migration 27) verifies with an empty chain; one created since does not (found by the final review)', async () => {
    const { t, org } = await withEntries(0);
    await deleteOldest(t, 10, false);
    const sql = t.service.deps.sql;
    // As a store from before migration 13 is when this version first opens it: the organization has no entry.
    expect(await storeVerdict(t)).toMatchObject({ ok: false, firstBad: { id: '(missing)' } });
    await sql.transaction((tx) => tx.exec(sql.engine === 'postgres' ? pg027AuditChainsBeforeTrail.sql : m027AuditChainsBeforeTrail.sql));
    expect(await sql.get('SELECT value FROM settings WHERE key = ?', [AUDIT_CHAINS_BEFORE_TRAIL_SETTING])).toEqual({ value: JSON.stringify([org]) });
    expect(await storeVerdict(t)).toMatchObject({ ok: true, entries: 0 });
    expect(await consoleVerdict(t)).toMatchObject({ ok: true, entries: 0 });
    expect((await checkStoreInvariants(sql)).problems).toEqual([]);
    // Its first audited action starts its chain and ends the allowance (found by the late review: it never ended, so a
    // later wipe verified); deleting that entry again is a deletion like any other.
    await topUp(t.service.deps, org, 100, 'USD');
    expect(await storeVerdict(t)).toMatchObject({ ok: true, entries: 1 });
    expect(await sql.get('SELECT value FROM settings WHERE key = ?', [AUDIT_CHAINS_BEFORE_TRAIL_SETTING])).toBeUndefined();
    await deleteOldest(t, 10, false);
    expect(await storeVerdict(t)).toMatchObject({ ok: false, firstBad: { id: '(missing)' } });
  });

  it('`vconsole audit verify --file`: an export whose first entries were dropped and its start moved to them is refused; a pruned one verifies', async () => {
    const { t, c, org } = await withEntries(25);
    const dir = mkdtempSync(join(tmpdir(), 'vc-export-start-'));
    try {
      const file = join(dir, 'audit.json');
      const verify = async (x: AuditExport) => {
        writeFileSync(file, JSON.stringify(x));
        return runCli(['audit', 'verify', '--file', file]);
      };
      const x = await exportAudit(t.service.deps.sql, org, T0);
      const dropped = x.entries.splice(0, 20);
      x.start = { seq: 20, hash: dropped.at(-1)!.hash };
      const cut = await verify(x);
      expect(cut.code, cut.stdout).toBe(1);
      expect(cut.stdout).toMatch(/NOT VERIFIED at entry #21 .*checkpoint after entry #20, but no audit\.pruned entry/);
      // Pruned by retention (every entry so far), its export verifies; without the prune's entry, from after it, it does not.
      c.advance(30 * DAY);
      expect((await pruneAudit(t.service.deps, 10))[org]).toBe(29);
      const pruned = await exportAudit(t.service.deps.sql, org, c.now());
      expect(pruned).toMatchObject({ start: { seq: 29 }, entries: [{ seq: 30, action: 'audit.pruned' }] });
      await topUp(t.service.deps, org, 1, 'USD');
      const later = await exportAudit(t.service.deps.sql, org, c.now());
      const good = await verify(later);
      expect(good.code, good.stdout).toBe(0);
      const first = later.entries.shift()!;
      later.start = { seq: first.seq, hash: first.hash };
      const moved = await verify(later);
      expect(moved.code, moved.stdout).toBe(1);
      expect(moved.stdout).toMatch(/NOT VERIFIED at entry #31 .*no audit\.pruned entry/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('reading it', () => {
  it('GET /client/audit-events: owners read and filter it; a DEVELOPER and an API key cannot', async () => {
    const devEmail = 'dev-audit@example.com';
    await createUser(ts.service.deps, ts.org!.organizationId, { email: devEmail, password: TEST_PASSWORD, role: 'DEVELOPER' });
    const owner = await login(ts.url, ts.email);
    const all = await api(ts.url, 'GET', '/audit-events-not-a-route', { token: owner.accessToken });
    expect(all.status).toBe(404);
    const list = await api(ts.url, 'GET', '/client/audit-events?action=wallet.&limit=5', { token: owner.accessToken });
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThan(0);
    expect(list.body.data.every((e: { action: string }) => e.action.startsWith('wallet.'))).toBe(true);
    expect(list.body.pagination).toMatchObject({ limit: 5, offset: 0 });
    const dev = await login(ts.url, devEmail);
    expect((await api(ts.url, 'GET', '/client/audit-events', { token: dev.accessToken })).status).toBe(403);
    expect((await api(ts.url, 'GET', '/client/audit-events', { key: ts.sandboxKey })).status).toBe(401);
  });
});

describe('console sessions and live checks', () => {
  it('opening the web console with its one-time link is recorded; a failed attempt is not', async () => {
    const web = await startTestService({ webConsole: true });
    try {
      const link = web.service.consoleUrl()!;
      const origin = new URL(link).origin;
      const token = new URL(link).hash.replace(/^#token=/, '');
      const post = (t: string) => fetch(`${origin}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ token: t }) });
      expect((await post('not-the-token')).status).toBe(401);
      expect((await post(token)).status).toBe(200);
      const opened = (await allEntries(web.service.deps.sql, web.org!.organizationId)).filter((e) => e.action === 'console.session_opened');
      expect(opened).toHaveLength(1);
      expect(opened[0]).toMatchObject({ door: 'console', actor: { type: 'console' }, detail: { door: 'web' } });
    } finally {
      await web.stop();
    }
  });
});

describe('live checks', () => {
  it('every live check has a summary entry with its actor and charge; sandbox checks have none', async () => {
    const t = await startTestService();
    try {
      await enableLive(t);
      const before = (await allEntries(t.service.deps.sql, t.org!.organizationId)).length;
      expect((await api(t.url, 'POST', '/verify/account', { key: t.sandboxKey, idem: 'sb', body: NG_OK })).status).toBe(200);
      const live = await api(t.url, 'POST', '/verify/account', { key: t.liveKey, idem: 'lv', body: NG_OK });
      expect(live.status).toBe(200);
      const added = (await allEntries(t.service.deps.sql, t.org!.organizationId)).slice(before).filter((e) => e.action.startsWith('verification.'));
      expect(added).toHaveLength(1);
      expect(added[0]).toMatchObject({
        action: 'verification.live_check',
        door: 'api',
        actor: { type: 'apiKey', label: 'API key "Default live key" (live)' },
        target: { type: 'verification', id: live.body.id },
        detail: { kind: 'account', country: 'NG', mode: 'sync', charge: { amount: 25, currency: 'USD' } },
      });
    } finally {
      await t.stop();
    }
  });
});

// A service as a child process on a data folder, killed mid-change, then the SQLite file read: SQLite only.
sqliteOnly.describe('a crash between a change and its entry', { timeout: 120_000 }, () => {
  let child: ChildService | null = null;
  afterAll(async () => {
    if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
  });

  it('leaves neither: the key is not there and no entry names it', async () => {
    const p = await prepareDataDir();
    // The sign-in is the first audited change (pass 1); the key is the second, where the process dies.
    child = await startChild(p.dataDir, { env: { VC_FAULT_POINT: 'before-audit-entry', VC_FAULT_AFTER: '2' } });
    const token = (await login(child.url, p.email)).accessToken;
    const res = await api(child.url, 'POST', '/client/api-keys', { token, body: { name: 'never', environment: 'sandbox' } }).catch((e: unknown) => e);
    expect(res).toBeInstanceOf(Error);
    expect((await child.exited).signal).toBe('SIGKILL');
    const db = new Database(join(p.dataDir, 'verification-console.sqlite'), { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) AS n FROM api_keys WHERE name = 'never'").get()).toEqual({ n: 0 });
      const actions = (db.prepare('SELECT action FROM audit_events ORDER BY organization_id, seq').all() as { action: string }[]).map((r) => r.action);
      expect(actions.filter((a) => a === 'key.created')).toHaveLength(2);
      expect((await verifyStore(createServicePort(db))).every((r) => r.ok)).toBe(true);
    } finally {
      db.close();
    }
  });
});
