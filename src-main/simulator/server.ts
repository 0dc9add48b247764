// The upstream simulator: a loopback HTTP(S)/JSON server speaking the generic, EPC VoP and Pay.UK CoP protocols
// with idempotent replay and fault injection, for the live adapters' tests and for demos (docs/simulator.md).
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import {
  answerCop,
  answerGeneric,
  answerVop,
  GENERIC_KINDS,
  type AccountType,
  type GenericKind,
  type SimSeed,
} from './directory';
import { FaultParseError, faultRunsCheck, formatFault, parseFault, type Fault, type FaultSpec } from './faults';
import { simulatorCertificate } from './tls';

export type SimApi = 'generic' | 'epc-vop' | 'uk-cop';

export const SIM_PATHS = {
  generic: '/v1/checks/',
  epcVop: '/payee-verifications',
  ukCop: '/open-banking/v3.1/pisp/account-name-check',
} as const;

/** The header each API carries its idempotency key in (CoP follows the Open Banking convention). */
export const IDEMPOTENCY_HEADERS: Record<SimApi, string> = {
  generic: 'idempotency-key',
  'epc-vop': 'x-request-id',
  'uk-cop': 'x-idempotency-key',
};

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** 127.0.0.1 unless told otherwise: the simulator is a loopback test tool. */
  host?: string;
  /** HTTPS with a throwaway self-signed certificate (made with openssl); the handle exposes it as `ca`. */
  tls?: boolean;
  /** A fault for every request (or the next `faultCount`), as `--fault` does. */
  fault?: FaultSpec | null;
  faultCount?: number;
  /** Extra directory entries on top of the seeded ones. */
  seed?: SimSeed;
  /**
   * When set, `Authorization: Bearer <apiKey>` or `X-API-Key: <apiKey>` must carry exactly this key; otherwise any
   * non-empty key in either is accepted.
   */
  apiKey?: string;
  /** Called with one line per upstream request (the CLI prints them). */
  log?: (line: string) => void;
}

export interface SimRequest {
  seq: number;
  at: string;
  method: string;
  path: string;
  api: SimApi | null;
  /** The generic kind (account, phone, ...) for the generic API. */
  kind: string | null;
  idempotencyKey: string | null;
  /** The fault applied to this request, in its canonical text form. */
  fault: string | null;
  /** True when the answer came from the idempotency store (the check did not run again). */
  replayed: boolean;
  /** The HTTP status sent, or null while nothing was sent (timeout, late, reset, client gone). */
  status: number | null;
  /** The protocol's outcome (MATCH, CMTC, MBAM...) when a check answered. */
  outcome: string | null;
  /** Request headers, lower-case names. */
  headers: Record<string, string>;
  body: unknown;
}

export interface SimulatorHandle {
  /** e.g. http://127.0.0.1:40123 (no trailing slash). */
  url: string;
  /** What to configure as each adapter's baseUrl. */
  baseUrls: { generic: string; epcVop: string; ukCop: string };
  /** The self-signed certificate (PEM) to trust in TLS mode, else null. */
  ca: string | null;
  stop(): Promise<void>;
  /** Sets the configured fault for every following request, or for the next `count` requests; null clears it. */
  setFault(f: FaultSpec | null, count?: number): void;
  /** The upstream requests received so far (control requests are not listed). */
  requests(): SimRequest[];
  /** How many times the check for this idempotency key actually ran (0 when never). */
  executions(idempotencyKey: string): number;
  /** Forgets the request log and the idempotency store (the configured fault stays). */
  reset(): void;
}

interface Stored {
  status: number;
  body: string;
  headers: Record<string, string>;
  outcome: string | null;
}

interface Answer {
  status: number;
  json: unknown;
  headers?: Record<string, string>;
  outcome?: string | null;
  /** Whether the answer is the check's own (stored for replay) rather than a rejection of the request. */
  executed: boolean;
}

