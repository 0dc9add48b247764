// The data key on SQLite (docs/team-server.md, "The data key"; docs/reliability.md, "The sealing key"): a desktop store
// records the fingerprint of its secret.key like a team server's. A fresh folder makes the key at start; an install
// from before the check whose key opens its sealed secrets starts and records it. One service per SQLite folder, so a
// folder whose key is missing or another still starts (a refusal would only keep the app from starting: a backup
// restored on a new machine, a folder moved without its key): its key becomes the store's, with a warning naming what
// it cannot open, and the old key put back is taken again. A restore brings a backup's .key with it.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src-main/core/providers/secret-box';
import { checkSecretKey, KEY_FINGERPRINT_SETTING } from '../../src-main/core/providers/secret-key-check';
import { createBackup, restoreBackup } from '../../src-main/core/backups/backups';
import { createCore } from '../../src-main/service';
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

  it('an install from before the check starts with its key and records it; without the key it starts with a new one and warns; the key put back is taken again', async () => {
    const first = await startTestService();
    const dataDir = first.dataDir;
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const hook = await registerWebhook(first, first.sandboxKey, 'https://hooks.example.com/x');
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
    // The check itself: a new key, adopted, and a warning that it opens none of the store's sealed values.
    const core = await createCore({ dataDir, startWorker: false, logLevel: 'silent' });
    const sealedSecret = (core.deps.db!.prepare('SELECT secret FROM webhooks WHERE id = ?').get(hook.id) as { secret: string }).secret;
    expect(existsSync(keyPath)).toBe(true);
    expect(() => core.deps.secrets!.open(sealedSecret)).toThrow();
    const again = await checkSecretKey(core.deps.sql, dataDir);
    expect(again.outcome).toBe('matched');
    unlinkSync(keyPath);
    const adopted = await checkSecretKey(core.deps.sql, dataDir);
    expect(adopted.outcome).toBe('adopted');
    expect(adopted.warning).toContain('opens none of the 1 sealed secret(s)');
    await core.close();

    // The old key put back: taken again (it opens the sealed value), no warning, and the secret opens.
    copyFileSync(saved, keyPath);
    const back = await startTestService({ dataDir, bootstrap: false });
    expect(fingerprintOf(back)).toBe(keyFingerprint(readFileSync(saved)));
    expect(back.service.deps.secrets!.open(sealedSecret)).toMatch(/^whsec_/);
    await back.stop({ keepDir: true });
  });

  it('a backup restored on another machine starts there; made with --include-key, its key comes with it and its secrets open', async () => {
    const first = await startTestService();
    cleanup.push(() => rmSync(first.dataDir, { recursive: true, force: true }));
    const hook = await registerWebhook(first, first.sandboxKey, 'https://hooks.example.com/z');
    const made = await createBackup(first.service.deps.db, first.dataDir, { includeKey: true });
    await first.stop({ keepDir: true });
    // "The new machine": a data folder that has started once, so it has a key of its own, recorded.
    const other = await startTestService({ bootstrap: false });
    const otherDir = other.dataDir;
    cleanup.push(() => rmSync(otherDir, { recursive: true, force: true }));
    const ownKey = readFileSync(join(otherDir, 'secret.key'));
    await other.stop({ keepDir: true });
    const r = restoreBackup(otherDir, made.file);
    expect(r.keyRestored).toBe(true);
    expect(readFileSync(join(otherDir, 'secret.key')).equals(readFileSync(`${made.file}.key`))).toBe(true);
    expect(r.keptAside.some((f) => f.endsWith('.key') || f.includes('secret.key.before-restore'))).toBe(true);
    const restored = await startTestService({ dataDir: otherDir, bootstrap: false });
    const row = restored.service.deps.db!.prepare('SELECT secret FROM webhooks WHERE id = ?').get(hook.id) as { secret: string };
    expect(restored.service.deps.secrets!.open(row.secret)).toMatch(/^whsec_/);
    await restored.stop({ keepDir: true });
    // Without the key file beside it: restored, and the service still starts (with its own key; the secret does not open).
    rmSync(`${made.file}.key`);
    writeFileSync(join(otherDir, 'secret.key'), ownKey);
    const r2 = restoreBackup(otherDir, made.file);
    expect(r2.keyRestored).toBe(false);
    const keyless = await startTestService({ dataDir: otherDir, bootstrap: false });
    const row2 = keyless.service.deps.db!.prepare('SELECT secret FROM webhooks WHERE id = ?').get(hook.id) as { secret: string };
    expect(() => keyless.service.deps.secrets!.open(row2.secret)).toThrow();
    await keyless.stop({ keepDir: true });
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
