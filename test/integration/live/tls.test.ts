// TLS trust for private upstreams: a provider's own CA certificate (PEM) is the only root its undici agent trusts.
// Against the simulator's HTTPS mode (a throwaway self-signed certificate): with its CA the live check succeeds;
// without it the TLS handshake fails, which is VERIFICATION_UNAVAILABLE, not retried, and reversed once.
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VERIFICATION_ERRORS } from '../../../src-shared/errors';
import { liveProviders } from '../../../src-main/providers/registry';
import { startSimulator, type SimulatorHandle } from '../../../src-main/simulator';
import { BALANCE, balance, expectBilling, FAST, NG, startLive, verify, type LiveEnv } from './live-helpers';

let env: LiveEnv;
let tls: SimulatorHandle;
beforeEach(async () => {
  env = await startLive();
  tls = await startSimulator({ tls: true, apiKey: 'sim-upstream-key-0001' });
});
afterEach(async () => {
  await env.stop();
  await tls.stop();
});

const set = (extra: Record<string, unknown>) =>
  liveProviders(env.ts.service.rt).config.set({
    id: 'private',
    adapter: 'generic',
    baseUrl: tls.baseUrls.generic,
    secret: 'sim-upstream-key-0001',
    routes: ['account:*'],
    ...FAST,
    ...extra,
  });

describe('a provider CA certificate', () => {
  it('the simulator really is HTTPS', () => {
    expect(tls.baseUrls.generic).toMatch(/^https:\/\/127\.0\.0\.1:\d+/);
    expect(tls.ca).toContain('-----BEGIN CERTIFICATE-----');
  });

  it('with the CA: the live check succeeds over TLS; the view shows subject and fingerprint, not the PEM', async () => {
    const stored = await set({ caCert: tls.ca! });
    const fp = new X509Certificate(tls.ca!).fingerprint256;
    expect(stored.ca).toMatchObject({ subject: 'CN=vconsole simulator (test only)', fingerprint256: fp, count: 1 });
    const reg = liveProviders(env.ts.service.rt);
    const view = reg.view((await reg.config.get('private'))!);
    expect(JSON.stringify(view)).not.toContain('BEGIN CERTIFICATE');
    expect(view.ca?.fingerprint256).toBe(fp);

    const rec = await verify(env, 'account', NG());
    expect(rec).toMatchObject({ status: 'success', source: 'live', accountName: 'Adaeze Nwosu' });
    expect(tls.executions(rec['id'])).toBe(1);
    await expectBilling(env, rec['id'], false);

    // Saving without caCert keeps the stored CA; clearCaCert removes it.
    expect((await set({})).ca?.fingerprint256).toBe(fp);
    expect((await set({ clearCaCert: true })).ca).toBeNull();
  });

  it('without the CA: TLS error → VERIFICATION_UNAVAILABLE, not retried, charged and reversed once', async () => {
    await set({});
    const rec = await verify(env, 'account', NG());
    expect(rec['status']).toBe('error');
    expect(rec['error']).toEqual({ code: 'VERIFICATION_UNAVAILABLE', message: VERIFICATION_ERRORS.VERIFICATION_UNAVAILABLE.message });
    expect(rec['charge']).toMatchObject({ status: 'reversed' });
    await expectBilling(env, rec['id'], true);
    expect(await balance(env)).toBe(BALANCE);
    // The handshake failed: no request reached the upstream, and the failure is named for the administrator.
    expect(tls.requests()).toHaveLength(0);
    const reg = liveProviders(env.ts.service.rt);
    expect(reg.view((await reg.config.get('private'))!).state.lastError).toMatch(/TLS certificate not trusted/);
  });

  it('a different CA is not enough: the upstream must chain to the configured one', async () => {
    // Another throwaway self-signed certificate (a Node test fixture would be a checked-in key: made here instead).
    const { execFileSync } = await import('node:child_process');
    const other = execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', '/dev/null', '-days', '1', '-subj', '/CN=some other CA'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    await set({ caCert: other });
    const rec = await verify(env, 'account', NG());
    expect(rec['error'].code).toBe('VERIFICATION_UNAVAILABLE');
    await expectBilling(env, rec['id'], true);
  });
});

describe('CA certificate validation on save', () => {
  const fail = async (extra: Record<string, unknown>) => {
    try {
      await set(extra);
    } catch (e) {
      return (e as { code?: string; details?: { field: string; message: string }[] });
    }
    throw new Error('expected a VALIDATION_ERROR');
  };

  it('refuses text that is not an X.509 certificate', async () => {
    const e = await fail({ caCert: '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n' });
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.details?.[0]).toMatchObject({ field: 'caCert' });
  });

  it('refuses a private key pasted by mistake, and never stores it', async () => {
    const e = await fail({ caCert: `${tls.ca}\n-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n` });
    expect(e.details?.[0]?.message).toMatch(/private key/);
    expect(await liveProviders(env.ts.service.rt).config.get('private')).toBeNull();
  });

  it('a CA needs an https:// base URL (plain http stays for loopback only, without a CA)', async () => {
    const e = await fail({ caCert: tls.ca!, baseUrl: env.sim.baseUrls.generic });
    expect(e.details?.[0]).toMatchObject({ field: 'caCert' });
    // A stored CA is checked too when only the URL changes.
    await set({ caCert: tls.ca! });
    expect((await fail({ baseUrl: env.sim.baseUrls.generic })).details?.[0]?.message).toMatch(/https/);
  });
});

describe('vconsole providers set --ca-file (CLI)', () => {
  it('stores the CA from a file (shown as subject + fingerprint), the probe passes TLS with it and fails without', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-cli-ca-'));
    const caFile = join(dir, 'upstream-ca.pem');
    writeFileSync(caFile, tls.ca!);
    const run = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const c = spawn(process.execPath, ['bin/vconsole.mjs', ...args, '--data-dir', join(dir, 'data')], { env: { ...process.env, UPSTREAM_KEY: 'sim-upstream-key-0001' } });
        let stdout = '';
        let stderr = '';
        c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        c.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    try {
      // The data folder's store first (the CLI refuses a folder with no store: a mistyped --data-dir made a new one).
      expect((await run('migrate')).status).toBe(0);
      const set = await run('providers', 'set', 'private', '--adapter', 'generic', '--base-url', tls.baseUrls.generic, '--route', 'account:GH', '--secret-env', 'UPSTREAM_KEY', '--ca-file', caFile, '--json');
      expect(set.status, set.stderr).toBe(0);
      const view = JSON.parse(set.stdout);
      expect(view.ca).toMatchObject({ subject: 'CN=vconsole simulator (test only)', fingerprint256: new X509Certificate(tls.ca!).fingerprint256 });
      expect(set.stdout).not.toContain('BEGIN CERTIFICATE');
      const ok = await run('providers', 'test', 'private', '--json');
      expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true });
      const cleared = await run('providers', 'set', 'private', '--clear-ca', '--json');
      expect(JSON.parse(cleared.stdout).ca).toBeNull();
      const refused = await run('providers', 'test', 'private', '--json');
      expect(refused.status).toBe(1);
      expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, httpStatus: null, message: expect.stringMatching(/TLS certificate is not trusted/) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
