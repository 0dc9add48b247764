// `vconsole simulator` run as a user runs it: a child process that prints its URL, answers, logs and stops on SIGTERM.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

describe('vconsole simulator', () => {
  it('prints its URL and base URLs, answers each API, logs one line per request and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/vconsole.mjs', 'simulator', '--port', '0', '--fault', 'status=503', '--fault-count', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (out += c));
    child.stderr.on('data', () => undefined);
    const exited = once(child, 'exit');
    try {
      await expect.poll(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1], { timeout: 20_000, interval: 100 }).toBeTruthy();
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
      expect(out).toContain(`generic  baseUrl: ${url}`);
      expect(out).toContain(`epc-vop  baseUrl: ${url}`);
      expect(out).toContain(`uk-cop   baseUrl: ${url}`);

      const headers = { authorization: 'Bearer sk_secret_demo', 'content-type': 'application/json', 'idempotency-key': 'vrf_cli' };
      const body = JSON.stringify({ reference: 'vrf_cli', kind: 'account', country: 'NG', query: { accountNumber: '0123456789' } });
      // The configured --fault hits the first request only.
      expect((await fetch(`${url}/v1/checks/account`, { method: 'POST', headers, body })).status).toBe(503);
      const ok = await fetch(`${url}/v1/checks/account`, { method: 'POST', headers, body });
      expect(await ok.json()).toMatchObject({ reference: 'vrf_cli', result: 'MATCH' });
      const vop = await fetch(`${url}/payee-verifications`, {
        method: 'POST',
        headers: { authorization: 'Bearer x', 'x-request-id': 'b1d2c3e4-0000-4000-8000-000000000001' },
        body: JSON.stringify({ requestId: 'b1d2c3e4-0000-4000-8000-000000000001', partyName: 'Max Mustermann', partyAccount: { iban: 'DE89370400440532013000' } }),
      });
      expect(await vop.json()).toMatchObject({ verificationResult: 'MTCH' });
      const cop = await fetch(`${url}/open-banking/v3.1/pisp/account-name-check`, {
        method: 'POST',
        headers: { authorization: 'Bearer x' },
        body: JSON.stringify({ Data: { SchemeName: 'SortCodeAccountNumber', AccountType: 'Personal', Identification: '20000055779911', Name: 'Jane Smith' } }),
      });
      expect(await cop.json()).toMatchObject({ Data: { VerificationReport: { Matched: true } } });

      await expect.poll(() => out.split('\n').filter((l) => l.includes(' POST ')).length, { timeout: 10_000 }).toBe(4);
      const lines = out.split('\n').filter((l) => l.includes(' POST '));
      expect(lines[0]).toMatch(/POST \/v1\/checks\/account key=vrf_cli fault=status=503 -> 503/);
      expect(lines[1]).toMatch(/-> 200 MATCH$/);
      expect(out).not.toContain('sk_secret_demo');
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await exited;
    expect(code).toBe(0);
  });

  it('refuses an unknown fault with exit code 2', () => {
    const r = spawnSync(process.execPath, ['bin/vconsole.mjs', 'simulator', '--fault', 'explode'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown fault "explode"');
  });

  it('refuses an empty --api-key with exit code 2 (it would refuse every request)', () => {
    for (const key of ['', '  ']) {
      const r = spawnSync(process.execPath, ['bin/vconsole.mjs', 'simulator', '--port', '0', '--api-key', key], { encoding: 'utf8', timeout: 25_000 });
      expect(r.status, r.stdout).toBe(2);
      expect(r.stderr).toContain('--api-key must not be empty');
    }
  });
});
