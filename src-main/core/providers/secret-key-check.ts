// Which data key (`<dataDir>/secret.key`) the store's sealed secrets belong to, checked at every start on both engines
// (docs/team-server.md, "The data key"). The store keeps the key's fingerprint (never the key) in `settings`. On
// PostgreSQL (instances share the store) a data folder whose key is missing or another refuses to start, so no
// instance ever makes a second key for a store whose secrets were sealed with a first one. On SQLite (one service per
// folder) the folder's key becomes the store's, with a warning when it opens none of the sealed values: a refusal
// there would protect no one and keep the app from starting. A store without a fingerprint (new, or from before the
// check) records the key of its first start (made then if missing), so the first instance's secret.key exists.
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { StoreError } from '../../store/database';
import { SERVING_LOCK } from '../../store/notifications';
import type { SqlQueries } from '../../store/sql-port';
import { createNodeSecretBox, keyFingerprint, type SecretBox } from './secret-box';

/** The `settings` row that holds the fingerprint. */
export const KEY_FINGERPRINT_SETTING = 'secrets.key_fingerprint';
/** The folder and host where that key was first recorded (not secret): the refusal names it. */
export const KEY_ORIGIN_SETTING = 'secrets.key_origin';

const SEALED_PREFIX = 'gcm1:';

/** A data folder whose secret.key does not belong to the store: the start is refused (exit 1, or the app's dialog). */
export class SecretKeyMismatchError extends StoreError {
  override name = 'SecretKeyMismatchError';
}

const FIX =
  'Copy secret.key from the data folder of an instance that works (or restore it from a backup made with the key) into this data folder, then start again. Only if the key is lost for good: `vconsole serve --replace-secret-key` makes this folder\'s key the store\'s, and every secret sealed with the old one must then be rotated or entered again.';

const OTHERS_SERVING =
  'Another instance is serving this database, so its data key was not replaced: stop every other instance (each seals new secrets with the key it started with), then start this one with --replace-secret-key again, and copy its secret.key to the others before they start. The database was not changed.';

function missingKey(keyPath: string, why: string): SecretKeyMismatchError {
  return new SecretKeyMismatchError(`The data key ${keyPath} is missing, but ${why}. ${FIX}`);
}

function otherKey(keyPath: string, why: string): SecretKeyMismatchError {
  return new SecretKeyMismatchError(`The data key ${keyPath} is not the key ${why}. ${FIX}`);
}

function readKey(keyPath: string): Buffer | null {
  if (!existsSync(keyPath)) return null;
  const k = readFileSync(keyPath);
  if (k.length !== 32) throw new SecretKeyMismatchError(`${keyPath} is not a 32-byte key. ${FIX}`);
  return k;
}

/**
 * The sealed values of live rows (webhook secrets of webhooks not deleted, their previous secrets, provider
 * credentials), newest webhooks first: an old install may hold deleted webhooks sealed with a key lost long ago.
 */
async function sealedValues(sql: SqlQueries): Promise<string[]> {
  const rows = await sql.all<{ v: string }>(
    `SELECT v FROM (
       SELECT secret AS v, created_at AS at FROM webhooks WHERE deleted_at IS NULL AND substr(secret, 1, 5) = '${SEALED_PREFIX}'
       UNION ALL SELECT previous_secret AS v, created_at AS at FROM webhooks WHERE deleted_at IS NULL AND substr(previous_secret, 1, 5) = '${SEALED_PREFIX}'
       UNION ALL SELECT secret_sealed AS v, '9999' AS at FROM provider_configs WHERE substr(secret_sealed, 1, 5) = '${SEALED_PREFIX}'
     ) sealed ORDER BY at DESC`,
  );
  return rows.map((r) => r.v);
}

/** Whether `key` opens any of the sealed values (true when there are none to open). */
function opensAny(dataDir: string, key: Buffer, sealed: string[]): boolean {
  if (sealed.length === 0) return true;
  const probe = createNodeSecretBox(dataDir, { key });
  return sealed.some((v) => {
    try {
      probe.open(v);
      return true;
    } catch {
      return false;
    }
  });
}

export interface SecretKeyCheck {
  /** The key-file box, its key read and checked (a file removed later does not make a new key). */
  box: SecretBox;
  /**
   * The fingerprint matched the store's, or was recorded now (a new store, or one from before the check), or this
   * folder's key replaced the store's: by `--replace-secret-key`, or on SQLite by itself ('adopted', with `warning`).
   */
  outcome: 'matched' | 'recorded' | 'replaced' | 'adopted';
  /** What the operator should know (logged at start): sealed values the folder's key does not open. */
  warning?: string;
}

/** Where the store's key was made: named in a refusal, so the operator knows which folder to copy it from. */
async function keyOrigin(sql: SqlQueries): Promise<string> {
  const origin = (await sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [KEY_ORIGIN_SETTING]))?.value;
  return origin ? ` (it was made in ${origin})` : '';
}

/**
 * Checks this data folder's key against the store, before anything is sealed or opened; every start does, a serving
 * instance's and an admin command's, on both engines. A store with no fingerprint yet gets this folder's key
 * (made now if missing) recorded, unless sealed values already in it show the key is elsewhere.
 */
