// One HTTP POST of a delivery: the signed headers of decisions §7 and an undici request with a 10 s limit, no
// redirects, through the policy-checking agent (or, for the console's local receiver only, a loopback agent).
import { Agent, request } from 'undici';
import { createSafeAgent } from '../../jobs/safe-agent';
import type { CoreRuntime } from '../runtime';
import { standardWebhookHeader, xSignature } from './signing';
import { isOwnListener } from './url-policy';
import { urlPolicyOf } from './webhooks-service';

export const USER_AGENT = 'VerificationConsole-Webhooks/1.0';
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const RESPONSE_EXCERPT_BYTES = 2048;

export type SentHeaders = Record<string, string>;

export function deliveryHeaders(opts: {
  deliveryId: string;
  eventType: string;
  body: string;
  secrets: readonly string[];
  nowMs: number;
}): SentHeaders {
  const ts = Math.floor(opts.nowMs / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-delivery-id': opts.deliveryId,
    'x-event-type': opts.eventType,
    // X-Signature has room for one value and receivers compare it whole (interface §6), so during the 24 h
    // overlap the PREVIOUS secret (the one every receiver holds) keeps signing it; it switches to the new secret
    // when the overlap ends. webhook-signature carries both. secrets = [current, previous?] (signingSecrets).
    'x-signature': xSignature(opts.secrets[1] ?? opts.secrets[0]!, opts.body),
    'webhook-id': opts.deliveryId,
    'webhook-timestamp': String(ts),
    'webhook-signature': standardWebhookHeader(opts.secrets, opts.deliveryId, ts, opts.body),
  };
}

export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  responseHeaders: Record<string, string> | null;
  retryAfterSeconds: number | null;
  durationMs: number;
}

interface Agents {
  safe: Agent;
  local: Agent;
}
const agents = new WeakMap<object, Agents>();

function agentsOf(rt: CoreRuntime): Agents {
  let a = agents.get(rt.deps);
  if (!a) {
    a = {
      safe: createSafeAgent({ policy: urlPolicyOf(rt), connectTimeoutMs: ATTEMPT_TIMEOUT_MS }),
      local: new Agent({ connect: { timeout: ATTEMPT_TIMEOUT_MS } }),
    };
    agents.set(rt.deps, a);
  }
  return a;
}

export async function closeAgents(rt: CoreRuntime): Promise<void> {
  const a = agents.get(rt.deps);
  if (!a) return;
  agents.delete(rt.deps);
  await Promise.allSettled([a.safe.close(), a.local.close()]);
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A local receiver URL (decisions §7: console forwarding and replay only): http(s) to localhost or a loopback
 * literal, not our own API. Returns the URL to dial (localhost pinned to 127.0.0.1 so no lookup can redirect it)
 * or a reason.
 */
export function localReceiverUrl(rt: CoreRuntime, raw: string): { ok: true; url: string } | { ok: false; reason: string } {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid URL' };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, reason: 'only http and https URLs' };
  if (u.username || u.password) return { ok: false, reason: 'credentials in URL are not allowed' };
  if (!LOOPBACK_NAMES.has(u.hostname)) return { ok: false, reason: 'a local receiver must be on localhost, 127.0.0.1 or [::1]' };
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  if (isOwnListener(u.hostname, port, urlPolicyOf(rt))) return { ok: false, reason: 'URL points at this service' };
  if (u.hostname === 'localhost') u.hostname = '127.0.0.1';
  return { ok: true, url: u.href };
}

export function isLocalReceiverUrl(raw: string): boolean {
  try {
    return LOOPBACK_NAMES.has(new URL(raw).hostname);
  } catch {
    return false;
  }
}

function headerRecord(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || ++n > 40) continue;
    out[k] = (Array.isArray(v) ? v.join(', ') : v).slice(0, 500);
  }
  return out;
}

function parseRetryAfter(v: string | string[] | undefined, nowMs: number): number | null {
  const raw = Array.isArray(v) ? v[0] : v;
  if (!raw) return null;
  if (/^\d{1,9}$/.test(raw.trim())) return Number(raw.trim());
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

function describeError(err: unknown): string {
  const e = err as { code?: string; message?: string; name?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT') {
    return `timeout after ${ATTEMPT_TIMEOUT_MS} ms`;
  }
  const code = e?.code ?? e?.cause?.code;
  const msg = e?.message ?? String(err);
  return (code && !msg.includes(code) ? `${code}: ${msg}` : msg).slice(0, 500);
}

/** POSTs the exact body bytes with the given headers. `local` dials the loopback agent (already-checked URL). */
export async function send(rt: CoreRuntime, url: string, body: string, headers: SentHeaders, opts: { local?: boolean } = {}): Promise<SendOutcome> {
  const a = agentsOf(rt);
  const started = performance.now();
  const done = (o: Omit<SendOutcome, 'durationMs'>): SendOutcome => ({ ...o, durationMs: Math.round(performance.now() - started) });
  // The whole attempt's limit. A timer cleared when the attempt ends, not AbortSignal.timeout(): that one costs
  // three times as much and leaves every attempt's timer pending for the full 10 s.
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new DOMException('The attempt timed out', 'TimeoutError')), ATTEMPT_TIMEOUT_MS);
  timer.unref();
  try {
    const res = await request(url, {
      method: 'POST',
      headers,
      body: Buffer.from(body, 'utf8'),
      dispatcher: opts.local ? a.local : a.safe,
      headersTimeout: ATTEMPT_TIMEOUT_MS,
      bodyTimeout: ATTEMPT_TIMEOUT_MS,
      signal: abort.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        const b = chunk as Buffer;
        chunks.push(b);
        size += b.length;
        // Leaving the loop destroys the stream: a huge answer is never read past the excerpt.
        if (size >= RESPONSE_EXCERPT_BYTES) break;
      }
    } catch {
      /* the status decides; a broken body only shortens the excerpt */
    }
    const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    const retryAfter = res.statusCode === 429 || res.statusCode === 503 ? parseRetryAfter(res.headers['retry-after'], Date.now()) : null;
    return done({
      ok,
      statusCode: res.statusCode,
      error: ok ? null : res.statusCode >= 300 && res.statusCode < 400 ? `redirect ${res.statusCode} not followed` : `HTTP ${res.statusCode}`,
      responseBody: excerpt,
      responseHeaders: headerRecord(res.headers),
      retryAfterSeconds: retryAfter,
    });
  } catch (err) {
    return done({ ok: false, statusCode: null, error: describeError(err), responseBody: null, responseHeaders: null, retryAfterSeconds: null });
  } finally {
    clearTimeout(timer);
  }
}
