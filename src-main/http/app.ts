// The public API door: a Fastify app built from the running core. Only the entry point calls listen(); tests
// use inject() or a real socket. Every response follows interface §7.1; the OpenAPI document is generated from
// the same zod schemas that validate requests.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, type FastifyServerOptions, type onRequestHookHandler } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { AppError } from '../../src-shared/app-error';
import type { CoreRuntime } from '../core/runtime';
import { authHook, type AuthMode } from './auth';
import { clientErrorHandler, documentDoorErrors, frameworkErrorHandler, installErrorHandling, sendError } from './errors';
import { openApiDocumentOf, type SchemaCompilers } from './openapi-document';
import { requestBudgetFor } from '../core/limits/request-budget';
import { registerAuthRoutes } from './routes/auth';
import { registerKeyRoutes } from './routes/keys';
import { registerMetaRoutes } from './routes/meta';
import { registerVerifyRoutes } from './routes/verify';
import { runWithAudit } from '../core/audit/audit-context';

export const API_PREFIX = '/api/v1';

const socketsOf = new WeakMap<FastifyInstance, Map<Socket, number>>();

/** During a stop: ends every socket that is serving no request (the ones serving one end after their answer). */
export function endIdleSockets(app: FastifyInstance): void {
  for (const [socket, inFlight] of socketsOf.get(app) ?? []) if (inFlight === 0) socket.destroy();
}

/** What a 413 still reads and throws away so the client can finish sending and read the answer (docs/performance.md). */
export const OVERSIZED_DISCARD_BYTES = 64 * 1024 * 1024;
const OVERSIZED_LINGER_MS = 10_000;

/**
 * A request refused before its body was read (413) must still get its answer read by the client. Node ends a
 * `Connection: close` response with socket.destroySoon(): our FIN, then close() once it is flushed — and closing
 * with the client's unread body in the receive buffer sends a RST, so a client still writing gets EPIPE or
 * ECONNRESET and often never reads the 413 (bare Fastify does the same). Instead the socket is half-closed after
 * the answer and keeps reading, discarding, until the client closes its side — bounded by OVERSIZED_DISCARD_BYTES
 * and OVERSIZED_LINGER_MS, past which it is destroyed as before.
 */
function lingerAfterRefusal(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (socket.destroyed || typeof socket.destroySoon !== 'function') return;
  socket.destroySoon = function lingeringClose(this: Socket) {
    let discarded = 0;
    const kill = () => this.destroy();
    const timer = setTimeout(kill, OVERSIZED_LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    if (this.writable) this.end();
    // The body flows through Node's parser into the request (not through socket 'data' events): reading it on is
    // what lets the client finish; once it is all in (or the client closes), nothing unread is left to RST.
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > OVERSIZED_DISCARD_BYTES) kill();
    });
    req.once('end', kill);
    this.once('end', kill);
    req.resume();
  };
}

export interface HttpDoor {
  app: FastifyInstance;
  rt: CoreRuntime;
  auth(mode: AuthMode): onRequestHookHandler;
  /** The OpenAPI document of every route (built on its first request, then kept). */
  openApiDocument(): Promise<unknown>;
}