const MAX_BODY = 1024 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly json: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, { error: 'payload_too_large' }));
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function headerMap(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function routeOf(method: string, path: string): { api: SimApi; kind: GenericKind | null } | { unknownKind: string } | null {
  if (method !== 'POST') return null;
  if (path.startsWith(SIM_PATHS.generic)) {
    const kind = path.slice(SIM_PATHS.generic.length);
    return (GENERIC_KINDS as readonly string[]).includes(kind) ? { api: 'generic', kind: kind as GenericKind } : { unknownKind: kind };
  }
  if (path === SIM_PATHS.epcVop) return { api: 'epc-vop', kind: null };
  if (path === SIM_PATHS.ukCop) return { api: 'uk-cop', kind: null };
  return null;
}

/** A per-API error body, in the style each scheme uses. */
function badRequest(api: SimApi, message: string): HttpError {
  if (api === 'epc-vop') return new HttpError(400, { type: 'about:blank', title: 'Bad Request', code: 'FORMAT_ERROR', detail: message });
  if (api === 'uk-cop') {
    return new HttpError(400, { Code: '400 BadRequest', Message: message, Errors: [{ ErrorCode: 'UK.OBIE.Field.Invalid', Message: message }] });
  }
  return new HttpError(400, { error: 'invalid_request', message });
}

function parseJson(api: SimApi, raw: Buffer): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest(api, 'the body is not valid JSON');
  }
  if (!isObject(v)) throw badRequest(api, 'the body must be a JSON object');
  return v;
}

function runCheck(api: SimApi, kind: GenericKind | null, body: Record<string, unknown>, headers: Record<string, string>, seed: SimSeed): Answer {
  if (api === 'generic') {
    const k = kind!;
    if (typeof body['reference'] !== 'string' || body['reference'] === '') throw badRequest(api, 'reference is required');
    if (body['kind'] !== undefined && body['kind'] !== k) throw badRequest(api, `kind "${String(body['kind'])}" does not match the path (${k})`);
    const query = body['query'];
    if (!isObject(query)) throw badRequest(api, 'query must be an object');
    const a = answerGeneric(k, query, seed);
    return { status: 200, json: { reference: body['reference'], ...a }, outcome: a.result, executed: true };
  }
  if (api === 'epc-vop') {
    // The lead's shape (partyName, requestId) and the EPC inter-PSP API's (party.name) are both accepted.
    const party = body['party'];
    const name = typeof body['partyName'] === 'string' ? body['partyName'] : isObject(party) && typeof party['name'] === 'string' ? party['name'] : undefined;
    const account = body['partyAccount'];
    const iban = isObject(account) && typeof account['iban'] === 'string' ? account['iban'] : undefined;
    if (!name || name.trim() === '') throw badRequest(api, 'partyName (or party.name) is required');
    if (!iban) throw badRequest(api, 'partyAccount.iban is required');
    const requestId = typeof body['requestId'] === 'string' ? body['requestId'] : (headers['x-request-id'] ?? null);
    const a = answerVop(iban, name, seed);
    const json = {
      requestId,
      verificationResult: a.code,
      partyNameMatch: a.code,
      ...(a.matchedName !== undefined ? { matchedName: a.matchedName } : {}),
    };
    return { status: 200, json, outcome: a.code, executed: true };
  }
  const data = body['Data'];
  if (!isObject(data)) throw badRequest(api, 'Data is required');
  if (data['SchemeName'] !== 'SortCodeAccountNumber') throw badRequest(api, 'Data.SchemeName must be SortCodeAccountNumber');
  const type = data['AccountType'];
  if (type !== 'Personal' && type !== 'Business') throw badRequest(api, 'Data.AccountType must be Personal or Business');
  const identification = data['Identification'];
  const name = data['Name'];
  if (typeof identification !== 'string' || identification === '') throw badRequest(api, 'Data.Identification is required');
  if (typeof name !== 'string' || name.trim() === '') throw badRequest(api, 'Data.Name is required');
  const secondary = typeof data['SecondaryIdentification'] === 'string' ? data['SecondaryIdentification'] : undefined;
  const a = answerCop(identification, name, type as AccountType, secondary, seed);
  const report = { Matched: a.matched, ...(a.reasonCode ? { ReasonCode: a.reasonCode } : {}), ...(a.name ? { Name: a.name } : {}) };
  return { status: 200, json: { Data: { VerificationReport: report }, Links: { Self: SIM_PATHS.ukCop }, Meta: {} }, outcome: a.reasonCode ?? 'MATCHED', executed: true };
}

