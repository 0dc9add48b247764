// The vconsole command line, run as a user runs it (a child process on a temp data folder).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function vconsole(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/vconsole.mjs', ...args], { encoding: 'utf8', env: { ...process.env, VCONSOLE_DATA_DIR: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('vconsole', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vc-cli-'));

  it('bootstraps with --json and prints the two keys once', () => {
    const r = vconsole('bootstrap', '--data-dir', dir, '--email', 'owner@cli.test', '--password', 'cli-password-1', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { organizationId: string; owner: { email: string }; keys: { sandbox: string; live: string } };
    expect(j.organizationId).toMatch(/^org_/);
    expect(j.owner.email).toBe('owner@cli.test');
    expect(j.keys.sandbox).toMatch(/^svc_sandbox_[0-9a-f]{64}$/);
    expect(j.keys.live).toMatch(/^svc_live_[0-9a-f]{64}$/);
  });

  it('creates users and keys, lists and revokes keys', () => {
    expect(vconsole('users', 'create', '--data-dir', dir, '--email', 'dev@cli.test', '--password', 'dev-password-1', '--role', 'DEVELOPER').code).toBe(0);
    const created = JSON.parse(vconsole('keys', 'create', '--data-dir', dir, '--name', 'ci', '--environment', 'sandbox', '--json').out) as { id: string; key: string };
    expect(created.key).toMatch(/^svc_sandbox_/);
    const listed = JSON.parse(vconsole('keys', 'list', '--data-dir', dir, '--json').out) as { id: string; key?: string }[];
    expect(listed.map((k) => k.id)).toContain(created.id);
    expect(listed.every((k) => k.key === undefined)).toBe(true);
    const revoked = JSON.parse(vconsole('keys', 'revoke', created.id, '--data-dir', dir, '--json').out) as { status: string };
    expect(revoked.status).toBe('revoked');
  });

  it('tops up the wallet, sets a price and enables a service', () => {
    expect(vconsole('wallet', 'topup', '12.50', '--data-dir', dir).code).toBe(0);
    expect(vconsole('prices', 'set', 'account:NG', '0.75', '--data-dir', dir).code).toBe(0);
    expect(vconsole('services', 'enable', 'account:NG', '--data-dir', dir).code).toBe(0);
    const w = JSON.parse(vconsole('wallet', 'show', '--data-dir', dir, '--json').out) as { balance: number; currency: string };
    expect(w).toMatchObject({ balance: 1250, currency: 'USD' });
    const prices = JSON.parse(vconsole('prices', 'list', '--data-dir', dir, '--json').out) as { service: string; amount: number }[];
    expect(prices).toContainEqual(expect.objectContaining({ service: 'account:NG', amount: 75 }));
  });

  it('verifies from the command line through the same rules as the API', () => {
    const ok = vconsole('verify', 'account', '--data-dir', dir, '--json', '--body', '{"country":"NG","accountNumber":"0123456789","bankCode":"058"}');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ status: 'success', verified: true, accountName: 'ADAEZE OKAFOR' });
    const notFound = vconsole('verify', 'account', '--data-dir', dir, '--body', '{"country":"NG","accountNumber":"0000000000","bankCode":"058","mode":"async"}', '--wait');
    expect(notFound.code).toBe(1);
    expect(notFound.out).toContain('ACCOUNT_NOT_FOUND');
    const invalid = vconsole('verify', 'phone', '--data-dir', dir, '--body', '{"country":"KE"}');
    expect(invalid.code).toBe(1);
    expect(invalid.err).toContain('phoneNumber');
  });

  it('answers bad usage with exit code 2 and a message, failed operations with 1', () => {
    const bad = vconsole('keys', 'create', '--data-dir', dir, '--name', 'x', '--environment', 'staging');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--environment must be sandbox or live');
    expect(vconsole('wallet', 'topup', '-5', '--data-dir', dir).code).toBe(2);
    expect(vconsole('frobnicate').code).toBe(2);
    const missing = vconsole('keys', 'revoke', 'key_doesnotexist', '--data-dir', dir);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/No API key/);
    const dup = vconsole('bootstrap', '--data-dir', dir, '--email', 'owner@cli.test', '--password', 'cli-password-1');
    expect(dup.code).toBe(1);
  });
});