export interface BuildAppOptions {
  rt: CoreRuntime;
  /** Answer only requests whose Host names the loopback listener (DNS rebinding guard, decisions §1). */
  loopbackOnly: boolean;
  /**
   * A team server's public URL (docs/team-server.md): the only Host answered is its host (the loopback names are
   * refused too), and when it is https every answer carries Strict-Transport-Security.
   */
  publicUrl?: URL;
  /** Serve HTTPS directly with this certificate and key (PEM). */
  https?: { cert: string | Buffer; key: string | Buffer };
  /**
   * Trust X-Forwarded-For / X-Forwarded-Proto from these proxy addresses (Fastify's trustProxy: addresses or CIDR
   * ranges). Never by default: a client could otherwise claim any address and dodge the sign-in throttle.
   */
  trustProxy?: string[];
  /** Filled once the port is known, for the Host check. */
  port: () => number | null;
  logger?: FastifyServerOptions['logger'];
  /** A logger shared with the core (one file in the Electron door); replaces `logger`. */
  loggerInstance?: FastifyBaseLogger;
  /** Extra plugins mounted on the same listener (the web console bridge). */
  extensions?: ((app: FastifyInstance) => Promise<void> | void)[];
  /** Extra route groups under /api/v1 (added by later features). */
  routes?: ((door: HttpDoor) => void)[];
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost'];

/** The Host header values that name a public URL: its host, and host:port with the scheme's default port spelled out. */
export function publicHostHeaders(url: URL): string[] {
  const host = url.host.toLowerCase();
  if (url.port !== '') return [host];
  return [host, `${host}:${url.protocol === 'https:' ? 443 : 80}`];
}

/** The TCP socket under a request: an HTTPS request's TLS socket wraps the one the server's 'connection' saw. */
function tcpSocketOf(s: Socket): Socket {
  return (s as Socket & { _parent?: Socket })._parent ?? s;
}
/**
 * Every route schema is zod: validated and serialised by fastify-type-provider-zod. (Fastify types its compiler
 * factories for Ajv schemas; its setValidatorCompiler takes these same compilers generically.)
 */
const SCHEMA_COMPILERS: SchemaCompilers = {
  buildValidator: (() => validatorCompiler) as unknown as SchemaCompilers['buildValidator'],
  buildSerializer: (() => serializerCompiler) as unknown as SchemaCompilers['buildSerializer'],
};
const SINGLE_VALUE_HEADERS = ['idempotency-key', 'x-api-key', 'x-environment'];

/** The Host of a request to the loopback listener: 127.0.0.1 or localhost with the listener's port. */
function loopbackHost(host: string | undefined, port: number | null): boolean {
  // Host names are case-insensitive (RFC 9110 §4.2.3): LOCALHOST is localhost, as the public address's check reads it.
  const h = (host ?? '').toLowerCase();
  if (port !== null) return LOOPBACK_HOSTS.some((name) => h === `${name}:${port}`);
  // inject() sends 'localhost:80'; tests run through inject with the same rule, so allow the port-less forms only there.
  return h === 'localhost:80' || h === 'localhost';
}

/**
 * Node joins a repeated custom header into one "a, b" string; these must see that two were sent (api-decisions).
 * Only a value holding a comma can be a join, so the raw headers are read only then.
 */
function checkRepeatedHeaders(req: FastifyRequest): void {
  for (const name of SINGLE_VALUE_HEADERS) {
    const joined = req.headers[name];
    if (typeof joined !== 'string' || !joined.includes(',')) continue;
    const values: string[] = [];
    const raw = req.raw.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) values.push(raw[i + 1]!);
    if (values.length > 1 && name === 'idempotency-key') throw new AppError('IDEMPOTENCY_KEY_INVALID', {
        message: 'Send exactly one Idempotency-Key header.',
        details: [{ field: 'Idempotency-Key', message: `was sent ${values.length} times; send it exactly once` }],
      });
    if (values.length > 1) req.headers[name] = values;
  }
}

