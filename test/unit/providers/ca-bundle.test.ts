// The provider CA bundle check (parseCaBundle): X.509 certificates only, described by subject and fingerprint,
// refused when expired, when unreadable, or when something else (a key) is pasted. Certificates are made here with
// openssl (as the simulator does) rather than checked in: a committed private key would look like a leaked secret.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { describeCa, parseCaBundle } from '../../../src-main/core/providers/provider-config';

function cert(cn: string): string {
  return execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', '/dev/null', '-days', '2', '-subj', `/CN=${cn}`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

const A = cert('Private Root A');
const B = cert('Private Root B');
const NOW = Date.now();
const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return { code: (e as { code?: string }).code, message: (e as { details?: { message: string }[] }).details?.[0]?.message ?? '' };
  }
  return null;
};

describe('parseCaBundle', () => {
  it('describes one certificate by subject, issuer, SHA-256 fingerprint and expiry', () => {
    const { info, pem } = parseCaBundle(`\n\n${A}\n`, NOW);
    const x = new X509Certificate(A);
    expect(info).toEqual({ subject: 'CN=Private Root A', issuer: 'CN=Private Root A', fingerprint256: x.fingerprint256, validTo: new Date(x.validTo).toISOString(), count: 1 });
    expect(pem.startsWith('-----BEGIN CERTIFICATE-----')).toBe(true);
    expect(describeCa(pem)).toEqual(info);
  });

  it('keeps a bundle of several certificates (the first one is described)', () => {
    const { info, pem } = parseCaBundle(`${A}${B}`, NOW);
    expect(info.count).toBe(2);
    expect(info.subject).toBe('CN=Private Root A');
    expect(pem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });

  it('refuses an expired certificate', () => {
    const later = Date.parse(new X509Certificate(A).validTo) + 1000;
    expect(codeOf(() => parseCaBundle(A, later))).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/expired/) });
  });

  it('refuses text that is not a certificate, a damaged certificate, and any other PEM block', () => {
    expect(codeOf(() => parseCaBundle('hello', NOW))).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/no PEM certificate/) });
    const damaged = A.replace(/\n[A-Za-z0-9+/]{20}/, '\nAAAAAAAAAAAAAAAAAAAA');
    expect(codeOf(() => parseCaBundle(damaged, NOW))).toMatchObject({ code: 'VALIDATION_ERROR' });
    const pub = new X509Certificate(A).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(codeOf(() => parseCaBundle(`${A}${pub}`, NOW))).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/public key/) });
  });

  it('refuses a private key pasted with the certificate', () => {
    expect(codeOf(() => parseCaBundle(`${A}-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n`, NOW))).toMatchObject({ message: expect.stringMatching(/private key/) });
  });
});
