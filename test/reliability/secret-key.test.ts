// The data key on SQLite (docs/team-server.md, "The data key"; docs/reliability.md, "The sealing key"): a desktop store records the fingerprint of its
// secret.key like a team server's. A fresh folder makes the key at start; an install from before the check whose key
// opens its sealed secrets starts and records it; a folder that lost its key refuses to start instead of making a
// new one (StoreError: the desktop app's "The data folder cannot be opened" dialog), and starts again once it is back.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src-main/core/providers/secret-box';
import { KEY_FINGERPRINT_SETTING, SecretKeyMismatchError } from '../../src-main/core/providers/secret-key-check';
import { createCore } from '../../src-main/service';
import { StoreError } from '../../src-main/store/database';
import { startTestService, type TestService } from '../helpers/harness';
import { registerWebhook } from '../integration/webhooks/helpers';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function fingerprintOf(ts: TestService): string | undefined {
  return (ts.service.deps.db!.prepare('SELECT value FROM settings WHERE key = ?').get(KEY_FINGERPRINT_SETTING) as { value: string } | undefined)?.value;
}

describe('the data key of a SQLite store', () => {
  it('a fresh folder makes secret.key at start and records its fingerprint; so does an admin command', async () => {
    const ts = await startTestService({ bootstrap: false });
    cleanup.push(() => ts.stop());
    const keyPath = join(ts.dataDir, 'secret.key');
    expect(existsSync(keyPath)).toBe(true);
    expect(fingerprintOf(ts)).toBe(keyFingerprint(readFileSync(keyPath)));

    const dir = mkdtempSync(join(tmpdir(), 'vc-key-admin-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    await core.close();
    expect(existsSync(join(dir, 'secret.key'))).toBe(true);
  });

  it('an install from before the check starts with its key and records it; without the key it refuses, with it back it starts', async () => {
    const first = await startTestService();
    const dataDir = first.dataDir;
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    await registerWebhook(first, first.sandboxKey, 'https://hooks.example.com/x');
    // As an older version left it: a sealed secret, no fingerprint.
    first.service.deps.db!.prepare('DELETE FROM settings WHERE key = ?').run(KEY_FINGERPRINT_SETTING);
    await first.stop({ keepDir: true });

    const keyPath = join(dataDir, 'secret.key');
    const upgraded = await startTestService({ dataDir, bootstrap: false });
    expect(fingerprintOf(upgraded)).toBe(keyFingerprint(readFileSync(keyPath)));
    await upgraded.stop({ keepDir: true });

    const saved = join(mkdtempSync(join(tmpdir(), 'vc-key-saved-')), 'secret.key');
    cleanup.push(() => rmSync(join(saved, '..'), { recursive: true, force: true }));
    copyFileSync(keyPath, saved);
    unlinkSync(keyPath);
    const refused = await startTestService({ dataDir, bootstrap: false }).then(
      async (t) => {
        await t.stop({ keepDir: true });
        return null;
      },
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(SecretKeyMismatchError);
    expect(refused).toBeInstanceOf(StoreError);
    expect((refused as Error).message).toContain(`The data key ${keyPath} is missing`);
    expect(existsSync(keyPath)).toBe(false);

    copyFileSync(saved, keyPath);
    const back = await startTestService({ dataDir, bootstrap: false });
    await back.stop({ keepDir: true });
  });

  it('a key lost for good: --replace-secret-key makes a new one the store\'s (the old secrets stay unreadable), and later starts need no flag', async () => {
    const first = await startTestService();
    const dataDir = first.dataDir;
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const hook = await registerWebhook(first, first.sandboxKey, 'https://hooks.example.com/y');
    const keyPath = join(dataDir, 'secret.key');
    const oldFingerprint = fingerprintOf(first);
    await first.stop({ keepDir: true });
    unlinkSync(keyPath);
    await expect(startTestService({ dataDir, bootstrap: false })).rejects.toThrow(/--replace-secret-key/);

    const replaced = await startTestService({ dataDir, bootstrap: false, replaceSecretKey: true });
    expect(existsSync(keyPath)).toBe(true);
    expect(fingerprintOf(replaced)).toBe(keyFingerprint(readFileSync(keyPath)));
    expect(fingerprintOf(replaced)).not.toBe(oldFingerprint);
    const row = replaced.service.deps.db!.prepare('SELECT secret FROM webhooks WHERE id = ?').get(hook.id) as { secret: string };
    expect(() => replaced.service.deps.secrets!.open(row.secret)).toThrow();
    await replaced.stop({ keepDir: true });

    const later = await startTestService({ dataDir, bootstrap: false });
    await later.stop({ keepDir: true });
  });
});
