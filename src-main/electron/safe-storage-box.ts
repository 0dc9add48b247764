// A SecretBox on Electron's safeStorage (OS keychain / DPAPI / libsecret). New secrets are sealed with it; secrets
// sealed earlier by the headless key-file box still open, so switching doors never loses a stored credential.
import type { SecretBox } from '../core/providers/secret-box';

export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(sealed: Buffer): string;
  getSelectedStorageBackend?(): string;
}

const PREFIX = 'ss1:';

/**
 * Returns null where safeStorage offers no real protection: unavailable, or Linux's 'basic_text' backend (a
 * hard-coded password, no better than the key file) — the caller then keeps the default key-file box.
 */
export function createSafeStorageBox(ss: SafeStorageLike, fallback: SecretBox, platform: string = process.platform): SecretBox | null {
  if (!ss.isEncryptionAvailable()) return null;
  if (platform === 'linux' && ss.getSelectedStorageBackend?.() === 'basic_text') return null;
  return {
    kind: 'electron safeStorage (OS keychain)',
    seal: (plain) => PREFIX + ss.encryptString(plain).toString('base64'),
    open: (sealed) => (sealed.startsWith(PREFIX) ? ss.decryptString(Buffer.from(sealed.slice(PREFIX.length), 'base64')) : fallback.open(sealed)),
  };
}
