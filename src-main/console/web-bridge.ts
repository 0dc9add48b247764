// The headless web console: serves the built renderer under /console/ and carries the console channel map over
// POST /console/bridge/:channel. Two ways in:
// - on loopback, a one-time token in the URL fragment, exchanged once for an HttpOnly, SameSite=Strict session
//   cookie; the console then acts as the installation's owner;
// - on a team server (`--public-url`), signing in with a console user's email and password (POST /console/sign-in):
//   a server-side session in the store (core/auth/console-sessions.ts) behind an HttpOnly, SameSite=Strict cookie,
//   Secure when the public URL is https; every channel call is checked against the user's role before it runs.
// Bridge calls from any other origin than the console's own are refused.
// A browser cannot hand the service a local path, so files dropped into the console are streamed to the data
// folder (POST /console/upload) and batch results are downloaded from it (GET /console/batch/:id/download).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, extname, join, normalize, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BatchJobSchema } from '../../src-shared/schemas/routing';
import type { LiveMessage } from '../../src-shared/live-events';
import type { LiveEventHub } from '../core/events/live-events';
import { LoginRequestSchema } from '../../src-shared/schemas/auth';
import { AppError } from '../../src-shared/app-error';
import type { CoreDeps } from '../core/context';
import { consoleSessionUser, consoleSignIn, consoleSignOut, CONSOLE_SESSION_TTL_MS } from '../core/auth/console-sessions';
import { runWithAudit } from '../core/audit/audit-context';
import { attachmentDisposition } from './content-disposition';
import { auditExportDownload, type AuditExportFile } from './audit-download';
import { dispatch, type ConsoleCaller, type Handlers } from './handlers';
import { sseComment, sseFrame, sseRetry, startSseResponse } from './sse';

/** How long a browser waits before reconnecting a dropped event stream. */
export const LIVE_RETRY_MS = 1000;
/** A comment on a quiet event stream this often keeps it from being closed as idle. */
export const LIVE_HEARTBEAT_MS = 20_000;

/** Largest file the console accepts by upload (a 1M-row routing file is ~50 MB). */
export const MAX_UPLOAD_BYTES = 2 * 1024 ** 3;
/** Uploaded files older than this are removed when the service starts. */
export const UPLOAD_RETENTION_MS = 7 * 24 * 3600_000;

/** A file name safe to keep on disk and show back: no folders, no control characters, bounded length. */
export function safeUploadName(raw: string | undefined): string {
  const base = basename((raw ?? '').replace(/\\/g, '/'));
  let name = [...base].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f || '<>:"|?*'.includes(c) ? '_' : c)).join('').trim();
  if (name === '' || name === '.' || name === '..') name = 'upload.csv';
  return name.slice(-120);
}

async function removeOldUploads(dir: string, nowMs: number): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const e of entries) {
    const full = join(dir, e);
    const st = await stat(full).catch(() => null);
    if (st && nowMs - st.mtimeMs > UPLOAD_RETENTION_MS) await rm(full, { recursive: true, force: true });
  }
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