export async function checkSecretKey(sql: SqlQueries, dataDir: string, o: { replace?: boolean } = {}): Promise<SecretKeyCheck> {
  const keyPath = join(dataDir, 'secret.key');
  const recorded = (await sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [KEY_FINGERPRINT_SETTING]))?.value ?? null;
  let key = readKey(keyPath);
  if (o.replace) return replaceKey(sql, dataDir, keyPath, key, recorded);
  if (recorded !== null && key && keyFingerprint(key) === recorded) return { box: createNodeSecretBox(dataDir, { key }), outcome: 'matched' };
  // No record yet (a new store, or one from before this check), or a record of another key. The sealed values of
  // live rows say which key is theirs.
  const sealed = await sealedValues(sql);
  const fits = key !== null && opensAny(dataDir, key, sealed);
  if (sql.engine === 'sqlite' && !(recorded === null && fits)) {
    // One service per SQLite data folder (its lock): no other instance seals with another key, so a refusal would
    // protect nothing and keep the app from starting — a backup restored on a new machine, a folder moved without its
    // key. The folder's key (made now when missing) becomes the store's, as before this check; values sealed with
    // another key stay unreadable and say so where they are used (rotate a webhook's secret, enter a credential again).
    key = ensureKey(keyPath, key);
    const unread = !opensAny(dataDir, key, sealed);
    await record(sql, dataDir, keyFingerprint(key), true);
    return {
      box: createNodeSecretBox(dataDir, { key }),
      outcome: recorded === null ? 'recorded' : 'adopted',
      ...(unread
        ? { warning: `${keyPath} opens none of the ${sealed.length} sealed secret(s) in the store: it is not the key they were sealed with. Put that key back (from the old data folder, or a backup's .key file) and restart, or rotate the webhook secrets and enter the provider credentials again.` }
        : {}),
    };
  }
  // PostgreSQL (a team server): instances share the store, so the record decides; a key that differs is refused,
  // even one that opens some values (instances of an older version may each have sealed with their own key).
  if (recorded !== null) {
    if (!key) throw missingKey(keyPath, `this store's secrets are sealed with a data key whose fingerprint the store records${await keyOrigin(sql)}`);
    throw otherKey(keyPath, `this store's secrets are sealed with: its fingerprint differs from the one the store records${await keyOrigin(sql)}`);
  }
  if (sealed.length > 0) {
    if (!key) throw missingKey(keyPath, 'the store already holds secrets sealed with a data key');
    if (!fits) throw otherKey(keyPath, 'that sealed the secrets already in the store (it opens none of them)');
  }
  key = ensureKey(keyPath, key);
  const mine = keyFingerprint(key);
  // Two first instances starting at once: the first to record wins, the other is refused below.
  const stored = await record(sql, dataDir, mine, false);
  if (stored !== mine) throw otherKey(keyPath, `another instance recorded for this store a moment ago${await keyOrigin(sql)}`);
  return { box: createNodeSecretBox(dataDir, { key }), outcome: 'recorded' };
}

/** Records `fingerprint` (over a record when `overwrite`, else only where none is), with this folder as its origin; returns the record. */
async function record(sql: SqlQueries, dataDir: string, fingerprint: string, overwrite: boolean): Promise<string> {
  return sql.transaction(async (tx) => {
    await tx.run(overwrite ? UPSERT : 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', [KEY_FINGERPRINT_SETTING, fingerprint]);
    const now = (await tx.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [KEY_FINGERPRINT_SETTING]))!.value;
    if (now === fingerprint) await tx.run(UPSERT, [KEY_ORIGIN_SETTING, origin(dataDir)]);
    return now;
  });
}

const UPSERT = 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value';

const origin = (dataDir: string) => `${resolve(dataDir)} on ${hostname()}`;

/** This folder's key, made now when missing (mode 0600). */
function ensureKey(keyPath: string, key: Buffer | null): Buffer {
  if (!key) {
    // 'wx' fails if another process of this folder created the file in between; then we read theirs.
    try {
      writeFileSync(keyPath, randomBytes(32), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
    }
    key = readKey(keyPath)!;
  }
  try {
    chmodSync(keyPath, 0o600);
  } catch {
    /* best effort on filesystems without modes */
  }
  return key;
}

/**
 * `vconsole serve --replace-secret-key`: the store's key is lost for good, and this folder's key (made now when
 * missing) becomes the store's. What was sealed with the old key stays unreadable: webhook deliveries fail visibly
 * until their secret is rotated, provider credentials must be entered again (docs/webhooks.md "Secrets at rest").
 * Every other instance then needs a copy of this folder's key.
 */
async function replaceKey(sql: SqlQueries, dataDir: string, keyPath: string, present: Buffer | null, recorded: string | null): Promise<SecretKeyCheck> {
  const key = ensureKey(keyPath, present);
  const mine = keyFingerprint(key);
  if (recorded !== mine) {
    await sql.transaction(async (tx) => {
      // A team server: not while another instance serves (it holds SERVING_LOCK shared until it stops, and would go
      // on sealing new secrets with the old key). Instances starting meanwhile wait for this commit, then check.
      if (sql.engine === 'postgres') {
        const free = await tx.get<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS ok', [...SERVING_LOCK]);
        if (!free?.ok) throw new SecretKeyMismatchError(OTHERS_SERVING);
      }
      await tx.run(UPSERT, [KEY_FINGERPRINT_SETTING, mine]);
      await tx.run(UPSERT, [KEY_ORIGIN_SETTING, origin(dataDir)]);
    });
  }
  return { box: createNodeSecretBox(dataDir, { key }), outcome: recorded === mine ? 'matched' : 'replaced' };
}
