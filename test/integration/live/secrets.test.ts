// Provider credentials (issue 7, item 5): sealed at rest (the SQLite file and its WAL never hold the plain value),
// never returned by a console channel or the CLI, never logged; the live check still authenticates with it.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { liveProviders } from '../../../src-main/providers/registry';
import { startSimulator } from '../../../src-main/simulator';
import { sqliteOnly } from '../../helpers/harness';
import { expectBilling, NG, setProvider, startLive, verify, type LiveEnv } from './live-helpers';

const SECRET = 'sk_live_DO-NOT-LEAK-7f3a9c1e5b';

let env: LiveEnv | null = null;
afterEach(async () => {
  await env?.stop();
  env = null;
});

function dbBytes(dataDir: string): string {
  return ['verification-console.sqlite', 'verification-console.sqlite-wal']
    .map((f) => join(dataDir, f))
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('');
}

describe('provider secrets', () => {
  // Reads the SQLite file and its WAL: SQLite only.
  sqliteOnly.it('are sealed in SQLite, masked in every channel output, and still used to authenticate upstream', async () => {
    env = await startLive();
    const sim = await startSimulator({ apiKey: SECRET });
    try {
      const h = env.ts.service.handlers;
      const saved = await h['providers:set']({
        id: 'sim',
        adapter: 'generic',
        baseUrl: sim.baseUrls.generic,
        authScheme: 'bearer',
        secret: SECRET,
        routes: ['account:*'],
        timeoutMs: 2000,
        deadlineMs: 5000,
        maxConcurrency: 4,
        maxQueue: 4,
        retries: 1,
        breakerThreshold: 5,
        breakerCooldownMs: 30_000,
      });
      expect(saved.secret).toEqual({ configured: true, masked: `••••${SECRET.slice(-4)}` });
      const outputs = [saved, await h['providers:list']({}), await h['providers:test']({ id: 'sim' })];
      for (const o of outputs) expect(JSON.stringify(o)).not.toContain(SECRET.slice(0, 12));

      const rec = await verify(env, 'account', NG());
      expect(rec['status']).toBe('success');
      expect(sim.requests()[0]!.headers['authorization']).toBeDefined();
      await expectBilling(env, rec['id'], false);

      const row = env.ts.service.deps.db!.prepare("SELECT secret_sealed FROM provider_configs WHERE id = 'sim'").get() as { secret_sealed: string };
      expect(row.secret_sealed).not.toContain(SECRET);
      expect(liveProviders(env.ts.service.rt).config.box.open(row.secret_sealed)).toBe(SECRET);
      expect(dbBytes(env.ts.dataDir)).not.toContain(SECRET);
      // The Node fallback's key file is private to the user.
      expect(statSync(join(env.ts.dataDir, 'secret.key')).mode & 0o077).toBe(0);

      // Re-saving without a secret keeps it; clearing removes it.
      const kept = await h['providers:set']({ ...saved, mapping: undefined, secret: undefined } as never);
      expect(kept.secret.configured).toBe(true);
      const cleared = await liveProviders(env.ts.service.rt).config.set({ id: 'sim', adapter: 'generic', baseUrl: sim.baseUrls.generic, routes: ['account:*'], clearSecret: true });
      expect(cleared.secretConfigured).toBe(false);
    } finally {
      await sim.stop();
    }
  });

  it('the api-key scheme sends X-API-Key, which the simulator accepts, and its request log never shows the key', async () => {
    env = await startLive();
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'], authScheme: 'api-key' });
    const rec = await verify(env, 'account', NG());
    expect(rec).toMatchObject({ status: 'success', accountName: 'Adaeze Nwosu' });
    await expectBilling(env, rec['id'], false);
    expect(env.sim.requests().at(-1)!.headers['x-api-key']).toBe('sim-upstream-key-0001');
    const log = await (await fetch(`${env.sim.url}/_sim/requests`)).text();
    expect(log).toContain('"x-api-key":"***"');
    expect(log).not.toContain('sim-upstream-key-0001');
  });

  it('the health probe says the credentials are refused when they are wrong (the simulator checks them before its 404)', async () => {
    env = await startLive();
    const reg = liveProviders(env.ts.service.rt);
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'] });
    expect(await reg.probe('sim')).toMatchObject({ ok: true, httpStatus: 404 });
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'], secret: 'not-the-simulator-key' });
    expect(await reg.probe('sim')).toMatchObject({ ok: false, httpStatus: 401, message: 'The upstream refused the credentials.' });
  });

  it('a plain-http base URL is refused unless it is loopback; credentials may not sit in the URL', async () => {
    env = await startLive();
    const cfg = liveProviders(env.ts.service.rt).config;
    await expect(cfg.set({ id: 'x', adapter: 'generic', baseUrl: 'http://upstream.example.com', routes: [] })).rejects.toThrow(/validation/i);
    await expect(cfg.set({ id: 'x', adapter: 'generic', baseUrl: 'https://user:pw@upstream.example.com', routes: [] })).rejects.toThrow(/validation/i);
    expect(await cfg.set({ id: 'x', adapter: 'generic', baseUrl: 'https://upstream.example.com/', routes: ['account:gb'] })).toMatchObject({ baseUrl: 'https://upstream.example.com', routes: ['account:GB'] });
  });

  it('never appear in info-level logs of a live check, even when the upstream fails', async () => {
    const lines: string[] = [];
    env = await startLive({ logLevel: 'debug', logStream: { write: (l: string) => void lines.push(l) } });
    await setProvider(env, { id: 'sim', adapter: 'generic', routes: ['account:*'], secret: SECRET });
    env.sim.setFault('status=503');
    const rec = await verify(env, 'account', NG());
    expect(rec['error'].code).toBe('VERIFICATION_UNAVAILABLE');
    const all = lines.join('');
    // The failure was logged (so the grep below looks at real lines), without the credential.
    expect(all).toContain('upstream check failed');
    expect(all).not.toContain(SECRET);
    // The redaction itself: a credential handed to the logger by mistake is censored.
    env.ts.service.deps.log.warn({ provider: { secret: SECRET }, headers: { authorization: `Bearer ${SECRET}` } }, 'oops');
    expect(lines.join('')).not.toContain(SECRET);
  });
});

