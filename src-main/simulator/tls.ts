// A throwaway self-signed certificate for the simulator's HTTPS mode (loopback only). Made with the `openssl`
// binary once per process: Node cannot create certificates itself, and a checked-in private key would be a secret.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SimCert {
  key: string;
  cert: string;
}

let cached: SimCert | null = null;

export function simulatorCertificate(): SimCert {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'vconsole-sim-tls-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    try {
      execFileSync(
        'openssl',
        [
          'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
          '-keyout', keyPath, '-out', certPath, '-days', '2', '-subj', '/CN=vconsole simulator (test only)',
          '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
    } catch (e) {
      throw new Error(`simulator --tls needs the openssl command to make a test certificate: ${(e as Error).message}`, { cause: e });
    }
    cached = { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
