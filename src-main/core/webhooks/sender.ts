// One HTTP POST of a delivery: the signed headers of decisions §7 and an undici request with a 10 s limit, no
// redirects, through the policy-checking agent (or, for the console's local receiver only, a loopback agent).
import { AppError } from '../../../src-shared/app-error';
import { Agent } from 'undici';
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
  /** The exact bytes sent (or their text). */
  body: string | Uint8Array;
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

/**
 * How the local receiver's agent finds `localhost`: both loopback addresses, never the resolver (no hosts file or DNS
 * answer can send a local receiver's request anywhere else), tried in turn (autoSelectFamily). A receiver listening on
 * ::1 only — a dev server bound to `localhost` where that resolves to ::1 first — is reached as well as one on
 * 127.0.0.1. Any other name never gets here: localReceiverUrl lets only loopback literals and localhost through.
 */
export function loopbackLookup(
  hostname: string,
  options: { all?: boolean },
  cb: (err: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void,
): void {
  if (hostname !== 'localhost') {
    cb(Object.assign(new Error(`${hostname} is not a local receiver's host`), { code: 'ENOTFOUND' }), '', 0);
    return;
  }
  if (options.all) cb(null, [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
  else cb(null, '127.0.0.1', 4);
}

function agentsOf(rt: CoreRuntime): Agents {
  let a = agents.get(rt.deps);
  if (!a) {
    a = {
      safe: createSafeAgent({ policy: urlPolicyOf(rt), connectTimeoutMs: ATTEMPT_TIMEOUT_MS }),
      local: new Agent({ connect: { timeout: ATTEMPT_TIMEOUT_MS, autoSelectFamily: true, lookup: loopbackLookup } }),
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
 * The refusal of a local receiver's URL (forward, replay): INVALID_WEBHOOK_URL with a message about local receivers,
 * not the catalogue's, which describes a webhook's own URL ("publicly reachable https://") — the opposite rule.
 */
export function localReceiverRefused(reason: string): AppError {
  return new AppError('INVALID_WEBHOOK_URL', {
    message: 'A local receiver must be an http:// or https:// URL on localhost, 127.0.0.1 or [::1], other than this service.',
    details: [{ field: 'url', message: reason }],
  });
}

/**
 * A local receiver URL (decisions §7: console forwarding and replay only): http(s) to localhost or a loopback
 * literal, not our own API. Returns the URL to dial, `localhost` kept as given (the local agent resolves it to the two
 * loopback addresses only: loopbackLookup), or a reason.
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
  // `localhost` is both loopback addresses (loopbackLookup): it is this service if either one is.
  const names = u.hostname === 'localhost' ? ['localhost', '127.0.0.1', '[::1]'] : [u.hostname];
  const policy = urlPolicyOf(rt);
  if (names.some((name) => isOwnListener(name, port, policy))) return { ok: false, reason: 'URL points at this service' };
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

/**
 * The error text of an attempt that got no answer. A name with several addresses (localhost: 127.0.0.1 and ::1)
 * fails with an AggregateError whose own message is empty ("ECONNREFUSED: " before): its addresses' errors are
 * named instead, e.g. "connect ECONNREFUSED 127.0.0.1:4097; connect ECONNREFUSED ::1:4097".
 */
export function describeError(err: unknown, limitMs: number): string {
  type E = { code?: string; message?: string; name?: string; errors?: unknown[]; cause?: E };
  const e = err as E;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT') {
    return `timeout after ${limitMs} ms`;
  }
  const code = e?.code ?? e?.cause?.code;
  const inner = (Array.isArray(e?.errors) ? e.errors : Array.isArray(e?.cause?.errors) ? e.cause.errors : [])
    .map((x) => (x as E)?.message?.trim())
    .filter((m): m is string => Boolean(m));
  let msg = (e?.message ?? String(err)).trim();
  if (!msg || (inner.length > 0 && !inner.includes(msg))) msg = inner.length > 0 ? [...new Set(inner)].join('; ') : msg || (e?.cause?.message?.trim() ?? '');
  if (!msg) return (code ?? 'connection failed').slice(0, 500);
  return (code && !msg.includes(code) ? `${code}: ${msg}` : msg).slice(0, 500);
}

/** The origin and path of a URL as undici dispatches them (request() parsed the URL on every call); a few kept. */
const targets = new Map<string, { origin: string; path: string }>();
const TARGETS_KEPT = 256;

function targetOf(url: string): { origin: string; path: string } {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    t = { origin: u.origin, path: `${u.pathname}${u.search}` };
    if (targets.size >= TARGETS_KEPT) targets.clear();
    targets.set(url, t);
  }
  return t;
}

/** Why an attempt's request was ended by us once enough of the answer was read (not a failure). */
const EXCERPT_READ = new Error('the response excerpt is read');

/**
 * POSTs the exact body bytes with the given headers. `local` dials the loopback agent (already-checked URL).
 *
 * Through undici's `dispatch` with a handler of its own, not `request()`: the status, the headers and the first
 * RESPONSE_EXCERPT_BYTES of the body are all an attempt keeps, and `request()` wraps every answer in a Readable
 * stream read through an async iterator, with an AbortSignal listened to for the limit — twice the CPU of the whole
 * POST (docs/performance.md, item 27). The limit is a timer that aborts the request through its controller.
 */
export function send(
  rt: CoreRuntime,
  url: string,
  body: string | Buffer,
  headers: SentHeaders,
  opts: { local?: boolean; timeoutMs?: number } = {},
): Promise<SendOutcome> {
  const a = agentsOf(rt);
  const started = performance.now();
  const limitMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  return new Promise<SendOutcome>((resolve) => {
    let statusCode = 0;
    let responseHeaders: Record<string, string | string[] | undefined> = {};
    const chunks: Buffer[] = [];
    let size = 0;
    let controller: { abort(reason?: Error): void } | null = null;
    let timedOut: Error | null = null;
    let settled = false;
    const timer = setTimeout(() => {
      timedOut = new DOMException('The attempt timed out', 'TimeoutError');
      if (controller) controller.abort(timedOut);
      // Not started yet (still connecting): the outcome now, and the request ends as soon as it starts.
      else finish(timedOut);
    }, limitMs);
    timer.unref();
    // An answer whose status arrived is kept whatever happens to its body (a broken body only shortens the
    // excerpt); before the status, the error is the outcome.
    function finish(err: unknown): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const durationMs = Math.round(performance.now() - started);
      if (statusCode === 0) {
        resolve({ ok: false, statusCode: null, error: describeError(err, limitMs), responseBody: null, responseHeaders: null, retryAfterSeconds: null, durationMs });
        return;
      }
      const excerpt = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
      const ok = statusCode >= 200 && statusCode < 300;
      resolve({
        ok,
        statusCode,
        error: ok ? null : statusCode >= 300 && statusCode < 400 ? `redirect ${statusCode} not followed` : `HTTP ${statusCode}`,
        responseBody: excerpt,
        responseHeaders: headerRecord(responseHeaders),
        retryAfterSeconds: statusCode === 429 || statusCode === 503 ? parseRetryAfter(responseHeaders['retry-after'], Date.now()) : null,
        durationMs,
      });
    }
    let target: { origin: string; path: string };
    try {
      target = targetOf(url);
    } catch (err) {
      finish(err);
      return;
    }
    (opts.local ? a.local : a.safe).dispatch(
      {
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers,
        body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
        headersTimeout: limitMs,
        bodyTimeout: limitMs,
      },
      {
        onRequestStart(c) {
          controller = c;
          if (timedOut) c.abort(timedOut);
        },
        onResponseStart(_c, status, h) {
          statusCode = status;
          responseHeaders = h;
        },
        onResponseData(c, chunk) {
          chunks.push(chunk);
          size += chunk.length;
          // A huge answer is never read past the excerpt: the request ends here (its connection is closed).
          if (size >= RESPONSE_EXCERPT_BYTES) c.abort(EXCERPT_READ);
        },
        onResponseEnd() {
          finish(null);
        },
        onResponseError(_c, err) {
          finish(err);
        },
      },
    );
  });
}
