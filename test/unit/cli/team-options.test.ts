// `vconsole serve`'s team-server options (docs/team-server.md): from flags or their environment variables, a flag
// winning; the certificate and key read from their files and given together; proxy addresses checked.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { teamOptions, UsageError } from '../../../src-main/cli/main';

const dir = mkdtempSync(join(tmpdir(), 'vc-team-opts-'));
const cert = join(dir, 'cert.pem');
const key = join(dir, 'key.pem');
// A real throwaway certificate and key (the openssl command): the files are judged as PEM, not only read.
execFileSync('openssl', [
  'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
  '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=team.test',
], { stdio: ['ignore', 'ignore', 'pipe'] });
const garbage = join(dir, 'garbage.pem');
writeFileSync(garbage, 'garbage\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serve: team options', () => {
  it('none given: none set (a loopback service with its one-time link)', () => {
    expect(teamOptions({}, {})).toEqual({});
  });

  it('reads the environment, and a flag wins over its variable', () => {
    const env = { VCONSOLE_PUBLIC_URL: 'https://env.example.com', VCONSOLE_TLS_CERT: cert, VCONSOLE_TLS_KEY: key, VCONSOLE_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' };
    const fromEnv = teamOptions({}, env);
    expect(fromEnv.publicUrl).toBe('https://env.example.com');
    expect(fromEnv.tls).toEqual({ cert: readFileSync(cert), key: readFileSync(key) });
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

  it('refuses files that are no PEM certificate or key, naming them, and proxy values a hex pattern let through', () => {
    expect(() => teamOptions({ 'tls-cert': garbage, 'tls-key': key }, {})).toThrow(`--tls-cert: ${garbage} is not a PEM certificate`);
    expect(() => teamOptions({ 'tls-cert': cert, 'tls-key': garbage }, {})).toThrow(`--tls-key: ${garbage} is not a PEM private key`);
    // The key given as the certificate and the other way round.
    expect(() => teamOptions({ 'tls-cert': key, 'tls-key': cert }, {})).toThrow(UsageError);
    for (const bad of ['abc', 'cafe', 'dead::1/999', '10.0.0.0/33', '1.2.3', '127.1']) {
      expect(() => teamOptions({ 'trust-proxy': bad }, {}), bad).toThrow(/IP addresses or CIDR/);
    }
    expect(teamOptions({ 'trust-proxy': '10.0.0.1, 10.0.0.0/8, ::1, fd00::/8' }, {}).trustProxy).toEqual(['10.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']);
  });
});
