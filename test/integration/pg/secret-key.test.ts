// The data key of a team server (docs/team-server.md, "The data key"): the store records the fingerprint of the
// secret.key its secrets are sealed with. The first instance writes secret.key at start (so step 6 can copy it); an
// instance whose data folder lacks that key, or holds another, refuses to start instead of making a second key; with
// a copy of the first's key it starts and signs with the secrets the first sealed.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src-main/cli/headless';
import { keyFingerprint } from '../../../src-main/core/providers/secret-box';
import { KEY_FINGERPRINT_SETTING, SecretKeyMismatchError } from '../../../src-main/core/providers/secret-key-check';
import { startTestReceiver, type TestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { verifyXSignature } from '../../../src-main/core/webhooks/signing';
import { createCore } from '../../../src-main/service';
import { startTestService, type TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';
import { deliveryRows, registerWebhook, until, verifyAsync } from '../webhooks/helpers';

let db: TestDatabase;
let receiver: TestReceiver;
const dirs: string[] = [];
const running: TestService[] = [];

function emptyDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'vc-pg-key-'));
  dirs.push(d);
  return d;
}

async function recordedFingerprint(ts: TestService): Promise<string | undefined> {
  return (await ts.service.deps.sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [KEY_FINGERPRINT_SETTING]))?.value;
}

/** `vconsole serve` in this process: its exit code and what it wrote to stderr. */
async function serveCli(args: string[]): Promise<{ code: number; err: string }> {
  const ew = process.stderr.write;
  let err = '';
  process.stderr.write = ((s: string) => ((err += s), true)) as typeof process.stderr.write;
  try {
    return { code: await main(['serve', ...args]), err };
  } finally {
    process.stderr.write = ew;
  }
}

beforeAll(async () => {
  db = await freshDatabase();
  receiver = await startTestReceiver();
}, 60_000);

