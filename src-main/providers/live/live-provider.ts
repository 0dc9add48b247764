// One configured upstream at run time: its undici agent, circuit breaker, bulkhead and rate-limit window, and the
// call itself — per-request timeout, overall deadline, bounded retries of transport failures (safe because every
// attempt carries the same upstream idempotency key) — each fault mapped to its interface §7.3 code.
import { Agent, request } from 'undici';
import type { VerificationErrorCode } from '../../../src-shared/errors';
import type { ProbeResult } from '../../../src-shared/schemas/providers';
import type { Logger } from '../../core/context';
import type { ResolvedProvider } from '../../core/providers/provider-config';
import type { ProviderAnswer, VerificationKind } from '../../core/verification/types';
import { backoffMs, Bulkhead, BulkheadFull, CircuitBreaker, sleep, type CircuitState } from '../resilience';
import type { LiveAdapter, Req } from './adapter';

const MAX_BODY = 1024 * 1024;

/** Node's certificate verification failures (tls.checkServerIdentity / OpenSSL X509_V_ERR_* names). */
const TLS_TRUST_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Why an attempt or the whole check stopped; the abort reason of our own signals. */
class Stop extends Error {
  constructor(readonly why: 'attempt-timeout' | 'deadline' | 'cancelled') {
    super(why);
  }
}

type Attempt =
  | { kind: 'answer'; answer: ProviderAnswer }
  /** No usable answer; `retry` when another attempt is safe and may help. */
  | { kind: 'fault'; code: VerificationErrorCode; retry: boolean; note: string; retryAfterS?: number };

const fault = (code: VerificationErrorCode, note: string, retry: boolean, retryAfterS?: number): Attempt => ({
  kind: 'fault',
  code,
  note,
  retry,
  ...(retryAfterS !== undefined ? { retryAfterS } : {}),
});

export interface ProviderStateView {
  circuit: CircuitState;
  consecutiveFailures: number;
  inFlight: number;
  queued: number;
  lastError: string | null;
  lastErrorAt: string | null;
}

export class LiveProvider {
  readonly agent: Agent;
  readonly breaker: CircuitBreaker;
  readonly bulkhead: Bulkhead;
  private rateLimitedUntil = 0;
  private lastError: string | null = null;
  private lastErrorAt: number | null = null;

  constructor(
    readonly config: ResolvedProvider,
    private readonly adapter: LiveAdapter,
    private readonly now: () => number,
    private readonly log: Logger,
    private readonly random: () => number = Math.random,
  ) {
    this.agent = new Agent({
      connections: config.maxConcurrency,
      // A configured CA replaces the public roots for this upstream only (a private or self-signed upstream).
      connect: { timeout: config.timeoutMs, ...(config.caPem ? { ca: config.caPem } : {}) },
      // Our own timers decide; these only stop undici from waiting longer than any attempt could.
      headersTimeout: config.timeoutMs + 1000,
      bodyTimeout: config.timeoutMs + 1000,
    });
    this.breaker = new CircuitBreaker(config.breakerThreshold, config.breakerCooldownMs, now);
    this.bulkhead = new Bulkhead(config.maxConcurrency, config.maxQueue);
  }

  state(): ProviderStateView {
    return {
      circuit: this.breaker.state,
      consecutiveFailures: this.breaker.consecutiveFailures,
      inFlight: this.bulkhead.inFlight,
      queued: this.bulkhead.queued,
      lastError: this.lastError,
      lastErrorAt: this.lastErrorAt === null ? null : new Date(this.lastErrorAt).toISOString(),
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  /** Checks and probes using this runtime now, queued ones and ones between retries included. */
  private users = 0;
  private onIdle: (() => void) | null = null;
  private retiring: Promise<void> | null = null;

  /**
   * This runtime was replaced by a changed configuration: its pool closes once the checks and probes still using it
   * have finished (they finish here, not on the new one), or after `maxWaitMs` — by default the deadline every one
   * of them ends by, plus a second.
   */
  retire(maxWaitMs = this.config.deadlineMs + 1000): Promise<void> {
    this.retiring ??= new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.onIdle = null;
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      // Looked at after this turn: a caller that got this runtime from the registry just before it was replaced
      // (an await away from calling ask) has started its check by then, and finishes it here.
      setImmediate(() => {
        if (this.users === 0) done();
        else this.onIdle = done;
      });
    }).then(() => this.close());
    return this.retiring;
  }