export interface WebBridge {
  /** Issues a fresh one-time entry token (each is usable once); null on a team server, where people sign in. */
  issueToken(): string | null;
  /** Ends every open event stream (the service stopping; tests of a dropped connection). */
  dropLiveStreams(): void;
  plugin(app: FastifyInstance): Promise<void>;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookie(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

export function createWebBridge(opts: {
  handlers: Handlers;
  rendererDir: string;
  port: () => number | null;
  log?: { error(o: object, m: string): void };
  /** Where dropped files are stored (inside the data folder); uploads are refused without it. */
  uploadDir?: string;
  /** The store's live change events, served as Server-Sent Events at /console/events (docs/console-live.md). */
  live?: LiveEventHub | null;
  /** Told when a one-time link opens a console session (the audit trail records it: docs/audit.md). */
  onSessionOpened?: (info: { userAgent: string | null }) => Promise<void>;
  /**
   * A team server (docs/team-server.md): the console is entered by signing in, at this public URL (its origin is
   * the only one whose calls are answered). Without it, the one-time link on loopback.
   */
  team?: { publicUrl: URL; deps: CoreDeps };
  /** The audit export as a file in parts (feature-audit.ts), answering GET /console/audit/export. */
  auditExportFile: AuditExportFile;
}): WebBridge {
  if (opts.uploadDir) void removeOldUploads(opts.uploadDir, Date.now());
  const tokens = new Set<string>();
  const sessions = new Set<string>();
  const team = opts.team ?? null;
  const secure = team?.publicUrl.protocol === 'https:';
  // A Secure cookie on a team server carries the __Host- prefix: the browser then also refuses it from any
  // sub-domain or path scope, and over plain HTTP.
  const cookieName = team ? (secure ? '__Host-vc_session' : 'vc_session') : 'vc_console';
  const cookiePath = team ? '/' : '/console';

  function sessionCookie(value: string, maxAgeSeconds: number): string {
    return `${cookieName}=${value}; HttpOnly; SameSite=Strict; Path=${cookiePath}; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
  }

  function sameOrigin(req: FastifyRequest): boolean {
    const origin = req.headers.origin;
    if (!origin) return false;
    if (team) return origin === team.publicUrl.origin;
    const port = opts.port();
    if (port === null) return false;
    return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
  }

  function linkAuthed(req: FastifyRequest): boolean {
    const s = cookie(req, 'vc_console');
    if (!s) return false;
    for (const known of sessions) if (safeEqual(known, s)) return true;
    return false;
  }

  /**
   * Who is calling: undefined for a one-time-link session (the console acts as owner), the signed-in user on a
   * team server, null when not signed in.
   */
  async function access(req: FastifyRequest): Promise<ConsoleCaller | undefined | null> {
    if (!team) return linkAuthed(req) ? undefined : null;
    const user = await consoleSessionUser(team.deps, cookie(req, cookieName));
    return user ? { user, ...(opts.uploadDir ? { uploadDir: opts.uploadDir } : {}) } : null;
  }

  const refuseCrossOrigin = (reply: FastifyReply) => reply.code(403).send({ code: 'FORBIDDEN', message: 'Cross-origin console access is refused.', statusCode: 403 });

  const notSignedIn = () =>
    team
      ? { code: 'SIGN_IN_REQUIRED', message: 'Your console session has ended. Sign in again.', statusCode: 401 }
      : { code: 'TOKEN_INVALID', message: 'Open the console through its one-time link.', statusCode: 401 };

  function clientInfo(req: FastifyRequest) {
    return { ip: req.ip ?? null, userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'].slice(0, 200) : null };
  }

  /**
   * Same origin for a GET: browsers send no Origin header on a same-origin GET (EventSource included), so there
   * the Fetch Metadata header decides; a request that carries neither is refused like a foreign one.
   */
  function sameOriginRead(req: FastifyRequest): boolean {
    if (req.headers.origin !== undefined) return sameOrigin(req);
    return req.headers['sec-fetch-site'] === 'same-origin';
  }

  /** Open event streams: each one's end(), and the team session it belongs to (null for a one-time link). */
  const streams = new Map<() => void, string | null>();

  function endStreamsOf(sessionId: string): void {
    for (const [end, sid] of [...streams]) if (sid === sessionId) end();
  }

  async function serveFile(reply: FastifyReply, rel: string) {
    const root = normalize(opts.rendererDir);
    const file = normalize(join(root, rel));
    if (file !== root && !file.startsWith(root + sep)) return reply.code(404).send({ code: 'NOT_FOUND', message: 'Not found', statusCode: 404 });
    try {
      const data = await readFile(file);
      const type = MIME[extname(file)] ?? 'application/octet-stream';
      reply.header('Content-Security-Policy', CONSOLE_CSP);
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Referrer-Policy', 'no-referrer');
      reply.header('Cache-Control', 'no-store');
      return reply.type(type).send(data);
    } catch {
      if (rel === 'index.html') {
        return reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send('The console has not been built. Run `npm run build`, then start the service again.');
      }
      return reply.code(404).send({ code: 'NOT_FOUND', message: 'Not found', statusCode: 404 });
    }
  }

  return {
    dropLiveStreams() {
      for (const end of [...streams.keys()]) end();
    },
    issueToken() {
      if (team) return null;
      const t = randomBytes(24).toString('base64url');
      tokens.add(t);
      return t;
    },
    async plugin(app) {
      app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/console/'));
      app.get('/console', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/console/'));
      app.get('/console/', { schema: { hide: true } }, async (_req, reply) => serveFile(reply, 'index.html'));
      app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true } }, async (req, reply) => {
        let rel: string;
        try {
          rel = decodeURIComponent(req.params['*'] ?? '');
        } catch {
          // A stray '%' (e.g. /console/%25) is not a file name; it used to surface as a 500.
          return reply.code(404).send({ code: 'NOT_FOUND', message: 'Not found', statusCode: 404 });
        }
        if (rel.startsWith('bridge/') || rel === 'session' || rel === 'events' || rel === 'sign-in' || rel === 'sign-out') return reply.code(405).send();
        return serveFile(reply, rel === '' ? 'index.html' : rel);
      });
      app.post<{ Body: { token?: unknown } }>('/console/session', { schema: { hide: true } }, async (req, reply) => {
        if (!sameOrigin(req)) return refuseCrossOrigin(reply);
        if (team) {
          // A team server takes no one-time token: the session is the signed-in one, or none (the sign-in page).
          const caller = await access(req);
          if (!caller) return reply.code(401).send({ code: 'SIGN_IN_REQUIRED', message: 'Sign in to use the console.', statusCode: 401 });
          return { ok: true, signIn: 'password', user: { id: caller.user.userId, email: caller.user.email, role: caller.user.role } };
        }
        const token = typeof req.body?.token === 'string' ? req.body.token : '';
        let match: string | undefined;
        for (const t of tokens) if (safeEqual(t, token)) match = t;
        if (!match && !linkAuthed(req)) {
          return reply.code(401).send({ code: 'TOKEN_INVALID', message: 'This console link was already used or is not valid. Ask the service for a new one.', statusCode: 401 });
        }
        if (match) {
          tokens.delete(match);
          const sid = randomBytes(24).toString('base64url');
          sessions.add(sid);
          reply.header('Set-Cookie', `vc_console=${sid}; HttpOnly; SameSite=Strict; Path=/console`);
          await opts.onSessionOpened?.({ userAgent: clientInfo(req).userAgent });
        }
        return { ok: true, signIn: 'link' };
      });
      if (team) {
        // Team sign-in: email and password of a console user; throttled and audited in core (core/auth/sign-in.ts).
        app.post<{ Body: unknown }>('/console/sign-in', { schema: { hide: true } }, async (req, reply) => {
          if (!sameOrigin(req)) return refuseCrossOrigin(reply);
          const body = LoginRequestSchema.safeParse(req.body ?? {});
          if (!body.success) {
            throw new AppError('VALIDATION_ERROR', { details: body.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message })) });
          }
          const from = clientInfo(req);
          const signedIn = await runWithAudit({ door: 'console' }, () => consoleSignIn(team.deps, body.data.email, body.data.password, from, cookie(req, cookieName)));
          if (signedIn.replaced) endStreamsOf(signedIn.replaced);
          reply.header('Set-Cookie', sessionCookie(signedIn.token, Math.floor(CONSOLE_SESSION_TTL_MS / 1000)));
          reply.header('Cache-Control', 'no-store');
          const u = signedIn.user;
          return { ok: true, user: { id: u.userId, email: u.email, role: u.role } };
        });
        app.post('/console/sign-out', { schema: { hide: true } }, async (req, reply) => {
          if (!sameOrigin(req)) return refuseCrossOrigin(reply);
          const ended = await runWithAudit({ door: 'console' }, () => consoleSignOut(team.deps, cookie(req, cookieName)));
          // The session's open event streams end now; the browser forgets the cookie.
          if (ended) endStreamsOf(ended);
          reply.header('Set-Cookie', sessionCookie('', 0));
          return { ok: true };
        });
      }
      app.post<{ Params: { channel: string } }>('/console/bridge/:channel', { schema: { hide: true } }, async (req, reply) => {
        if (!sameOrigin(req)) return refuseCrossOrigin(reply);
        const caller = await access(req);
        if (caller === null) return reply.code(401).send(notSignedIn());
        return dispatch(opts.handlers, req.params.channel, req.body, opts.log, caller);
      });
      // Ends open event streams first: app.close() waits for requests in flight, and a stream never finishes.
      app.addHook('preClose', (done) => {
        for (const end of [...streams.keys()]) end();
        done();
      });
      app.get<{ Querystring: { lastEventId?: string } }>('/console/events', { schema: { hide: true } }, async (req, reply) => {
        if (!sameOriginRead(req)) return refuseCrossOrigin(reply);
        const caller = await access(req);
        if (caller === null) return reply.code(401).send(notSignedIn());
        const hub = opts.live;
        const info = await dispatch(opts.handlers, 'app:info', {}, opts.log, caller);
        const organizationId = info.ok ? (info.value as { organizationId: string | null }).organizationId : null;
        if (!hub || !organizationId) return reply.code(404).send({ code: 'NOT_FOUND', message: 'No live events here yet: set up the organization first.', statusCode: 404 });
        // The browser resends the last id it saw in Last-Event-ID; a client that had to start a new EventSource
        // passes it as ?lastEventId= instead (an EventSource cannot set headers).
        const header = req.headers['last-event-id'];
        const lastEventId = (typeof header === 'string' ? header : undefined) ?? req.query.lastEventId ?? null;
        reply.hijack();
        const res = reply.raw;
        startSseResponse(res);
        res.write(sseRetry(LIVE_RETRY_MS));
        const send = (m: LiveMessage) => {
          if (m.type === 'reset') res.write(sseFrame({ event: 'reset', id: hub.lastId, data: '{}' }));
          else res.write(sseFrame({ event: 'change', id: m.event.id, data: JSON.stringify(m.event) }));
        };
        const unsubscribe = hub.subscribe(organizationId, send, lastEventId);
        const token = team ? cookie(req, cookieName) : undefined;
        const heartbeat = setInterval(() => {
          // A team session may have ended elsewhere (expired, idle, revoked by a role change, signed out on another
          // instance): the stream ends with it, at the latest one heartbeat later. An open stream is not a use of
          // the console: it does not hold an unattended tab's session open past the idle limit.
          if (team) {
            void consoleSessionUser(team.deps, token, { touch: false }).then(
              (u) => (u ? res.write(sseComment('keep-alive')) : end()),
              () => end(),
            );
          } else res.write(sseComment('keep-alive'));
        }, LIVE_HEARTBEAT_MS);
        heartbeat.unref();
        const end = () => {
          if (!streams.delete(end)) return;
          clearInterval(heartbeat);
          unsubscribe();
          res.end();
        };
        streams.set(end, caller?.user.sessionId ?? null);
        req.raw.on('close', end);
        res.on('close', end);
        // A fresh stream starts at "now" (after subscribing: the first subscriber starts a recording period, which
        // on a team server is in effect once the database knows it is wanted): its id lets the next reconnect
        // resume from here.
        if (!lastEventId) {
          await hub.recording();
          if (streams.has(end)) res.write(sseFrame({ event: 'hello', id: hub.lastId, data: '{}' }));
        }
      });
      // The upload takes the raw body as a stream: its own scope, so no JSON parser or 1 MiB body limit applies.
      await app.register(async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
        scope.post<{ Querystring: { name?: string } }>('/console/upload', { schema: { hide: true } }, async (req, reply) => {
          if (!sameOrigin(req)) return refuseCrossOrigin(reply);
          if ((await access(req)) === null) {
            req.raw.resume();
            return reply.code(401).send(notSignedIn());
          }
          if (!opts.uploadDir) return reply.code(404).send({ code: 'NOT_FOUND', message: 'Uploads are not available on this door.', statusCode: 404 });
          const declared = Number(req.headers['content-length'] ?? NaN);
          if (declared > MAX_UPLOAD_BYTES) {
            req.raw.resume();
            return reply.code(413).send({ code: 'PAYLOAD_TOO_LARGE', message: `Files up to ${MAX_UPLOAD_BYTES / 1024 ** 3} GiB can be uploaded.`, statusCode: 413 });
          }
          const dir = join(opts.uploadDir, randomBytes(8).toString('hex'));
          const file = join(dir, safeUploadName(req.query.name));
          await mkdir(dir, { recursive: true });
          let bytes = 0;
          const limit = new Transform({
            transform(chunk: Buffer, _enc, cb) {
              bytes += chunk.length;
              if (bytes > MAX_UPLOAD_BYTES) cb(new Error('too large'));
              else cb(null, chunk);
            },
          });
          try {
            await pipeline(req.raw, limit, createWriteStream(file, { mode: 0o600 }));
          } catch {
            await rm(dir, { recursive: true, force: true });
            const tooLarge = bytes > MAX_UPLOAD_BYTES;
            return reply
              .code(tooLarge ? 413 : 400)
              .send(tooLarge
                ? { code: 'PAYLOAD_TOO_LARGE', message: `Files up to ${MAX_UPLOAD_BYTES / 1024 ** 3} GiB can be uploaded.`, statusCode: 413 }
                : { code: 'UPLOAD_FAILED', message: 'The upload was interrupted; nothing was kept. Try again.', statusCode: 400 });
          }
          return { path: file, bytes };
        });
      });
      // No HEAD twin: it would build the whole export to send none of it.
      app.get<{ Querystring: { format?: string } }>('/console/audit/export', { schema: { hide: true }, exposeHeadRoute: false }, async (req, reply) => {
        // The audit export as a file (the Audit page's Export buttons in a browser): the same channel, its role, input
        // and errors, but the file's text goes to the socket a slice at a time instead of inside the bridge's JSON.
        if (!sameOriginRead(req) && req.headers['sec-fetch-site'] !== 'none') return refuseCrossOrigin(reply);
        const caller = await access(req);
        if (caller === null) return reply.code(401).send(notSignedIn());
        const file = await auditExportDownload(opts.handlers, opts.auditExportFile, req.query.format, opts.log, caller);
        if (!file.ok) return reply.code(file.status).send({ ...file.error, statusCode: file.status });
        return reply.headers(file.headers).send(file.body);
      });
      app.get<{ Params: { id: string }; Querystring: { rows?: string } }>('/console/batch/:id/download', { schema: { hide: true } }, async (req, reply) => {
        // A download is a navigation: same origin, or typed by the user ('none'); another site, even a sibling
        // subdomain that SameSite counts as the same site, cannot start one with the user's cookie.
        if (!sameOriginRead(req) && req.headers['sec-fetch-site'] !== 'none') {
          return refuseCrossOrigin(reply);
        }
        const caller = await access(req);
        if (caller === null) return reply.code(401).send(notSignedIn());
        const answer = await dispatch(opts.handlers, 'batch:progress', { id: req.params.id }, opts.log, caller);
        const parsed = answer.ok ? BatchJobSchema.safeParse(answer.value) : null;
        if (!parsed?.success) return reply.code(404).send({ code: 'NOT_FOUND', message: 'No such batch.', statusCode: 404 });
        const invalidOnly = req.query.rows === 'invalid';
        const path = invalidOnly ? parsed.data.invalidOnlyPath : parsed.data.resultPath;
        const st = path ? await stat(path).catch(() => null) : null;
        if (!path || !st || parsed.data.status === 'running') {
          return reply.code(409).send({ code: 'NOT_READY', message: 'The batch has no result file (yet).', statusCode: 409 });
        }
        const stem = parsed.data.inputName.replace(/\.csv$/i, '').trim() || 'batch';
        reply.header('Content-Disposition', attachmentDisposition(`${stem}-${invalidOnly ? 'invalid-rows' : 'results'}.csv`));
        reply.header('Content-Length', String(st.size));
        reply.header('Cache-Control', 'no-store');
        reply.header('X-Content-Type-Options', 'nosniff');
        return reply.type('text/csv; charset=utf-8').send(createReadStream(path));
      });
    },
  };
}
