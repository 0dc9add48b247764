// The headless web console: serves the built renderer under /console/ on the loopback listener and carries the
// console channel map over POST /console/bridge/:channel. Entry is by a one-time token in the URL fragment,
// exchanged once for an HttpOnly, SameSite=Strict session cookie; bridge calls from any other origin are refused.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dispatch, type Handlers } from './handlers';

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
  /** Issues a fresh one-time entry token (each is usable once). */
  issueToken(): string;
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
}): WebBridge {
  const tokens = new Set<string>();
  const sessions = new Set<string>();

  function sameOrigin(req: FastifyRequest): boolean {
    const origin = req.headers.origin;
    const port = opts.port();
    if (!origin || port === null) return false;
    return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
  }

  function authed(req: FastifyRequest): boolean {
    const s = cookie(req, 'vc_console');
    if (!s) return false;
    for (const known of sessions) if (safeEqual(known, s)) return true;
    return false;
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
    issueToken() {
      const t = randomBytes(24).toString('base64url');
      tokens.add(t);
      return t;
    },
    async plugin(app) {
      app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/console/'));
      app.get('/console', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/console/'));
      app.get('/console/', { schema: { hide: true } }, async (_req, reply) => serveFile(reply, 'index.html'));
      app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true } }, async (req, reply) => {
        const rel = decodeURIComponent(req.params['*'] ?? '');
        if (rel.startsWith('bridge/') || rel === 'session') return reply.code(405).send();
        return serveFile(reply, rel === '' ? 'index.html' : rel);
      });
      app.post<{ Body: { token?: unknown } }>('/console/session', { schema: { hide: true } }, async (req, reply) => {
        if (!sameOrigin(req)) return reply.code(403).send({ code: 'FORBIDDEN', message: 'Cross-origin console access is refused.', statusCode: 403 });
        const token = typeof req.body?.token === 'string' ? req.body.token : '';
        let match: string | undefined;
        for (const t of tokens) if (safeEqual(t, token)) match = t;
        if (!match && !authed(req)) {
          return reply.code(401).send({ code: 'TOKEN_INVALID', message: 'This console link was already used or is not valid. Ask the service for a new one.', statusCode: 401 });
        }
        if (match) {
          tokens.delete(match);
          const sid = randomBytes(24).toString('base64url');
          sessions.add(sid);
          reply.header('Set-Cookie', `vc_console=${sid}; HttpOnly; SameSite=Strict; Path=/console`);
        }
        return { ok: true };
      });
      app.post<{ Params: { channel: string } }>('/console/bridge/:channel', { schema: { hide: true } }, async (req, reply) => {
        if (!sameOrigin(req)) return reply.code(403).send({ code: 'FORBIDDEN', message: 'Cross-origin console access is refused.', statusCode: 403 });
        if (!authed(req)) return reply.code(401).send({ code: 'TOKEN_INVALID', message: 'Open the console through its one-time link.', statusCode: 401 });
        return dispatch(opts.handlers, req.params.channel, req.body, opts.log);
      });
    },
  };
}
