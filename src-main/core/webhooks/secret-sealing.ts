// Webhook signing secrets at rest: sealed with the data folder's key-file box on write, opened only to sign, and
// a start-up step that seals rows written in plain text by earlier versions (docs/webhooks.md "Secrets at rest").
import type { CoreDeps } from '../context';
import type { SecretBox } from '../providers/secret-box';

/**
 * What createNodeSecretBox's seal() output starts with. Webhook secrets are always sealed with that box, never
 * safeStorage, so the headless `vconsole serve` can sign for a store the desktop app also uses (docs/webhooks.md).
 */
export const SEALED_PREFIX = 'gcm1:';

/** How much of a secret the API shows after the one-time reveal (`secretPrefix`: "whsec_" + 4 characters). */
export const SHOWN_PREFIX_LENGTH = 10;

export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}

export function webhookSecretBox(deps: CoreDeps): SecretBox {
  if (!deps.secrets) throw new Error('CoreDeps.secrets is not set: webhook secrets cannot be sealed or opened (createCore sets it)');
  return deps.secrets;
}

export function sealWebhookSecret(deps: CoreDeps, plain: string): string {
  // The empty string marks an erased (deleted) webhook's secret; it is never a secret to seal.
  if (plain === '') throw new Error('refusing to seal an empty webhook secret');
  return webhookSecretBox(deps).seal(plain);
}

/**
 * The secret to sign with. A plain value passes through: rows written by older code (or by a writer that does not
 * seal yet) keep signing until the next start seals them. An erased secret (deleted webhook) stays empty.
 */
export function openWebhookSecret(deps: CoreDeps, stored: string): string {
  if (!isSealed(stored)) return stored;
  // Every attempt signs, and opening (AES-GCM with a fresh decipher) cost more than both signatures: the opened
  // value is kept per sealed value. A rotation seals a new value (a new entry), so nothing stale is ever used; the
  // box's own key is held in memory anyway, so this keeps nothing an attacker in the process could not open.
  // Keyed by the box, not by deps: a transaction's deps ({ ...deps, sql: tx }) share it.
  const box = webhookSecretBox(deps);
  let cache = opened.get(box);
  if (!cache) {
    cache = new Map();
    opened.set(box, cache);
  }
  let plain = cache.get(stored);
  if (plain === undefined) {
    plain = box.open(stored);
    if (cache.size >= OPENED_CACHE_SIZE) cache.clear();
    cache.set(stored, plain);
  }
  return plain;
}

const OPENED_CACHE_SIZE = 1000;
const opened = new WeakMap<SecretBox, Map<string, string>>();

/** The opened secret, or null when it does not open (another folder's or a lost key). */
export function tryOpenWebhookSecret(deps: CoreDeps, stored: string): string | null {
  try {
    return openWebhookSecret(deps, stored);
  } catch {
    return null;
  }
}

// The empty string is an erased secret (deleted webhook), neither plain nor sealed.
function isPlain(stored: string): boolean {
  return stored !== '' && !isSealed(stored);
}

/** Seals a value unless it already is (or is the erased empty string). */
export function sealIfPlain(deps: CoreDeps, stored: string): string {
  return isPlain(stored) ? sealWebhookSecret(deps, stored) : stored;
}

interface PlainRow {
  id: string;
  secret: string;
  previous_secret: string | null;
  secret_prefix: string | null;
}

export interface SealReport {
  /** Rows whose secret or previous secret was plain and is now sealed. */
  sealed: number;
  /** Rows whose shown prefix was missing and is now filled in. */
  prefixed: number;
  /** Rows whose sealed secret does not open (key file replaced or lost): they cannot sign; logged as a warning. */
  unreadable: number;
}

/**
 * One-time, idempotent: seals every plain `secret` / `previous_secret` and fills `secret_prefix`, in one
 * transaction. When it changed anything, the rewritten pages are zeroed (secure_delete) and the WAL is checkpointed
 * and truncated, so the plain values do not linger in free space of the store files.
 */
export async function sealPlainWebhookSecrets(deps: CoreDeps): Promise<SealReport> {
  const report: SealReport = { sealed: 0, prefixed: 0, unreadable: 0 };
  const rows = await deps.sql.all<PlainRow>(
    `SELECT id, secret, previous_secret, secret_prefix FROM webhooks
     WHERE (secret <> '' AND substr(secret, 1, ${SEALED_PREFIX.length}) <> '${SEALED_PREFIX}')
        OR (previous_secret IS NOT NULL AND previous_secret <> '' AND substr(previous_secret, 1, ${SEALED_PREFIX.length}) <> '${SEALED_PREFIX}')
        OR (secret_prefix IS NULL AND secret <> '')`,
  );
  if (rows.length === 0) return report;

  // SQLite engine only: zeroing freed pages and truncating the WAL (PostgreSQL's storage is not ours to scrub).
  const db = deps.sql.engine === 'sqlite' ? deps.db : null;
  const before = db ? (db.pragma('secure_delete', { simple: true }) as number) : 0;
  db?.pragma('secure_delete = ON');
  try {
    await deps.sql.transaction(async (tx) => {
      for (const r of rows) {
        const plainSecret = tryOpenWebhookSecret(deps, r.secret);
        if (plainSecret === null) report.unreadable += 1;
        const secret = sealIfPlain(deps, r.secret);
        const previous = r.previous_secret === null ? null : sealIfPlain(deps, r.previous_secret);
        const prefix = r.secret_prefix ?? (plainSecret ? plainSecret.slice(0, SHOWN_PREFIX_LENGTH) : null);
        const sealedNow = isPlain(r.secret) || (r.previous_secret !== null && isPlain(r.previous_secret));
        if (!sealedNow && prefix === r.secret_prefix) continue;
        await tx.run('UPDATE webhooks SET secret = ?, previous_secret = ?, secret_prefix = ? WHERE id = ?', [secret, previous, prefix, r.id]);
        if (sealedNow) report.sealed += 1;
        if (r.secret_prefix === null && prefix !== null) report.prefixed += 1;
      }
    });
    if (report.sealed > 0) db?.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db?.pragma(`secure_delete = ${before ? 'ON' : 'OFF'}`);
  }
  if (report.sealed > 0 || report.unreadable > 0) {
    // Counts only: never a value.
    deps.log[report.unreadable > 0 ? 'warn' : 'info'](report, 'webhook signing secrets sealed at rest');
  }
  return report;
}