afterAll(async () => {
  for (const t of running) await t.stop({ keepDir: true }).catch(() => undefined);
  await receiver?.close();
  await db?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the data key on a team server', () => {
  it('a first instance writes secret.key at start and records its fingerprint; a second without it refuses to start; with a copy it starts and signs', async () => {
    const common = { databaseUrl: db.url, retryUnitMs: 20, allowWebhookHosts: [`127.0.0.1:${receiver.port}`] };
    const aDir = emptyDir();
    const a = await startTestService({ ...common, dataDir: aDir });
    running.push(a);
    // Written at start, before anything was sealed (no webhook, no provider credential yet).
    const aKey = join(aDir, 'secret.key');
    expect(existsSync(aKey)).toBe(true);
    expect((await a.service.deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM webhooks'))!.n).toBe(0);
    expect(await recordedFingerprint(a)).toBe(keyFingerprint(readFileSync(aKey)));
    expect(await recordedFingerprint(a)).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(await recordedFingerprint(a)).not.toContain(readFileSync(aKey).toString('hex'));

    const hook = await registerWebhook(a, a.sandboxKey, `${receiver.url}/hook`, ['verification.completed']);

    // An admin command with another data folder (`vconsole users list` from elsewhere) is refused the same way.
    const adminDir = emptyDir();
    await expect(createCore({ dataDir: adminDir, databaseUrl: db.url, startWorker: false, logLevel: 'silent' })).rejects.toThrow(SecretKeyMismatchError);
    expect(existsSync(join(adminDir, 'secret.key'))).toBe(false);

    // A second instance with an empty data folder: refused, with the fix named, and no key of its own made.
    const bDir = emptyDir();
    const refused = await startTestService({ ...common, dataDir: bDir, bootstrap: false }).then(
      (t) => {
        running.push(t);
        return null;
      },
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(SecretKeyMismatchError);
    expect((refused as Error).message).toContain(join(bDir, 'secret.key'));
    expect((refused as Error).message).toContain('Copy secret.key from the data folder of an instance that works');
    expect((refused as Error).message).toContain(`it was made in ${aDir} on `);
    expect(existsSync(join(bDir, 'secret.key'))).toBe(false);
    // The same through `vconsole serve`: one message on stderr, exit 1.
    const cli = await serveCli(['--database', db.url, '--data-dir', bDir, '--port', '0', '--no-console']);
    expect(cli.code).toBe(1);
    expect(cli.err).toContain('is missing');
    expect(cli.err).toContain('Copy secret.key');
    expect(existsSync(join(bDir, 'secret.key'))).toBe(false);

    // Another key (say, made by hand): refused too.
    writeFileSync(join(bDir, 'secret.key'), randomBytes(32), { mode: 0o600 });
    await expect(startTestService({ ...common, dataDir: bDir, bootstrap: false })).rejects.toThrow(/is not the key this store's secrets are sealed with/);

    // With the first instance's key copied (step 6): it starts; the first stops, and the second signs with the
    // secret the first sealed.
    copyFileSync(aKey, join(bDir, 'secret.key'));
    const b = await startTestService({ ...common, dataDir: bDir, bootstrap: false });
    running.push(b);
    await a.stop({ keepDir: true });
    running.splice(running.indexOf(a), 1);
    receiver.setSecrets([hook.secret]);
    await verifyAsync(b, a.sandboxKey);
    const [req] = await receiver.waitFor(1);
    expect(verifyXSignature(hook.secret, req!.rawBody, String(req!.headers['x-signature']))).toBe(true);
    await until(async () => (await deliveryRows(b, hook.id))[0]?.status === 'success', 'the delivery recorded as sent');
  }, 90_000);

  it('--replace-secret-key is refused while another instance serves the database; once it stopped, the key is replaced and the old one refused', async () => {
    const other = await freshDatabase();
    try {
      const common = { databaseUrl: other.url };
      const aDir = emptyDir();
      const a = await startTestService({ ...common, dataDir: aDir });
      running.push(a);
      const before = await recordedFingerprint(a);

      // Another folder (its key lost, say) asks to replace the key while A serves: refused, the record unchanged.
      const bDir = emptyDir();
      const refused = await startTestService({ ...common, dataDir: bDir, bootstrap: false, replaceSecretKey: true }).then(
        (t) => {
          running.push(t);
          return null;
        },
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(SecretKeyMismatchError);
      expect((refused as Error).message).toContain('Another instance is serving this database');
      expect(await recordedFingerprint(a)).toBe(before);
      // The same through `vconsole serve`: exit 1 with the message.
      const cli = await serveCli(['--database', other.url, '--data-dir', bDir, '--port', '0', '--no-console', '--replace-secret-key']);
      expect(cli.code).toBe(1);
      expect(cli.err).toContain('stop every other instance');
      expect(await recordedFingerprint(a)).toBe(before);

      // A stopped: the replacement goes through, and A's key is refused from then on.
      await a.stop({ keepDir: true });
      running.splice(running.indexOf(a), 1);
      const b = await startTestService({ ...common, dataDir: bDir, bootstrap: false, replaceSecretKey: true });
      running.push(b);
      expect(await recordedFingerprint(b)).toBe(keyFingerprint(readFileSync(join(bDir, 'secret.key'))));
      await expect(startTestService({ ...common, dataDir: aDir, bootstrap: false })).rejects.toThrow(/is not the key this store's secrets are sealed with/);
      // B serves and holds the lock too: a second replacement elsewhere is refused while it runs.
      await expect(startTestService({ ...common, dataDir: emptyDir(), bootstrap: false, replaceSecretKey: true })).rejects.toThrow(/Another instance is serving this database/);
      await b.stop({ keepDir: true });
      running.splice(running.indexOf(b), 1);
    } finally {
      await other.drop();
    }
  }, 90_000);

  it('an instance whose LISTEN connection was lost while the key was replaced says so when it holds the lock again (found by the final review)', async () => {
    const other = await freshDatabase();
    try {
      const common = { databaseUrl: other.url };
      const lines: string[] = [];
      const aDir = emptyDir();
      const a = await startTestService({ ...common, dataDir: aDir, logLevel: 'warn', logStream: { write: (l: string) => void lines.push(l) } });
      running.push(a);
      // A's LISTEN connection cut: its serving lock goes with it until it reconnects (a second later).
      const admin = new pg.Client({ connectionString: other.url });
      await admin.connect();
      try {
        const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE '% listen'");
        expect(cut.rowCount).toBe(1);
      } finally {
        await admin.end();
      }
      // In that gap the key is replaced elsewhere (nothing holds the lock to refuse it)…
      const b = await startTestService({ ...common, dataDir: emptyDir(), bootstrap: false, replaceSecretKey: true });
      await b.stop({ keepDir: true });
      // …and A, holding the lock again, reads the record again and says what to do.
      await until(async () => lines.some((l) => l.includes('was replaced (--replace-secret-key) while this instance')), 'A says its key was replaced');
      expect(lines.find((l) => l.includes('while this instance'))).toContain(aDir);
      await a.stop({ keepDir: true });
      running.splice(running.indexOf(a), 1);
    } finally {
      await other.drop();
    }
  }, 90_000);

  it('a store from before the check (sealed secrets, no fingerprint): a folder without the key is refused, one with it records it', async () => {
    const other = await freshDatabase();
    try {
      const common = { databaseUrl: other.url, allowWebhookHosts: [`127.0.0.1:${receiver.port}`] };
      const aDir = emptyDir();
      const a = await startTestService({ ...common, dataDir: aDir });
      await registerWebhook(a, a.sandboxKey, `${receiver.url}/old`, ['verification.completed']);
      // As an older version left it: sealed secrets, no fingerprint.
      await a.service.deps.sql.transaction((tx) => tx.run('DELETE FROM settings WHERE key = ?', [KEY_FINGERPRINT_SETTING]));
      await a.stop({ keepDir: true });

      const bDir = emptyDir();
      await expect(startTestService({ ...common, dataDir: bDir, bootstrap: false })).rejects.toThrow(/already holds secrets sealed with a data key/);
      expect(existsSync(join(bDir, 'secret.key'))).toBe(false);
      writeFileSync(join(bDir, 'secret.key'), randomBytes(32), { mode: 0o600 });
      await expect(startTestService({ ...common, dataDir: bDir, bootstrap: false })).rejects.toThrow(/opens none of them/);

      const again = await startTestService({ ...common, dataDir: aDir, bootstrap: false });
      expect(await recordedFingerprint(again)).toBe(keyFingerprint(readFileSync(join(aDir, 'secret.key'))));
      await again.stop({ keepDir: true });
    } finally {
      await other.drop();
    }
  }, 90_000);
});