// The CLI's admin commands act on a data folder (SQLite) only in this version (cli/kit.ts, PG_NOT_YET).
sqliteOnly.describe('vconsole providers (CLI)', () => {
  it('set reads the secret from an environment variable; list/set/test outputs never print it', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-cli-'));
    const sim = await startSimulator({ apiKey: SECRET });
    // Asynchronous: the simulator answers from this same process while the CLI runs.
    const run = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const c = spawn(process.execPath, ['bin/vconsole.mjs', ...args, '--data-dir', dir], { env: { ...process.env, UPSTREAM_KEY: SECRET } });
        let stdout = '';
        let stderr = '';
        c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        c.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    try {
      const boot = await run('bootstrap', '--email', 'owner@example.com', '--password', 'correct horse battery staple');
      expect(boot.status, boot.stderr).toBe(0);
      const set = await run('providers', 'set', 'sim', '--adapter', 'generic', '--base-url', sim.baseUrls.generic, '--route', 'account:*', '--route', 'phone:KE', '--secret-env', 'UPSTREAM_KEY', '--timeout-ms', '1500', '--json');
      expect(set.status, set.stderr).toBe(0);
      const view = JSON.parse(set.stdout);
      expect(view).toMatchObject({ id: 'sim', adapter: 'generic', routes: ['account:*', 'phone:KE'], timeoutMs: 1500, secret: { configured: true } });
      // Changing one option keeps the others (and the secret).
      const again = await run('providers', 'set', 'sim', '--retries', '0', '--json');
      expect(JSON.parse(again.stdout)).toMatchObject({ retries: 0, timeoutMs: 1500, secret: { configured: true } });
      const list = await run('providers', 'list');
      expect(list.stdout).toContain('sim');
      expect(list.stdout).toContain('••••');
      const test = await run('providers', 'test', 'sim', '--json');
      expect(JSON.parse(test.stdout)).toMatchObject({ id: 'sim' });
      for (const r of [set, again, list, test]) expect(r.stdout + r.stderr).not.toContain(SECRET);
      expect(dbBytes(dir)).not.toContain(SECRET);
      const bad = await run('providers', 'set', 'sim2', '--adapter', 'generic', '--base-url', 'http://example.com');
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain('baseUrl');
      expect((await run('providers', 'bogus')).status).toBe(2);
      const rm = await run('providers', 'remove', 'sim', '--json');
      expect(JSON.parse(rm.stdout)).toEqual({ id: 'sim', removed: true });
    } finally {
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