/**
 * The credential the adapters send (live-provider.ts): `Authorization: Bearer <key>` for the bearer scheme,
 * `X-API-Key: <key>` for the api-key scheme. Either is accepted; with `apiKey` set it must carry exactly that key.
 */
function checkAuth(api: SimApi, headers: Record<string, string>, apiKey: string | undefined): void {
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers['authorization'] ?? '')?.[1];
  const xApiKey = headers['x-api-key']?.trim() || undefined;
  const given = [bearer, xApiKey].filter((k): k is string => k !== undefined);
  if (given.length > 0 && given.some((k) => apiKey === undefined || k === apiKey)) return;
  const message = given.length > 0 ? 'the api key is not valid' : 'Authorization: Bearer <apiKey> or X-API-Key: <apiKey> is required';
  if (api === 'uk-cop') throw new HttpError(401, { Code: '401 Unauthorized', Message: message, Errors: [] });
  if (api === 'epc-vop') throw new HttpError(401, { type: 'about:blank', title: 'Unauthorized', code: 'CLIENT_INVALID', detail: message });
  throw new HttpError(401, { error: 'unauthorized', message });
}

/** Headers that carry a credential: never shown by the (unauthenticated) request log. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'cookie', 'set-cookie']);

/** The request log's view of the headers: `Authorization: Basic ***` keeps the scheme, every credential is `***`. */
function redacted(headers: Record<string, string>): Record<string, string> {
  const out = { ...headers };
  for (const k of Object.keys(out)) {
    if (!SECRET_HEADERS.has(k.toLowerCase())) continue;
    const scheme = /authorization$/i.test(k) ? /^([A-Za-z][\w!#$%&'*+.^`|~-]*)\s+\S/.exec(out[k]!)?.[1] : undefined;
    out[k] = scheme ? `${scheme} ***` : '***';
  }
  return out;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<SimulatorHandle> {
  if (opts.apiKey !== undefined && opts.apiKey.trim() === '') throw new Error('simulator: apiKey must not be empty (omit it to accept any key)');
  const host = opts.host ?? '127.0.0.1';
  const seed = opts.seed ?? {};
  const cert = opts.tls ? simulatorCertificate() : null;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const log: SimRequest[] = [];
  /** Idempotency store per API, so the same key on two APIs means two checks. */
  const stores: Record<SimApi, Map<string, Stored>> = { generic: new Map(), 'epc-vop': new Map(), 'uk-cop': new Map() };
  /** Counted apart from the store: it is what the live tests assert on (1 however often the adapter retried). */
  const runs = new Map<string, number>();
  let configured: { fault: Fault; remaining: number | null } | null = null;
  let seq = 0;
  let stopping = false;

  const setFault = (f: FaultSpec | null, count?: number): void => {
    if (f === null) {
      configured = null;
      return;
    }
    if (count !== undefined && (!Number.isInteger(count) || count < 1)) throw new FaultParseError('count must be a positive integer');
    configured = { fault: parseFault(f), remaining: count ?? null };
  };
  if (opts.fault) setFault(opts.fault, opts.faultCount);

  /** The header fault wins; otherwise the configured one, counting down when it was given a count. */
  const takeFault = (headers: Record<string, string>): Fault | null => {
    const h = headers['x-sim-fault'];
    if (h !== undefined && h.trim() !== '') return parseFault(h);
    if (!configured) return null;
    const { fault } = configured;
    if (configured.remaining !== null) {
      configured.remaining -= 1;
      if (configured.remaining <= 0) configured = null;
    }
    return fault;
  };

  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const sendJson = (res: ServerResponse, status: number, json: unknown, headers: Record<string, string> = {}): void => {
    if (res.destroyed || res.writableEnded) return;
    const body = json === undefined ? '' : JSON.stringify(json);
    res.writeHead(status, { ...(body ? { 'content-type': 'application/json' } : {}), ...headers });
    res.end(body);
  };

  const control = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const method = req.method ?? 'GET';
    if (path === '/_sim/health' && method === 'GET') return sendJson(res, 200, { ok: true });
    if (path === '/_sim/requests' && method === 'GET') {
      return sendJson(res, 200, {
        requests: log.map((r) => ({ ...r, headers: redacted(r.headers), executions: r.idempotencyKey ? executions(r.idempotencyKey) : null })),
      });
    }
    if (path === '/_sim/requests' && method === 'DELETE') {
      reset();
      return sendJson(res, 204, undefined);
    }
    if (path === '/_sim/faults' && method === 'GET') {
      return sendJson(res, 200, configured ? { fault: formatFault(configured.fault), remaining: configured.remaining } : { fault: null, remaining: null });
    }
    if (path === '/_sim/faults' && method === 'DELETE') {
      setFault(null);
      return sendJson(res, 204, undefined);
    }
    if (path === '/_sim/faults' && method === 'POST') {
      let body: unknown;
      try {
        body = JSON.parse((await readBody(req)).toString('utf8'));
      } catch {
        return sendJson(res, 400, { error: 'invalid_request', message: 'the body must be JSON: { "fault": "...", "count"?: N }' });
      }
      if (!isObject(body) || typeof body['fault'] !== 'string') return sendJson(res, 400, { error: 'invalid_request', message: 'fault (a string) is required' });
      const count = body['count'];
      if (count !== undefined && typeof count !== 'number') return sendJson(res, 400, { error: 'invalid_request', message: 'count must be a number' });
      try {
        setFault(body['fault'], count);
      } catch (e) {
        if (e instanceof FaultParseError) return sendJson(res, 400, { error: 'invalid_fault', message: e.message });
        throw e;
      }
      return sendJson(res, 200, { fault: formatFault(configured!.fault), remaining: configured!.remaining });
    }
    return sendJson(res, 404, { error: 'not_found' });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://sim').pathname;
    if (path.startsWith('/_sim/')) return control(req, res, path);
    const method = req.method ?? 'GET';
    const route = routeOf(method, path);
    if (route === null || 'unknownKind' in route) {
      // Authentication comes first on every upstream path, a missing one included: a 404 to a wrong key would tell
      // a health probe (GET /) that the credentials were fine.
      try {
        checkAuth('generic', headerMap(req), opts.apiKey);
      } catch (e) {
        if (!(e instanceof HttpError)) throw e;
        return sendJson(res, e.status, e.json);
      }
      if (route === null) return sendJson(res, 404, { error: 'not_found', message: `no route for ${method} ${path}` });
      return sendJson(res, 404, { error: 'unknown_kind', message: `kind must be one of ${GENERIC_KINDS.join(', ')}` });
    }
    const { api, kind } = route;
    const headers = headerMap(req);
    const key = headers[IDEMPOTENCY_HEADERS[api]] ?? null;
    const rec: SimRequest = {
      seq: ++seq,
      at: new Date().toISOString(),
      method,
      path,
      api,
      kind,
      idempotencyKey: key,
      fault: null,
      replayed: false,
      status: null,
      outcome: null,
      headers,
      body: null,
    };
    log.push(rec);
    const done = (status: number | null): void => {
      rec.status = status;
      opts.log?.(
        `${rec.at} ${method} ${path} key=${key ?? '-'} fault=${rec.fault ?? '-'} -> ${status ?? 'no answer'}${rec.outcome ? ` ${rec.outcome}` : ''}${rec.replayed ? ' (replay)' : ''}`,
      );
    };

    let fault: Fault | null;
    try {
      fault = takeFault(headers);
    } catch (e) {
      if (!(e instanceof FaultParseError)) throw e;
      sendJson(res, 400, { error: 'invalid_fault', message: e.message });
      return done(400);
    }
    rec.fault = fault ? formatFault(fault) : null;

    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (e) {
      const status = e instanceof HttpError ? e.status : 400;
      sendJson(res, status, e instanceof HttpError ? e.json : { error: 'bad_request' });
      return done(status);
    }
    try {
      rec.body = JSON.parse(raw.toString('utf8'));
    } catch {
      rec.body = raw.toString('utf8');
    }

    // Faults that reject the request before it reaches the check.
    if (fault?.type === 'reset') {
      req.socket.destroy();
      return done(null);
    }
    if (fault?.type === 'status') {
      sendJson(res, fault.status, { error: 'upstream_unavailable', message: `simulated ${fault.status}` });
      return done(fault.status);
    }
    if (fault?.type === 'rate-limit') {
      const retryAfter = fault.asDate ? new Date(Date.now() + fault.retryAfterSeconds * 1000).toUTCString() : String(fault.retryAfterSeconds);
      sendJson(res, 429, { error: 'rate_limited', message: 'simulated rate limit' }, { 'retry-after': retryAfter });
      return done(429);
    }

    let answer: { status: number; body: string; headers: Record<string, string>; outcome: string | null };
    try {
      checkAuth(api, headers, opts.apiKey);
      const stored = key !== null ? stores[api].get(key) : undefined;
      if (stored) {
        rec.replayed = true;
        answer = stored;
      } else {
        const a = runCheck(api, kind, parseJson(api, raw), headers, seed);
        const h: Record<string, string> = { ...(a.headers ?? {}) };
        if (api === 'epc-vop' && headers['x-request-id']) h['x-request-id'] = headers['x-request-id'];
        if (api === 'uk-cop') h['x-fapi-interaction-id'] = headers['x-fapi-interaction-id'] ?? randomUUID();
        answer = { status: a.status, body: JSON.stringify(a.json), headers: h, outcome: a.outcome ?? null };
        if (key !== null && a.executed && faultRunsCheck(fault)) {
          stores[api].set(key, answer);
          runs.set(key, (runs.get(key) ?? 0) + 1);
        }
      }
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      // A rejected request still suffers the delivery faults below: a hung upstream does not answer 400s either.
      answer = { status: e.status, body: JSON.stringify(e.json), headers: {}, outcome: null };
    }
    rec.outcome = answer.outcome;

    const deliver = (): void => {
      if (res.destroyed || res.writableEnded) return done(null);
      if (fault?.type === 'malformed') {
        const body =
          fault.variant === 'not-json'
            ? '{"result": "MATCH", "data": {<html>upstream proxy error'
            : fault.variant === 'wrong-shape'
              ? JSON.stringify({ status: 'ok', items: [1, 2, 3] })
              : JSON.stringify({ ...(JSON.parse(answer.body) as object), padding: 'x'.repeat(MAX_BODY + 1024) });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
        return done(200);
      }
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body);
      done(answer.status);
    };
    if (fault?.type === 'timeout') return; // never answers; stop() destroys the socket
    if (fault?.type === 'latency' || fault?.type === 'late') return later(fault.ms, deliver);
    deliver();
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent && !res.destroyed) sendJson(res, 500, { error: 'simulator_bug', message: (e as Error).message });
    });
  };
  const server: Server = cert ? createHttpsServer({ key: cert.key, cert: cert.cert }, listener) : createHttpServer(listener);
  // Clients may hold keep-alive sockets and `timeout` requests never end: stop() destroys them all.
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('simulator: no TCP address');
  const hostPart = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `${cert ? 'https' : 'http'}://${hostPart}:${addr.port}`;

  function executions(idempotencyKey: string): number {
    return runs.get(idempotencyKey) ?? 0;
  }
  function reset(): void {
    log.length = 0;
    runs.clear();
    for (const s of Object.values(stores)) s.clear();
  }

  return {
    url,
    baseUrls: { generic: url, epcVop: url, ukCop: url },
    ca: cert ? cert.cert : null,
    setFault,
    requests: () => log.map((r) => ({ ...r, headers: { ...r.headers } })),
    executions,
    reset,
    async stop() {
      if (stopping) return;
      stopping = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await closed;
    },
  };
}
