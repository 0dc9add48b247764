// A local webhook receiver for developers and tests: a node:http server on 127.0.0.1 that records every request
// (headers and raw body bytes) and checks both signature schemes against a given secret.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyStandardWebhook, verifyXSignature } from './signing';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  receivedAtMs: number;
  /** Against the receiver's secrets; null when it was started without any. */
  xSignatureValid: boolean | null;
  standardSignatureValid: boolean | null;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export type Responder = (req: ReceivedRequest) => Reply | Promise<Reply>;

export interface TestReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  setResponder(r: Responder): void;
  setSecrets(secrets: readonly string[]): void;
  /** Resolves once at least n requests arrived (rejects after timeoutMs, so a broken test does not hang). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  port?: number;
  /** Secrets to verify against (any one may match: the old one still signs during a rotation). */
  secrets?: readonly string[];
  responder?: Responder;
  /** Clock for the Standard Webhooks timestamp tolerance (seconds); defaults to the wall clock. */
  nowSec?: () => number;
  /** Standard Webhooks timestamp tolerance; a replay of an old delivery fails it by design. */
  toleranceSec?: number;
  onRequest?: (req: ReceivedRequest) => void;
}

function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

export function checkSignatures(
  secrets: readonly string[],
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  nowSec: number,
  toleranceSec = 300,
): { x: boolean; standard: boolean } {
  const std = { 'webhook-id': header(headers, 'webhook-id'), 'webhook-timestamp': header(headers, 'webhook-timestamp'), 'webhook-signature': header(headers, 'webhook-signature') };
  return {
    x: secrets.some((s) => verifyXSignature(s, rawBody, header(headers, 'x-signature'))),
    standard: secrets.some((s) => verifyStandardWebhook(s, std, rawBody, nowSec, toleranceSec)),
  };
}

export async function startTestReceiver(o: ReceiverOptions = {}): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  let responder: Responder = o.responder ?? (() => ({ status: 200, body: 'ok' }));
  let secrets: readonly string[] = o.secrets ?? [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const nowSec = o.nowSec ?? (() => Date.now() / 1000);

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const checked = secrets.length > 0 ? checkSignatures(secrets, req.headers, rawBody, nowSec(), o.toleranceSec) : null;
      const rec: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody,
        receivedAtMs: Date.now(),
        xSignatureValid: checked ? checked.x : null,
        standardSignatureValid: checked ? checked.standard : null,
      };
      requests.push(rec);
      o.onRequest?.(rec);
      for (const w of [...waiters]) {
        if (requests.length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      Promise.resolve(responder(rec)).then(
        (r) => {
          res.writeHead(r.status, r.headers ?? {});
          res.end(r.body ?? '');
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setResponder(r) {
      responder = r;
    },
    setSecrets(s) {
      secrets = s;
    },
    waitFor(n, timeoutMs = 15_000) {
      if (requests.length >= n) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${requests.length} of ${n} requests`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests);
          },
        });
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
