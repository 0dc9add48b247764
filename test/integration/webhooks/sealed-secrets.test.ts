// Webhook signing secrets sealed at rest (issue 9 item 5): the raw secret never reaches the SQLite files after
// create, rotate and deliveries; deliveries still verify with the secret shown once; plain secrets written by older
// code are sealed at the next start (idempotently) and keep signing.
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeSecretBox } from '../../../src-main/core/providers/secret-box';
import { isSealed, openWebhookSecret, SEALED_PREFIX, sealPlainWebhookSecrets } from '../../../src-main/core/webhooks/secret-sealing';
import { generateWebhookSecret, verifyStandardWebhook, verifyXSignature } from '../../../src-main/core/webhooks/signing';
import { signingSecrets } from '../../../src-main/core/webhooks/webhooks-service';
import { startTestReceiver, type ReceivedRequest } from '../../../src-main/core/webhooks/test-receiver';
import { createCore } from '../../../src-main/service';
import { openDatabase } from '../../../src-main/store/database';
import { MIGRATIONS } from '../../../src-main/store/migrations';
import { api, enableLive, sqliteOnly, startTestService } from '../../helpers/harness';
import { testDeps } from '../../helpers/core-deps';
import { deliveryRows, receiverAndService, registerWebhook, until, verifyAsync } from './helpers';

const DB_FILE = 'verification-console.sqlite';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** The main file and the WAL as they are on disk now (the WAL holds what is not yet checkpointed). */
function storeBytes(dataDir: string): Buffer {
  const files = [DB_FILE, `${DB_FILE}-wal`].map((f) => join(dataDir, f)).filter((p) => existsSync(p));
  return Buffer.concat(files.map((p) => readFileSync(p)));
}

/** Which of the secrets appear in the bytes, whole or as their random part without `whsec_`. */
function leaked(bytes: Buffer, secrets: string[]): string[] {
  return secrets.filter((s) => [s, s.slice('whsec_'.length)].some((f) => bytes.includes(Buffer.from(f, 'utf8'))));
}

function h(req: ReceivedRequest, name: string): string {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0]! : (v ?? '');
}

function std(req: ReceivedRequest) {
  return { 'webhook-id': h(req, 'webhook-id'), 'webhook-timestamp': h(req, 'webhook-timestamp'), 'webhook-signature': h(req, 'webhook-signature') };
}

interface StoredSecrets {
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at_ms: number | null;
  secret_prefix: string | null;
}

