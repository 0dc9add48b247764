// Webhook secrets and signatures: X-Signature (interface §6) and the Standard Webhooks headers (decisions §7),
// both over the exact raw body bytes that are sent.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('hex');
}

function bodyBytes(rawBody: string | Uint8Array): Buffer | Uint8Array {
  return typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
}

/** Constant time for equal lengths; a length mismatch returns false at once (length is not secret). */
function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) return false;
  return timingSafeEqual(ab, bb);
}

// The HMAC keys of the secrets in use, made once per secret: an HMAC keyed with a KeyObject skips the key's
// conversion (≈ 1 µs of the 2.5–3.5 µs of each of a delivery's two or three signatures). Secrets are in memory while
// deliveries are signed anyway (secret-sealing.ts keeps them opened); a few are kept.
const KEYS_KEPT = 256;
const xKeys = new Map<string, KeyObject>();
const standardKeys = new Map<string, KeyObject>();

function keyOf(cache: Map<string, KeyObject>, secret: string, bytes: (secret: string) => Buffer): KeyObject {
  let key = cache.get(secret);
  if (!key) {
    key = createSecretKey(bytes(secret));
    if (cache.size >= KEYS_KEPT) cache.clear();
    cache.set(secret, key);
  }
  return key;
}

/** 'sha256=' + hex HMAC-SHA256 of the raw body, keyed with the secret string as shown (prefix included). */
export function xSignature(secret: string, rawBody: string | Uint8Array): string {
  return 'sha256=' + createHmac('sha256', keyOf(xKeys, secret, (s) => Buffer.from(s, 'utf8'))).update(bodyBytes(rawBody)).digest('hex');
}

export function verifyXSignature(secret: string, rawBody: string | Uint8Array, header: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  return safeEqual(xSignature(secret, rawBody), header);
}

// Standard Webhooks keys HMAC with the base64 decoding of the part after 'whsec_'; the official libraries do
// the same, so their verifiers accept our deliveries.
function standardKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/** 'v1,' + base64 HMAC-SHA256 of `${msgId}.${timestamp}.${body}`. */
export function standardWebhookSignature(
  secret: string,
  msgId: string,
  timestampSec: number,
  rawBody: string | Uint8Array,
): string {
  const mac = createHmac('sha256', keyOf(standardKeys, secret, standardKey))
    .update(`${msgId}.${Math.floor(timestampSec)}.`, 'utf8')
    .update(bodyBytes(rawBody))
    .digest('base64');
  return `v1,${mac}`;
}

/** One signature per secret, space-separated (old and new secret during the 24 h after a rotation). */
export function standardWebhookHeader(
  secrets: readonly string[],
  msgId: string,
  timestampSec: number,
  rawBody: string | Uint8Array,
): string {
  return secrets.map((s) => standardWebhookSignature(s, msgId, timestampSec, rawBody)).join(' ');
}

export function verifyStandardWebhook(
  secret: string,
  headers: { 'webhook-id'?: string; 'webhook-timestamp'?: string; 'webhook-signature'?: string },
  rawBody: string | Uint8Array,
  nowSec: number,
  toleranceSec = 300,
): boolean {
  const msgId = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!msgId || !timestamp || !signatures) return false;
  if (!/^\d{1,15}$/.test(timestamp)) return false;
  const ts = Number(timestamp);
  if (Math.abs(nowSec - ts) > toleranceSec) return false;

  const expected = standardWebhookSignature(secret, msgId, ts, rawBody);
  let matched = false;
  // Check every candidate (no early exit) so timing does not reveal which one matched.
  for (const candidate of signatures.split(' ')) {
    if (!candidate.startsWith('v1,')) continue;
    if (safeEqual(expected, candidate)) matched = true;
  }
  return matched;
}