export async function buildApp(o: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(o.loggerInstance ? { loggerInstance: o.loggerInstance } : { logger: o.logger ?? false }),
    bodyLimit: 1024 * 1024,
    // Error responses carry no stack; proto poisoning is refused outright.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    trustProxy: o.trustProxy && o.trustProxy.length > 0 ? o.trustProxy : false,
    ...(o.https ? { https: { cert: o.https.cert, key: o.https.key, minVersion: 'TLSv1.2' as const } } : {}),
    // A request that arrives while the listener closes (pipelined behind one in flight) is refused by the onRequest
    // hook below with the service's own 503 body and Retry-After (SERVICE_STOPPING), not Fastify's bare one, which
    // has neither and which the OpenAPI document's 503 does not describe.
    return503OnClosing: false,
    routerOptions: { maxParamLength: 200 },
    // Errors raised before routing, or by Node's parser, answer with the §7.1 body too (found by test/security).
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // Given as the compilers' factory (not set after construction), Fastify never loads its default Ajv and
    // fast-json-stringify compilers, which we never use: about 120 ms of a cold start (docs/performance.md).
    schemaController: { compilersFactory: SCHEMA_COMPILERS },
  });
  app.removeContentTypeParser('text/plain');
  // SQLite engine only: the store's health (a full or read-only disk) is watched on its SQLite connection.
  installErrorHandling(app, o.rt.deps.db);
  // Each request runs in its own audit context (the door; the principal once authenticated): docs/audit.md.
  app.addHook('onRequest', (_req, _reply, next) => runWithAudit({ door: 'api' }, next));
  documentDoorErrors(app);
  // Sockets and the requests each is serving, so a stop can end every socket that serves none — idle keep-alive
  // sockets and the ones a browser opened ahead of time and never used (Node would hold those until its 60 s
  // headers timeout: closeIdleConnections() does not count them as idle).
  const sockets = new Map<Socket, number>();
  socketsOf.set(app, sockets);
  app.server.on('connection', (socket: Socket) => {
    sockets.set(socket, 0);
    socket.once('close', () => sockets.delete(socket));
  });
  const done = (req: FastifyRequest) => {
    const socket = tcpSocketOf(req.raw.socket);
    const n = sockets.get(socket);
    if (n !== undefined) sockets.set(socket, Math.max(0, n - 1));
  };
  // The per-request checks in one callback hook (each async hook costs a promise and a turn of the hook runner,
  // on every request): count the request on its socket, refuse repeated single-value headers, and (loopback
  // listener) refuse a Host that does not name it (a public URL's Host is checked by its own hook below).
  // Set once the listener starts to close (preClose, below).
  let closing = false;
  app.addHook('onRequest', (req, reply, next) => {
    const socket = tcpSocketOf(req.raw.socket);
    const n = sockets.get(socket);
    if (n !== undefined) sockets.set(socket, n + 1);
    if (closing) {
      sendError(reply, 'SERVICE_STOPPING', { retryAfterSeconds: 1 });
      return;
    }
    try {
      checkRepeatedHeaders(req);
    } catch (err) {
      next(err as Error);
      return;
    }
    if (!o.publicUrl && o.loopbackOnly && !loopbackHost(req.headers.host, o.port())) {
      // A reply sent from a hook ends the chain (next() is not called).
      sendError(reply, 'FORBIDDEN', { message: 'This listener answers only requests addressed to 127.0.0.1 or localhost.' });
      return;
    }
    next();
  });
  app.addHook('onResponse', (req, _reply, next) => {
    done(req);
    next();
  });
  app.addHook('onRequestAbort', (req, next) => {
    done(req);
    next();
  });
  // Once the listener closes, every answer still in flight says `Connection: close`: a keep-alive client would
  // otherwise hold its idle connection open and make close() wait for the keep-alive timeout (about 72 s).
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Acknowledged means on disk: no answer leaves while a write it may depend on (its own, or another request's
  // that it read) is committed but not yet synced (store/write-port.ts). Immediate when nothing is outstanding.
  const durable = o.rt.deps.durable;
  app.addHook('onSend', (req, reply, payload, next) => {
    if (closing) reply.header('connection', 'close');
    if (reply.statusCode === 413 && !req.raw.complete) {
      reply.header('connection', 'close');
      lingerAfterRefusal(req.raw);
    }
    if (!durable) {
      next(null, payload);
      return;
    }
    durable().then(
      () => next(null, payload),
      (err: unknown) => next(err instanceof Error ? err : new Error(String(err))),
    );
  });

  if (o.publicUrl) {
    const publicUrl = o.publicUrl;
    const allowed = publicHostHeaders(publicUrl);
    const https = publicUrl.protocol === 'https:';
    app.addHook('onRequest', async (req, reply) => {
      const host = (req.headers.host ?? '').toLowerCase();
      if (!allowed.includes(host)) {
        return sendError(reply, 'FORBIDDEN', { message: `This listener answers only requests addressed to ${publicUrl.host}.` });
      }
      // Behind a trusted proxy that says the client came over plain HTTP: send it to the https address instead.
      if (https && o.trustProxy?.length && req.protocol !== 'https') {
        if (req.method === 'GET' || req.method === 'HEAD') return reply.redirect(new URL(req.url, publicUrl).href, 308);
        return sendError(reply, 'FORBIDDEN', { message: `Use ${publicUrl.origin}: this service answers over https only.` });
      }
    });
    if (https) {
      app.addHook('onSend', async (_req, reply) => {
        reply.header('Strict-Transport-Security', 'max-age=31536000');
      });
    }
  }

  // Recorded from here (after documentDoorErrors completed the schemas); the document is built on first request.
  const openApiDocument = openApiDocumentOf(app, o.rt, SCHEMA_COMPILERS);

  const limiter = requestBudgetFor(o.rt.deps);
  await app.register(
    async (api) => {
      const door: HttpDoor = { app: api, rt: o.rt, auth: (mode) => authHook(o.rt, mode, limiter), openApiDocument };
      registerMetaRoutes(door);
      registerAuthRoutes(door);
      registerKeyRoutes(door);
      registerVerifyRoutes(door);
      for (const r of o.routes ?? []) r(door);
    },
    { prefix: API_PREFIX },
  );
  for (const ext of o.extensions ?? []) await ext(app);
  return app;
}
