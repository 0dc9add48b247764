// Encryption at rest for credentials the service must read back (provider API keys): a SecretBox seals and opens
// strings. Electron's safeStorage box is injected by the main process; this Node fallback keeps a key file.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SecretBox {
  /** A printable sealed form; never equal to (nor containing) the plain value. */
  seal(plain: string): string;
  open(sealed: string): string;
  /** Shown in diagnostics: which protection is in force. */
  readonly kind: string;
}

const PREFIX = 'gcm1:';

export interface NodeSecretBoxOptions {
  /** The key already read and checked at start (core/providers/secret-key-check.ts): the file is not read again. */
  key?: Buffer;
}

/**
 * AES-256-GCM with a random 32-byte key in `<dataDir>/secret.key` (mode 0600). It protects the database file when it
 * is copied or backed up alone; someone who can read the data dir can read the key, which is why the Electron app
 * prefers the OS keychain (safeStorage).
 */
export function createNodeSecretBox(dataDir: string, o: NodeSecretBoxOptions = {}): SecretBox {
  const keyPath = join(dataDir, 'secret.key');
  let key: Buffer | null = o.key ?? null;
  const getKey = (): Buffer => {
    if (key) return key;
    if (!existsSync(keyPath)) {
      // 'wx' fails if another process created the file in between; then we read theirs.
      try {
        writeFileSync(keyPath, randomBytes(32), { mode: 0o600, flag: 'wx' });
      } catch (err) {
        if ((err as { code?: string }).code !== 'EEXIST') throw err;
      }
    }
    const k = readFileSync(keyPath);
    if (k.length !== 32) throw new Error(`${keyPath} is not a 32-byte key`);
    try {
      chmodSync(keyPath, 0o600);
    } catch {
      /* best effort on filesystems without modes */
    }
    key = k;
    return k;
  };
  return {
    kind: 'aes-256-gcm (key file)',
    seal(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', getKey(), iv);
      const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return PREFIX + Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64');
    },
    open(sealed) {
      if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed value of this box');
      const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
      const d = createDecipheriv('aes-256-gcm', getKey(), raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
    },
  };
}

/**
 * What the store records of the key its secrets are sealed with (docs/team-server.md, "The data key"): an HMAC of a
 * fixed label under the key. It names the key without revealing it; the key cannot be recovered from it.
 */
export function keyFingerprint(key: Buffer): string {
  return `hmac-sha256:${createHmac('sha256', key).update('vconsole secret.key fingerprint v1').digest('hex')}`;
}

/** What is shown for a stored secret: never the value, only that it exists and its last four characters. */
export function maskSecret(last4: string | null): string | null {
  return last4 === null ? null : `••••${last4}`;
}

