// One POST of a delivery (core/webhooks/sender.ts `send`), against real local servers: the exact bytes and headers
// leave, and the outcome keeps the status, the headers, the first 2 KiB of the answer and Retry-After; redirects are
// not followed; the attempt's limit ends a silent endpoint, and a body that stalls after its status keeps the status;
// connection errors and the URL policy's refusals are the attempt's error.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreRuntime } from '../../../src-main/core/runtime';
import { closeAgents, describeError, RESPONSE_EXCERPT_BYTES, send } from '../../../src-main/core/webhooks/sender';

type Handler = (req: IncomingMessage, body: Buffer, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
const seen: { path: string; body: Buffer; headers: IncomingMessage['headers'] }[] = [];
let server: Server;
let base: string;
let closedPort: number;

// What send() needs of the runtime: the URL policy's allow-list (this server) and the service's own address (none).
let rt: CoreRuntime;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ path: req.url!, body, headers: req.headers });
      const route = routes.get(req.url!);
      if (route) route(req, body, res);
      else res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  // A port nothing listens on: taken, then released.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  rt = {
    deps: { config: { allowWebhookHosts: [`127.0.0.1:${port}`, `127.0.0.1:${closedPort}`] } },
    info: () => ({ apiBaseUrl: null }),
  } as unknown as CoreRuntime;
});

afterAll(async () => {
  await closeAgents(rt);
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const HEADERS = { 'content-type': 'application/json', 'x-delivery-id': 'del_test', 'x-signature': 'sha256=00' };

describe('send', () => {
  it('posts the exact bytes and headers and keeps the status, the headers and the answer', async () => {
    routes.set('/ok?q=1', (_req, _body, res) => {
      res.setHeader('x-many', ['a', 'b']);
      res.writeHead(202, { 'content-type': 'text/plain' }).end('accepted é');
    });
    const bytes = Buffer.from('{"event":"verification.completed",  "note":"é"}', 'utf8');
    const out = await send(rt, `${base}/ok?q=1`, bytes, HEADERS);
    expect(out).toMatchObject({ ok: true, statusCode: 202, error: null, responseBody: 'accepted é', retryAfterSeconds: null });
    expect(out.responseHeaders).toMatchObject({ 'content-type': 'text/plain', 'x-many': 'a, b' });
    expect(out.durationMs).toBeGreaterThanOrEqual(0);
    const got = seen.find((s) => s.path === '/ok?q=1')!;
    expect(got.body.equals(bytes)).toBe(true);
    expect(got.headers).toMatchObject({ 'content-type': 'application/json', 'x-delivery-id': 'del_test', 'x-signature': 'sha256=00' });
    // A string body is sent as its UTF-8 bytes.
    await send(rt, `${base}/text`, '{"a":"é"}', HEADERS);
    expect(seen.find((s) => s.path === '/text')!.body.toString('utf8')).toBe('{"a":"é"}');
  });

  it('keeps the first 2 KiB of a huge answer and stops reading it', async () => {
    let written = 0;
    let closedEarly!: (early: boolean) => void;
    const closed = new Promise<boolean>((r) => (closedEarly = r));
    routes.set('/huge', (_req, _body, res) => {
      res.writeHead(500);
      res.on('close', () => closedEarly(!res.writableFinished));
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const more = (): void => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const out = await send(rt, `${base}/huge`, '{}', HEADERS);
    expect(out).toMatchObject({ ok: false, statusCode: 500, error: 'HTTP 500' });
    expect(out.responseBody).toBe('x'.repeat(RESPONSE_EXCERPT_BYTES));
    // The connection is closed before the server wrote it all.
    expect(await closed).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('does not follow a redirect, and reads Retry-After of a 429 or 503 (seconds or a date)', async () => {
    routes.set('/moved', (_req, _body, res) => res.writeHead(302, { location: `${base}/target` }).end());
    routes.set('/slow-down', (_req, _body, res) => res.writeHead(429, { 'retry-after': '120' }).end());
    routes.set('/later', (_req, _body, res) => res.writeHead(503, { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() }).end());
    expect(await send(rt, `${base}/moved`, '{}', HEADERS)).toMatchObject({ ok: false, statusCode: 302, error: 'redirect 302 not followed' });
    expect(seen.some((s) => s.path === '/target')).toBe(false);
    expect(await send(rt, `${base}/slow-down`, '{}', HEADERS)).toMatchObject({ ok: false, statusCode: 429, error: 'HTTP 429', retryAfterSeconds: 120 });
    const later = await send(rt, `${base}/later`, '{}', HEADERS);
    expect(later.retryAfterSeconds).toBeGreaterThan(3_500);
    expect(later.retryAfterSeconds).toBeLessThanOrEqual(3_600);
  });

  it("ends an endpoint that never answers at the attempt's limit, and keeps the status of one whose body stalls", async () => {
    routes.set('/silent', () => undefined);
    routes.set('/stall', (_req, _body, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    expect(await send(rt, `${base}/silent`, '{}', HEADERS, { timeoutMs: 100 })).toMatchObject({
      ok: false,
      statusCode: null,
      error: 'timeout after 100 ms',
      responseBody: null,
      responseHeaders: null,
    });
    expect(await send(rt, `${base}/stall`, '{}', HEADERS, { timeoutMs: 100 })).toMatchObject({ ok: true, statusCode: 200, error: null, responseBody: 'partial' });
  });

  it('makes a refused connection, a URL the policy refuses and an invalid URL the error of the attempt', async () => {
    const refused = await send(rt, `http://127.0.0.1:${closedPort}/hook`, '{}', HEADERS);
    expect(refused).toMatchObject({ ok: false, statusCode: null, responseBody: null });
    expect(refused.error).toContain('ECONNREFUSED');
    const blocked = await send(rt, 'http://127.0.0.2:9/hook', '{}', HEADERS);
    expect(blocked.error).toContain('blocked by webhook URL policy: only https URLs are allowed');
    expect((await send(rt, 'not a url', '{}', HEADERS)).error).toContain('Invalid URL');
  });
});

describe('describeError (the replay to a refused localhost read "ECONNREFUSED: ")', () => {
  it('names each address of an AggregateError instead of an empty message', () => {
    const a = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4097'), { code: 'ECONNREFUSED' });
    const b = Object.assign(new Error('connect ECONNREFUSED ::1:4097'), { code: 'ECONNREFUSED' });
    const agg = Object.assign(new AggregateError([a, b], ''), { code: 'ECONNREFUSED' });
    expect(describeError(agg, 1000)).toBe('connect ECONNREFUSED 127.0.0.1:4097; connect ECONNREFUSED ::1:4097');
    // Wrapped (fetch failed, cause: the AggregateError) says the same.
    const wrapped = Object.assign(new TypeError('fetch failed'), { cause: agg });
    expect(describeError(wrapped, 1000)).toContain('connect ECONNREFUSED 127.0.0.1:4097');
    // Never a code followed by nothing.
    expect(describeError(Object.assign(new Error(''), { code: 'ECONNRESET' }), 1000)).toBe('ECONNRESET');
    expect(describeError(a, 1000)).toBe('connect ECONNREFUSED 127.0.0.1:4097');
  });
});
