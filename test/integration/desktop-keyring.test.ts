// A provider credential sealed with the OS keychain (Electron's safeStorage) on an earlier launch, the keychain locked
// now: the console's provider test says "keyring locked — unlock it or re-enter the credential", not a generic error;
// once unlocked it works again. The keychain is a stand-in (reversible, switchable); the service, the store, the
// console dispatch and the upstream simulator are real.
import { afterEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../src-main/console/handlers';
import { createNodeSecretBox } from '../../src-main/core/providers/secret-box';
import { createSafeStorageBox, type SafeStorageLike } from '../../src-main/electron/safe-storage-box';
import { startLive, type LiveEnv } from './live/live-helpers';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let env: LiveEnv | null = null;
afterEach(async () => {
  await env?.stop();
  env = null;
});

describe('keychain locked on a later launch', () => {
  it('the provider test names the locked keyring and the fix; unlocked, it works again', async () => {
    let unlocked = true;
    const keychain: SafeStorageLike = {
      isEncryptionAvailable: () => unlocked,
      getSelectedStorageBackend: () => 'gnome_libsecret',
      encryptString: (p) => Buffer.from(Buffer.from(p, 'utf8').map((b) => b ^ 0x5a)),
      decryptString: (b) => Buffer.from(b.map((x) => x ^ 0x5a)).toString('utf8'),
    };
    const dataDir = mkdtempSync(join(tmpdir(), 'vc-keyring-'));
    env = await startLive({ dataDir, door: 'electron', secretBox: createSafeStorageBox(keychain, createNodeSecretBox(dataDir), 'linux') });
    const h = env.ts.service.handlers;
    const set = await dispatch(h, 'providers:set', {
      id: 'sim',
      adapter: 'generic',
      baseUrl: env.sim.baseUrls.generic,
      authScheme: 'bearer',
      secret: 'sim-upstream-key-0001',
      routes: ['account:*'],
      timeoutMs: 2000,
      deadlineMs: 5000,
      maxConcurrency: 4,
      maxQueue: 4,
      retries: 1,
      breakerThreshold: 5,
      breakerCooldownMs: 30_000,
    });
    expect(set).toMatchObject({ ok: true });
    const row = env.ts.service.deps.db!.prepare("SELECT secret_sealed FROM provider_configs WHERE id = 'sim'").get() as { secret_sealed: string };
    expect(row.secret_sealed.startsWith('ss1:')).toBe(true);

    unlocked = false;
    const locked = await dispatch(h, 'providers:test', { id: 'sim' });
    expect(locked).toMatchObject({ ok: false, error: { message: expect.stringMatching(/keyring locked — unlock it or re-enter the credential/) } });

    unlocked = true;
    expect(await dispatch(h, 'providers:test', { id: 'sim' })).toMatchObject({ ok: true });
  });
});
