// `vconsole serve`'s team-server options (docs/team-server.md): from flags or their environment variables, a flag
// winning; the certificate and key read from their files and given together; proxy addresses checked.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { teamOptions, UsageError } from '../../../src-main/cli/main';

const dir = mkdtempSync(join(tmpdir(), 'vc-team-opts-'));
const cert = join(dir, 'cert.pem');
const key = join(dir, 'key.pem');
writeFileSync(cert, 'CERT');
writeFileSync(key, 'KEY');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serve: team options', () => {
  it('none given: none set (a loopback service with its one-time link)', () => {
    expect(teamOptions({}, {})).toEqual({});
  });

  it('reads the environment, and a flag wins over its variable', () => {
    const env = { VCONSOLE_PUBLIC_URL: 'https://env.example.com', VCONSOLE_TLS_CERT: cert, VCONSOLE_TLS_KEY: key, VCONSOLE_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' };
    const fromEnv = teamOptions({}, env);
    expect(fromEnv.publicUrl).toBe('https://env.example.com');
    expect(fromEnv.tls).toEqual({ cert: Buffer.from('CERT'), key: Buffer.from('KEY') });
    expect(fromEnv.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(teamOptions({ 'public-url': 'https://flag.example.com:8443' }, env).publicUrl).toBe('https://flag.example.com:8443');
  });

  it('refuses a bad public URL, a certificate without its key, an unreadable file and a proxy that is not an address', () => {
    expect(() => teamOptions({ 'public-url': 'console.example.com' }, {})).toThrow(UsageError);
    expect(() => teamOptions({ 'public-url': 'https://console.example.com/console' }, {})).toThrow(/without a path/);
    expect(() => teamOptions({ 'tls-cert': cert }, {})).toThrow(/go together/);
    expect(() => teamOptions({ 'tls-cert': cert, 'tls-key': join(dir, 'missing.pem') }, {})).toThrow(/cannot read/);
    expect(() => teamOptions({ 'trust-proxy': 'proxy.internal' }, {})).toThrow(/IP addresses or CIDR/);
  });
});
