// A SecretBox on Electron's safeStorage (OS keychain / DPAPI / libsecret). New secrets are sealed with it where it is
// real protection; secrets sealed earlier by the headless key-file box still open, so switching doors never loses a
// stored credential. The box is always installed, so a value sealed with safeStorage on an earlier launch is
// recognised even when the keychain is locked or absent now, and the error says so (docs/packaging.md).
import { AppError } from '../../src-shared/app-error';
import type { SecretBox } from '../core/providers/secret-box';

export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(sealed: Buffer): string;
  getSelectedStorageBackend?(): string;
}

export const SAFE_STORAGE_PREFIX = 'ss1:';

/**
 * A credential sealed with the OS keychain that cannot be opened now. An AppError, so the console and the API show
 * its message (an administrator re-enters the credential) rather than a generic internal error.
 */
export class KeyringLockedError extends AppError {
  override name = 'KeyringLockedError';
  constructor(detail: string) {
    super('SERVICE_NOT_ENABLED', {
      message: `The credential is sealed with the OS keychain, which cannot open it now (keyring locked — unlock it or re-enter the credential). ${detail}`.trim(),
    });
  }
}

/**
 * safeStorage protects nothing where it is unavailable, or on Linux's 'basic_text' backend (a hard-coded password,
 * no better than the key file): then new values are sealed by `fallback`. Checked at each use, because a keyring
 * can be unlocked while the app runs.
 */
export function safeStorageUsable(ss: SafeStorageLike, platform: string = process.platform): boolean {
  if (!ss.isEncryptionAvailable()) return false;
  return !(platform === 'linux' && ss.getSelectedStorageBackend?.() === 'basic_text');
}

export function createSafeStorageBox(ss: SafeStorageLike, fallback: SecretBox, platform: string = process.platform): SecretBox {
  return {
    get kind() {
      return safeStorageUsable(ss, platform) ? 'electron safeStorage (OS keychain)' : fallback.kind;
    },
    seal: (plain) => (safeStorageUsable(ss, platform) ? SAFE_STORAGE_PREFIX + ss.encryptString(plain).toString('base64') : fallback.seal(plain)),
    open: (sealed) => {
      if (!sealed.startsWith(SAFE_STORAGE_PREFIX)) return fallback.open(sealed);
      if (!ss.isEncryptionAvailable()) throw new KeyringLockedError('The keychain is not available in this session.');
      try {
        return ss.decryptString(Buffer.from(sealed.slice(SAFE_STORAGE_PREFIX.length), 'base64'));
      } catch (err) {
        throw new KeyringLockedError(`(${err instanceof Error ? err.message : String(err)})`);
      }
    },
  };
}