  private async using<T>(fn: () => Promise<T>): Promise<T> {
    this.users += 1;
    try {
      return await fn();
    } finally {
      this.users -= 1;
      if (this.users === 0) this.onIdle?.();
    }
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...extra };
    const secret = this.config.secret;
    if (secret) {
      if (this.config.authScheme === 'api-key') h['x-api-key'] = secret;
      else h['authorization'] = `Bearer ${secret}`;
    }
    return h;
  }

  private noteError(note: string): void {
    this.lastError = note;
    this.lastErrorAt = this.now();
  }

  /** One verification against this upstream. Never throws: every way of failing is an answer. */
  ask(kind: VerificationKind, req: Req, verificationId: string, outer?: AbortSignal): Promise<ProviderAnswer> {
    return this.using(() => this.askOnce(kind, req, verificationId, outer));
  }

  private async askOnce(kind: VerificationKind, req: Req, verificationId: string, outer?: AbortSignal): Promise<ProviderAnswer> {
    if (!this.adapter.kinds.includes(kind)) {
      this.noteError(`adapter ${this.adapter.name} cannot answer ${kind} checks`);
      return { outcome: 'error', errorCode: 'VERIFICATION_ERROR' };
    }
    // Honour the upstream's Retry-After: until it passes, do not call at all.
    if (this.now() < this.rateLimitedUntil) return { outcome: 'error', errorCode: 'VERIFICATION_RATE_LIMITED' };

    const deadline = new AbortController();
    const deadlineTimer = setTimeout(() => deadline.abort(new Stop('deadline')), this.config.deadlineMs);
    const onOuter = () => deadline.abort(new Stop('cancelled'));
    if (outer) {
      if (outer.aborted) onOuter();
      else outer.addEventListener('abort', onOuter, { once: true });
    }
    let release: (() => void) | null = null;
    try {
      try {
        release = await this.bulkhead.acquire(deadline.signal);
      } catch (err) {
        if (err instanceof BulkheadFull) {
          this.noteError('concurrency limit reached (queue full)');
          return { outcome: 'error', errorCode: 'VERIFICATION_RATE_LIMITED' };
        }
        return this.stopAnswer(err, 'waiting for a free slot');
      }
      if (!this.breaker.tryAcquire()) return { outcome: 'error', errorCode: 'VERIFICATION_UNAVAILABLE' };
      const exchange = this.adapter.build(kind, req, verificationId, this.now());
      let attempt = 0;
      for (;;) {
        attempt += 1;
        const a = await this.attempt(exchange.path, exchange.body, exchange.headers, deadline.signal, (json) => this.adapter.read(kind, req, json, this.config.mapping));
        if (a.kind === 'answer') {
          this.breaker.success();
          return a.answer;
        }
        if (a.code === 'VERIFICATION_CANCELLED') {
          this.breaker.neutral();
          return { outcome: 'error', errorCode: a.code };
        }
        this.noteError(a.note);
        if (a.code === 'VERIFICATION_RATE_LIMITED') {
          // The upstream is alive and said when to come back: not a breaker failure.
          this.breaker.neutral();
          this.rateLimitedUntil = this.now() + (a.retryAfterS ?? 1) * 1000;
          return { outcome: 'error', errorCode: a.code };
        }
        const canRetry = a.retry && attempt <= this.config.retries && !deadline.signal.aborted;
        if (!canRetry) {
          this.breaker.failure();
          this.log.warn({ provider: this.config.id, verificationId, attempt, code: a.code, note: a.note }, 'upstream check failed');
          return { outcome: 'error', errorCode: a.code };
        }
        try {
          await sleep(backoffMs(attempt, 100, 2_000, this.random), deadline.signal);
        } catch (err) {
          const stopped = this.stopAnswer(err, 'backing off');
          if (stopped.errorCode === 'VERIFICATION_CANCELLED') this.breaker.neutral();
          else this.breaker.failure();
          return stopped;
        }
      }
    } finally {
      clearTimeout(deadlineTimer);
      outer?.removeEventListener('abort', onOuter);
      release?.();
    }
  }

  private stopAnswer(err: unknown, during: string): ProviderAnswer {
    if (err instanceof Stop && err.why === 'cancelled') return { outcome: 'error', errorCode: 'VERIFICATION_CANCELLED' };
    this.noteError(`overall deadline passed while ${during}`);
    return { outcome: 'error', errorCode: 'VERIFICATION_TIMEOUT' };
  }

  private async attempt(
    path: string,
    body: unknown,
    extra: Record<string, string>,
    deadline: AbortSignal,
    read: (json: unknown) => ProviderAnswer | null,
  ): Promise<Attempt> {
    const ctl = new AbortController();
    const onDeadline = () => ctl.abort(deadline.reason);
    if (deadline.aborted) return this.classifyStop(deadline.reason);
    deadline.addEventListener('abort', onDeadline, { once: true });
    const timer = setTimeout(() => ctl.abort(new Stop('attempt-timeout')), this.config.timeoutMs);
    try {
      const res = await request(`${this.config.baseUrl}${path}`, {
        method: 'POST',
        headers: this.headers(extra),
        body: JSON.stringify(body),
        dispatcher: this.agent,
        signal: ctl.signal,
      });
      if (res.statusCode < 200 || res.statusCode >= 300) {
        // The status says it all: the body is not read (a large one is cut off, not mistaken for an unreadable answer).
        await res.body.dump().catch(() => {});
      }
      if (res.statusCode === 429) {
        return fault('VERIFICATION_RATE_LIMITED', 'upstream answered 429', false, retryAfterSeconds(res.headers['retry-after'], this.now()) ?? 1);
      }
      if (res.statusCode >= 500) return fault('VERIFICATION_UNAVAILABLE', `upstream answered HTTP ${res.statusCode}`, true);
      if (res.statusCode < 200 || res.statusCode >= 300) {
        // 4xx: our request or credentials were refused; asking again would be refused the same way.
        return fault('VERIFICATION_ERROR', `upstream refused the request with HTTP ${res.statusCode}`, false);
      }
      let text: string;
      try {
        text = await readLimited(res.body);
      } catch (err) {
        // An answer we will not read is an answer all the same (the check ran): not a transport failure, not retried.
        if ((err as { code?: string }).code === 'BODY_TOO_LARGE') return fault('VERIFICATION_ERROR', `upstream answered a body over ${MAX_BODY} bytes`, false);
        throw err;
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return fault('VERIFICATION_ERROR', 'upstream answered a body that is not JSON', false);
      }
      const answer = read(json);
      return answer ? { kind: 'answer', answer } : fault('VERIFICATION_ERROR', 'upstream answered an unexpected body shape', false);
    } catch (err) {
      if (ctl.signal.aborted) return this.classifyStop(ctl.signal.reason);
      const code = (err as { code?: string }).code ?? 'unknown';
      // The upstream's certificate is not trusted (no or wrong CA, name mismatch, expired): asking again cannot help.
      if (TLS_TRUST_CODES.has(code)) return fault('VERIFICATION_UNAVAILABLE', `upstream TLS certificate not trusted (${code})`, false);
      // Connection refused, reset or closed before an answer: the check may or may not have run upstream; the
      // idempotency key makes another attempt return the first answer instead of running it again.
      return fault('VERIFICATION_UNAVAILABLE', `upstream connection failed (${code})`, true);
    } finally {
      clearTimeout(timer);
      deadline.removeEventListener('abort', onDeadline);
    }
  }

  private classifyStop(reason: unknown): Attempt {
    const why = reason instanceof Stop ? reason.why : 'deadline';
    if (why === 'cancelled') return fault('VERIFICATION_CANCELLED', 'cancelled', false);
    if (why === 'attempt-timeout') return fault('VERIFICATION_TIMEOUT', `no answer within ${this.config.timeoutMs} ms`, true);
    return fault('VERIFICATION_TIMEOUT', `no answer within the ${this.config.deadlineMs} ms deadline`, false);
  }

  /** One health probe: can we reach the upstream, and does it accept our credentials? Never runs a check. */
  probe(): Promise<ProbeResult> {
    return this.using(() => this.probeOnce());
  }

  private async probeOnce(): Promise<ProbeResult> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(new Stop('attempt-timeout')), this.config.timeoutMs);
    try {
      const res = await request(`${this.config.baseUrl}/`, { method: 'GET', headers: this.headers({}), dispatcher: this.agent, signal: ctl.signal });
      await res.body.dump();
      const s = res.statusCode;
      if (s === 401 || s === 403) return { id: this.config.id, ok: false, httpStatus: s, message: 'The upstream refused the credentials.' };
      if (s >= 500) return { id: this.config.id, ok: false, httpStatus: s, message: `The upstream answered HTTP ${s}.` };
      return { id: this.config.id, ok: true, httpStatus: s, message: 'The upstream is reachable.' };
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'error';
      const msg = ctl.signal.aborted
        ? `No answer within ${this.config.timeoutMs} ms.`
        : TLS_TRUST_CODES.has(code)
          ? `The upstream's TLS certificate is not trusted (${code}): configure the CA certificate it chains to.`
          : `Could not connect (${code}).`;
      return { id: this.config.id, ok: false, httpStatus: null, message: msg };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The longest Retry-After honoured: an upstream cannot switch a provider off for longer than an hour. */
const MAX_RETRY_AFTER_S = 3600;

/**
 * Retry-After (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date (IMF-fixdate, or the obsolete RFC 850 and asctime
 * forms) read against the service clock. Seconds from now, 0 to an hour; undefined when absent or unreadable.
 */
export function retryAfterSeconds(value: string | string[] | undefined, nowMs: number): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Math.min(Number(v), MAX_RETRY_AFTER_S);
  // Every HTTP-date form names its month; Date.parse alone would read "1.5" as a date.
  const at = /[A-Za-z]{3}/.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - nowMs) / 1000)), MAX_RETRY_AFTER_S);
}

async function readLimited(body: AsyncIterable<Buffer | Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    size += c.length;
    if (size > MAX_BODY) throw Object.assign(new Error('upstream body too large'), { code: 'BODY_TOO_LARGE' });
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks).toString('utf8');
}