describe('webhook secrets sealed at rest', () => {
  // The next three read or write the SQLite files themselves: SQLite only.
  sqliteOnly.it('create, rotate and deliveries leave no raw secret in the store files; deliveries verify with the shown secrets', async () => {
    const { ts, receiver } = await receiverAndService();
    cleanup.push(() => receiver.close(), () => ts.stop());
    await enableLive(ts);
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    const live = await registerWebhook(ts, ts.liveKey, `${receiver.url}/live`);
    const rot = await api(ts.url, 'PATCH', `/client/webhooks/${hook.id}`, { key: ts.sandboxKey, body: { rotateSecret: true } });
    expect(rot.status).toBe(200);
    const newSecret: string = rot.body.secret;
    expect(newSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const shown = [hook.secret, newSecret, live.secret];

    // Stored sealed with the key-file box, the shown prefix unchanged.
    const row = ts.service.deps.db!.prepare('SELECT secret, previous_secret, secret_prefix FROM webhooks WHERE id = ?').get(hook.id) as StoredSecrets;
    expect(row.secret.startsWith(SEALED_PREFIX)).toBe(true);
    expect(row.previous_secret?.startsWith(SEALED_PREFIX)).toBe(true);
    expect(row.secret_prefix).toBe(newSecret.slice(0, 10));
    const got = await api(ts.url, 'GET', `/client/webhooks/${hook.id}`, { key: ts.sandboxKey });
    expect(got.body.secretPrefix).toBe(newSecret.slice(0, 10));
    expect(got.body.secret).toBeUndefined();
    expect(JSON.stringify(got.body)).not.toContain(SEALED_PREFIX);
    const list = await api(ts.url, 'GET', '/client/webhooks', { key: ts.sandboxKey });
    expect(list.body.data[0].secretPrefix).toBe(newSecret.slice(0, 10));
    expect(JSON.stringify(list.body)).not.toContain(SEALED_PREFIX);
    const keyFile = join(ts.dataDir, 'secret.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    // Deliveries in the dual-signing period: X-Signature by the new secret, webhook-signature by both.
    await verifyAsync(ts, ts.sandboxKey);
    await verifyAsync(ts, ts.liveKey);
    const reqs = await receiver.waitFor(2);
    const sandboxReq = reqs.find((r) => r.path === '/hook')!;
    const liveReq = reqs.find((r) => r.path === '/live')!;
    const now = Date.now() / 1000;
    // During the overlap X-Signature keeps the previous secret (docs/webhooks.md "Secret rotation").
    expect(verifyXSignature(hook.secret, sandboxReq.rawBody, h(sandboxReq, 'x-signature'))).toBe(true);
    expect(verifyStandardWebhook(newSecret, std(sandboxReq), sandboxReq.rawBody, now)).toBe(true);
    expect(verifyStandardWebhook(hook.secret, std(sandboxReq), sandboxReq.rawBody, now)).toBe(true);
    expect(h(sandboxReq, 'webhook-signature').split(' ')).toHaveLength(2);
    expect(verifyXSignature(live.secret, liveReq.rawBody, h(liveReq, 'x-signature'))).toBe(true);
    expect(verifyStandardWebhook(live.secret, std(liveReq), liveReq.rawBody, now)).toBe(true);
    await until(async () => (await deliveryRows(ts, hook.id))[0]?.status === 'success' && (await deliveryRows(ts, live.id))[0]?.status === 'success', 'deliveries recorded');

    // Control: the search does find a value that is in the files (so a miss means something).
    expect(storeBytes(ts.dataDir).includes(Buffer.from(`${receiver.url}/hook`, 'utf8'))).toBe(true);
    expect(leaked(storeBytes(ts.dataDir), shown)).toEqual([]);
    await ts.stop({ keepDir: true });
    cleanup.push(() => rmSync(ts.dataDir, { recursive: true, force: true }));
    expect(leaked(storeBytes(ts.dataDir), shown)).toEqual([]);
  });

  sqliteOnly.it('seals plain secrets written by older code at the next start, and they still sign (current and previous)', async () => {
    const first = await startTestService();
    const org = first.org!.organizationId;
    const sandboxKey = first.sandboxKey;
    const dataDir = first.dataDir;
    await first.stop({ keepDir: true });
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));

    // Rows as the old code wrote them: plain `secret` / `previous_secret`, no `secret_prefix`.
    const receiver = await startTestReceiver();
    cleanup.push(() => receiver.close());
    const plainCurrent = generateWebhookSecret();
    const plainPrevious = generateWebhookSecret();
    const plainOther = generateWebhookSecret();
    const raw = new Database(join(dataDir, DB_FILE));
    const nowIso = new Date().toISOString();
    const insert = raw.prepare(
      `INSERT INTO webhooks (id, organization_id, environment, url, events, status, description, secret, previous_secret,
         previous_secret_expires_at_ms, active_since_ms, created_at, updated_at)
       VALUES (?, ?, 'sandbox', ?, '["verification.completed"]', 'active', NULL, ?, ?, ?, ?, ?, ?)`,
    );
    insert.run('whk_legacy1', org, `${receiver.url}/legacy`, plainCurrent, plainPrevious, Date.now() + 3_600_000, Date.now() - 1000, nowIso, nowIso);
    insert.run('whk_legacy2', org, `${receiver.url}/other`, plainOther, null, null, Date.now() - 1000, nowIso, nowIso);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    const plains = [plainCurrent, plainPrevious, plainOther];
    expect(leaked(storeBytes(dataDir), plains)).toEqual(plains); // the control: they are there before

    const { ts } = await receiverAndService({ dataDir, receiver });
    cleanup.push(() => ts.stop({ keepDir: true }));
    const rows = ts.service.deps.db!.prepare("SELECT id, secret, previous_secret, secret_prefix FROM webhooks WHERE id LIKE 'whk_legacy%' ORDER BY id").all() as (StoredSecrets & { id: string })[];
    expect(rows.map((r) => [isSealed(r.secret), r.previous_secret === null || isSealed(r.previous_secret), r.secret_prefix])).toEqual([
      [true, true, plainCurrent.slice(0, 10)],
      [true, true, plainOther.slice(0, 10)],
    ]);
    // Zeroed free space and a truncated WAL: the old plain bytes are gone from the files, not only from the rows.
    expect(leaked(storeBytes(dataDir), plains)).toEqual([]);
    expect(openWebhookSecret(ts.service.deps, rows[0]!.secret)).toBe(plainCurrent);

    // Idempotent: a second pass changes nothing.
    expect(await sealPlainWebhookSecrets(ts.service.deps)).toEqual({ sealed: 0, prefixed: 0, unreadable: 0 });
    const again = ts.service.deps.db!.prepare("SELECT id, secret, previous_secret, secret_prefix FROM webhooks WHERE id LIKE 'whk_legacy%' ORDER BY id").all();
    expect(again).toEqual(rows);

    const got = await api(ts.url, 'GET', '/client/webhooks/whk_legacy1', { key: sandboxKey });
    expect(got.body.secretPrefix).toBe(plainCurrent.slice(0, 10));

    // A delivery signed with the old secrets: both verify, as shown to the receiver by the old version.
    await verifyAsync(ts, sandboxKey);
    const reqs = await receiver.waitFor(2);
    const legacy = reqs.find((r) => r.path === '/legacy')!;
    const other = reqs.find((r) => r.path === '/other')!;
    const now = Date.now() / 1000;
    expect(verifyXSignature(plainPrevious, legacy.rawBody, h(legacy, 'x-signature'))).toBe(true); // overlap: the previous one
    expect(verifyStandardWebhook(plainCurrent, std(legacy), legacy.rawBody, now)).toBe(true);
    expect(verifyStandardWebhook(plainPrevious, std(legacy), legacy.rawBody, now)).toBe(true);
    expect(verifyXSignature(plainOther, other.rawBody, h(other, 'x-signature'))).toBe(true);
    expect(verifyStandardWebhook(plainOther, std(other), other.rawBody, now)).toBe(true);
    expect(verifyStandardWebhook(plainCurrent, std(other), other.rawBody, now)).toBe(false);
  });

  sqliteOnly.it('a store at schema 7 with plain secrets is migrated and sealed by createCore, and a wrong key file is not fatal', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vc-seal-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const plain = generateWebhookSecret();
    const v7 = openDatabase(join(dataDir, DB_FILE), MIGRATIONS.filter((m) => m.version <= 7));
    expect((v7.pragma('table_info(webhooks)') as { name: string }[]).map((c) => c.name)).not.toContain('secret_prefix');
    v7.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org_old', 'Old', '2026-01-01T00:00:00.000Z')").run();
    v7.prepare(
      `INSERT INTO webhooks (id, organization_id, environment, url, events, status, secret, active_since_ms, created_at, updated_at)
       VALUES ('whk_old', 'org_old', 'live', 'https://hooks.example.com/x', '["verification.failed"]', 'active', ?, 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
    ).run(plain);
    v7.close();

    const core = await createCore({ dataDir, logLevel: 'silent', startWorker: false });
    let row = core.deps.db!.prepare("SELECT secret, previous_secret, previous_secret_expires_at_ms, secret_prefix FROM webhooks WHERE id = 'whk_old'").get() as StoredSecrets;
    expect(isSealed(row.secret)).toBe(true);
    expect(row.secret_prefix).toBe(plain.slice(0, 10));
    expect(signingSecrets(core.deps, row, 0)).toEqual([plain]);
    await core.close();

    // A restart seals nothing more and opens the same value (same key file).
    const core2 = await createCore({ dataDir, logLevel: 'silent', startWorker: false });
    row = core2.deps.db!.prepare("SELECT secret, previous_secret, previous_secret_expires_at_ms, secret_prefix FROM webhooks WHERE id = 'whk_old'").get() as StoredSecrets;
    expect(signingSecrets(core2.deps, row, 0)).toEqual([plain]);
    await core2.close();

    // Another folder's key cannot open it; the start-up step reports it instead of failing the start.
    const otherDir = mkdtempSync(join(tmpdir(), 'vc-seal-other-'));
    cleanup.push(() => rmSync(otherDir, { recursive: true, force: true }));
    const store = openDatabase(join(dataDir, DB_FILE));
    cleanup.push(() => void store.close());
    store.prepare("UPDATE webhooks SET secret_prefix = NULL WHERE id = 'whk_old'").run();
    const deps = testDeps({ db: store, secrets: createNodeSecretBox(otherDir) });
    expect(await sealPlainWebhookSecrets(deps)).toEqual({ sealed: 0, prefixed: 0, unreadable: 1 });
    expect(() => openWebhookSecret(deps, row.secret)).toThrow();
  });

  it('a secret that no longer opens fails its attempts visibly (no crash loop), and a rotation recovers', async () => {
    const { ts, receiver } = await receiverAndService();
    cleanup.push(() => receiver.close(), () => ts.stop());
    const hook = await registerWebhook(ts, ts.sandboxKey, `${receiver.url}/hook`);
    // As if the data folder had been copied without its secret.key: sealed under a key this service does not hold.
    const otherDir = mkdtempSync(join(tmpdir(), 'vc-seal-other-'));
    cleanup.push(() => rmSync(otherDir, { recursive: true, force: true }));
    const foreign = createNodeSecretBox(otherDir).seal(hook.secret);
    await ts.service.deps.sql.transaction((tx) => tx.run('UPDATE webhooks SET secret = ? WHERE id = ?', [foreign, hook.id]));

    await verifyAsync(ts, ts.sandboxKey);
    const [first] = await until(async () => {
      const rows = await deliveryRows(ts, hook.id);
      return rows[0] && rows[0].attempts >= 1 ? rows : null;
    }, 'a failed attempt');
    const detail = await api(ts.url, 'GET', `/client/webhooks/${hook.id}/deliveries/${first!.id}`, { key: ts.sandboxKey });
    expect(detail.body.attemptLog[0]).toMatchObject({ attempt: 1, statusCode: null, error: expect.stringContaining('signing secret cannot be opened') });
    expect(receiver.requests).toHaveLength(0);

    const rot = await api(ts.url, 'PATCH', `/client/webhooks/${hook.id}`, { key: ts.sandboxKey, body: { rotateSecret: true } });
    expect(rot.status).toBe(200);
    expect(rot.body.previousSecretExpiresAt).toBeNull(); // the unreadable old secret is not kept for the overlap
    await verifyAsync(ts, ts.sandboxKey);
    const [req] = await receiver.waitFor(1);
    expect(verifyXSignature(rot.body.secret, req!.rawBody, h(req!, 'x-signature'))).toBe(true);
    expect(h(req!, 'webhook-signature').split(' ')).toHaveLength(1);
    expect(verifyStandardWebhook(rot.body.secret, std(req!), req!.rawBody, Date.now() / 1000)).toBe(true);
  });
});
