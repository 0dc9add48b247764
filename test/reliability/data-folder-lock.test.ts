// One service per data folder (issue 19): real `vconsole serve` processes on one folder. A second start exits 1
// naming the holder and leaves the first untouched; after `kill -9` of the holder a new start takes the folder at
// once; admin commands work beside a running service; and the duplicate-key scenario that used to run one request
// twice across two services can no longer produce two ids.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { insertKey, revokeKey } from '../../src-main/core/keys/keys-service';
import { createCore } from '../../src-main/service';
import { acquireDataFolderLock, DataFolderLockedError, HOLDER_FILE } from '../../src-main/store/data-folder-lock';
import { api, NG_OK, startTestService } from '../helpers/harness';
import { killChild, prepareDataDir, removeDataDirs, runCli, startChild, stopChild, type ChildService } from './child-service';

const children: ChildService[] = [];
afterAll(async () => {
  for (const c of children) await killChild(c);
  removeDataDirs();
});

describe('the data folder lock (in process)', () => {
  it('refuses a second holder, names the first, and is free again once released', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-lock-'));
    try {
      const first = acquireDataFolderLock(dir, 'serve');
      first.update({ host: '127.0.0.1', port: 4111, url: 'http://127.0.0.1:4111' });
      let refused: unknown;
      try {
        acquireDataFolderLock(dir, 'electron');
      } catch (e) {
        refused = e;
      }
      expect(refused).toBeInstanceOf(DataFolderLockedError);
      const e = refused as DataFolderLockedError;
      expect(e.holder).toMatchObject({ pid: process.pid, door: 'serve', port: 4111 });
      expect(e.message).toContain(dir);
      expect(e.message).toContain(`process ${process.pid}`);
      expect(e.message).toContain('http://127.0.0.1:4111');
      first.release();
      expect(existsSync(join(dir, HOLDER_FILE))).toBe(false);
      const again = acquireDataFolderLock(dir, 'electron');
      again.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('createCore with a worker takes the lock; an admin core (no worker) does not need it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-lock-'));
    try {
      const running = await createCore({ dataDir: dir, logLevel: 'silent', scryptN: 1024 });
      await expect(createCore({ dataDir: dir, logLevel: 'silent', scryptN: 1024 })).rejects.toThrow(DataFolderLockedError);
      const admin = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent', scryptN: 1024 });
      await admin.close();
      await running.close();
      const next = await createCore({ dataDir: dir, logLevel: 'silent', scryptN: 1024 });
      await next.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('two `vconsole serve` on one data folder', { timeout: 180_000 }, () => {
  it('the second exits 1 naming the folder and the holder; the first keeps serving; admin commands work beside it', async () => {
    const p = await prepareDataDir();
    const first = await startChild(p.dataDir);
    children.push(first);
    const port = new URL(first.url).port;
    const second = await runCli(['serve', '--port', '0', '--data-dir', p.dataDir, '--no-console']);
    expect(second.code, second.stdout + second.stderr).toBe(1);
    expect(second.stderr).toContain(`The data folder ${p.dataDir} is in use by another Verification Console service`);
    expect(second.stderr).toContain(`process ${first.proc.pid}`);
    expect(second.stderr).toContain('`vconsole serve`');
    expect(second.stderr).toContain(`:${port}`);
    expect(second.stdout).not.toContain('is running');
    // The first is untouched.
    const res = await api(first.url, 'POST', '/verify/account', { key: p.sandboxKey, idem: 'after-refusal', body: NG_OK });
    expect(res.status).toBe(200);
    // An admin command writes through SQLite's own locking while the service runs.
    const keys = await runCli(['keys', 'create', '--name', 'beside the service', '--environment', 'sandbox', '--data-dir', p.dataDir, '--json']);
    expect(keys.code, keys.stderr).toBe(0);
    // …and the running service sees it at once: the new key authenticates.
    const created = JSON.parse(keys.stdout) as { key: string };
    const withNewKey = await api(first.url, 'POST', '/verify/account', { key: created.key, idem: 'new-key', body: NG_OK });
    expect(withNewKey.status).toBe(200);
    // `verify --wait` beside it leaves the queue to the running service (no second worker) and still completes.
    const waited = await runCli(['verify', 'account', '--body', JSON.stringify({ ...NG_OK, mode: 'async' }), '--wait', '--data-dir', p.dataDir, '--json']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(JSON.parse(waited.stdout)).toMatchObject({ status: 'success' });
    await stopChild(first);
    // With no service running, `verify --wait` takes the folder and runs the queue itself while it waits.
    const alone = await runCli(['verify', 'account', '--body', JSON.stringify({ ...NG_OK, mode: 'async' }), '--wait', '--data-dir', p.dataDir, '--json']);
    expect(alone.code, alone.stderr).toBe(0);
    expect(JSON.parse(alone.stdout)).toMatchObject({ status: 'success' });
  });

  it('after kill -9 of the holder a new serve takes the folder at once', async () => {
    const p = await prepareDataDir();
    const first = await startChild(p.dataDir);
    children.push(first);
    await killChild(first);
    const next = await startChild(p.dataDir);
    children.push(next);
    const res = await api(next.url, 'POST', '/verify/account', { key: p.sandboxKey, idem: 'after-kill', body: NG_OK });
    expect(res.status).toBe(200);
    await stopChild(next);
  });

  it('duplicates of one Idempotency-Key sent to two start attempts produce one verification id', async () => {
    const p = await prepareDataDir();
    const first = await startChild(p.dataDir);
    children.push(first);
    // The second attempt, started the way a user would (another terminal, another port), refuses to start, so
    // requests meant for it find no listener.
    let secondUrl: string | null = null;
    try {
      const second = await startChild(p.dataDir);
      children.push(second);
      secondUrl = second.url;
    } catch (e) {
      expect(String(e)).toMatch(/exited \(1\)[\s\S]*is in use by another Verification Console service/);
    }
    expect(secondUrl).toBeNull();
    const targets = [first.url, 'http://127.0.0.1:1'];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(targets[i % 2]!, 'POST', '/verify/account', { key: p.sandboxKey, idem: 'one-key-two-services', body: NG_OK }).catch(() => null),
      ),
    );
    const ids = new Set(answers.filter((a) => a && a.status === 200).map((a) => a!.body.id as string));
    expect(ids.size).toBe(1);
    await stopChild(first);
  });
});

describe('what the store guarantees, not memory (docs/reliability.md)', () => {
  it('a key revoked by an admin command beside the running service is refused at once', async () => {
    const ts = await startTestService();
    try {
      const admin = await createCore({ dataDir: ts.dataDir, startWorker: false, logLevel: 'silent', scryptN: 1024 });
      const key = await insertKey(admin.deps, ts.org!.organizationId, 'revoked from another process', 'sandbox');
      // The service caches the key on first use…
      expect((await api(ts.url, 'POST', '/verify/account', { key: key.key, idem: 'before', body: NG_OK })).status).toBe(200);
      await revokeKey(admin.deps, ts.org!.organizationId, key.id);
      await admin.close();
      // …and the other connection's commit empties that cache before the next lookup.
      const after = await api(ts.url, 'POST', '/verify/account', { key: key.key, idem: 'after', body: NG_OK });
      expect(after.status).toBe(401);
      expect(after.body.code).toBe('API_KEY_REVOKED');
    } finally {
      await ts.stop();
    }
  });
});
