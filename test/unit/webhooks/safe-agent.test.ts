// Connect-time SSRF guard: the undici agent re-checks every resolved address, dials the checked address, and
// reaches only allow-listed local receivers. No test here opens a connection to anything but a local server.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type buildConnector from 'undici/types/connector';
import { createSafeAgent, createSafeConnector, WebhookUrlBlockedError } from '../../../src-main/jobs/safe-agent';
import { checkWebhookUrlForRegistration } from '../../../src-main/core/webhooks/url-policy';
import type { Resolver, UrlPolicy } from '../../../src-main/core/webhooks/url-policy';

const noAllow: UrlPolicy = { allowHosts: [], ownListeners: [] };

function failingResolver(): Resolver & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign(
    async (host: string): Promise<string[]> => {
      calls.push(host);
      throw new Error('resolver must not be called');
    },
    { calls },
  );
}

/** A base connector that records what would be dialled instead of dialling it. */
function recordingBase(): buildConnector.connector & { seen: buildConnector.Options[] } {
  const seen: buildConnector.Options[] = [];
  const fn: buildConnector.connector = (options, callback) => {
    seen.push(options);
    callback(new Error('recorded, not dialled'), null);
  };
  return Object.assign(fn, { seen });
}

function connectOnce(connector: buildConnector.connector, options: buildConnector.Options): Promise<Error | null> {
  return new Promise((resolve) => connector(options, (...args) => resolve(args[0])));
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('DNS rebinding', () => {
  it('public at registration, private at connect: the agent refuses the connection', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => (++calls === 1 ? ['93.184.216.34'] : ['127.0.0.1']);
    const url = 'https://rebind.example.com/hook';

    const registered = await checkWebhookUrlForRegistration(url, noAllow, rebinding);
    expect(registered.ok).toBe(true);

    const agent = createSafeAgent({ policy: noAllow, resolve: rebinding });
    try {
      const err = await request(url, { dispatcher: agent, method: 'POST', body: '{}' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toBe(
        'blocked by webhook URL policy: rebind.example.com resolves to a forbidden address (loopback)',
      );
      expect((err as WebhookUrlBlockedError).code).toBe('ERR_WEBHOOK_URL_BLOCKED');
      expect(calls).toBe(2);
    } finally {
      await agent.close();
    }
  });

  it('refuses when any one of several answers is private', async () => {
    const base = recordingBase();
    const connector = createSafeConnector(
      { policy: noAllow, resolve: async () => ['93.184.216.34', '::ffff:10.0.0.1'] },
      base,
    );
    const err = await connectOnce(connector, { hostname: 'mixed.example.com', host: 'mixed.example.com', protocol: 'https:', port: '' });
    expect(err?.message).toBe('blocked by webhook URL policy: mixed.example.com resolves to a forbidden address (ipv4Mapped private)');
    expect(base.seen).toEqual([]);
  });
});

describe('createSafeConnector', () => {
  it('dials the checked address and keeps the host name for TLS SNI', async () => {
    const base = recordingBase();
    const connector = createSafeConnector({ policy: noAllow, resolve: async () => ['93.184.216.34', '2606:2800:220:1::1'] }, base);
    await connectOnce(connector, { hostname: 'hooks.example.com', host: 'hooks.example.com', protocol: 'https:', port: '' });
    expect(base.seen).toHaveLength(1);
    expect(base.seen[0]).toMatchObject({ hostname: '93.184.216.34', servername: 'hooks.example.com', protocol: 'https:' });
  });

  it('refuses forbidden IP literals without resolving (undici passes IPv6 without brackets)', async () => {
    const resolve = failingResolver();
    const base = recordingBase();
    const connector = createSafeConnector({ policy: noAllow, resolve }, base);
    for (const hostname of ['127.0.0.1', '169.254.169.254', '::1', '::ffff:7f00:1', '64:ff9b::a00:1']) {
      const err = await connectOnce(connector, { hostname, protocol: 'https:', port: '' });
      expect(err).toBeInstanceOf(WebhookUrlBlockedError);
      expect(err?.message).toMatch(/^blocked by webhook URL policy: address is /);
    }
    expect(resolve.calls).toEqual([]);
    expect(base.seen).toEqual([]);
  });

  it('passes public IP literals straight to the base connector', async () => {
    const base = recordingBase();
    const connector = createSafeConnector({ policy: noAllow, resolve: failingResolver() }, base);
    await connectOnce(connector, { hostname: '93.184.216.34', protocol: 'https:', port: '443' });
    expect(base.seen.map((o) => o.hostname)).toEqual(['93.184.216.34']);
  });

  it('refuses plain http and special-use names when not allow-listed', async () => {
    const base = recordingBase();
    const connector = createSafeConnector({ policy: noAllow, resolve: async () => ['93.184.216.34'] }, base);
    expect((await connectOnce(connector, { hostname: 'example.com', protocol: 'http:', port: '' }))?.message).toBe(
      'blocked by webhook URL policy: only https URLs are allowed',
    );
    expect((await connectOnce(connector, { hostname: 'localhost', protocol: 'https:', port: '' }))?.message).toBe(
      'blocked by webhook URL policy: special-use name .localhost',
    );
    expect(base.seen).toEqual([]);
  });

  it('surfaces resolution failures as DNS errors, not policy errors (they are retried)', async () => {
    const base = recordingBase();
    const enotfound = Object.assign(new Error('getaddrinfo ENOTFOUND gone.example.com'), { code: 'ENOTFOUND' });
    const connector = createSafeConnector({ policy: noAllow, resolve: async () => { throw enotfound; } }, base);
    const err = await connectOnce(connector, { hostname: 'gone.example.com', protocol: 'https:', port: '' });
    expect(err).toBe(enotfound);
    expect(base.seen).toEqual([]);
  });

  it('refuses our own API listener', async () => {
    const base = recordingBase();
    const policy: UrlPolicy = { allowHosts: [], ownListeners: [{ host: 'api.example.com', port: 443 }] };
    const connector = createSafeConnector({ policy, resolve: async () => ['93.184.216.34'] }, base);
    const err = await connectOnce(connector, { hostname: 'api.example.com', protocol: 'https:', port: '' });
    expect(err?.message).toBe('blocked by webhook URL policy: URL points at this service');
  });
});

describe('allow-listed local receiver over http', () => {
  const received: string[] = [];
  const allowed = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(204).end();
    });
  });
  // A second reachable server on another port: reaching it would prove the allow-list is not exact.
  const other = createServer((_req, res) => res.writeHead(200).end('should not be reached'));
  let allowedPort = 0;
  let otherPort = 0;

  beforeAll(async () => {
    allowedPort = await listen(allowed);
    otherPort = await listen(other);
  });
  afterAll(async () => {
    await new Promise((r) => allowed.close(r));
    await new Promise((r) => other.close(r));
  });

  it('reaches 127.0.0.1:<allowed port> and refuses 127.0.0.1:<other port>', async () => {
    const resolve = failingResolver();
    const agent = createSafeAgent({ policy: { allowHosts: [`127.0.0.1:${allowedPort}`], ownListeners: [] }, resolve });
    try {
      const ok = await request(`http://127.0.0.1:${allowedPort}/hook`, { dispatcher: agent, method: 'POST', body: '{"a":1}' });
      expect(ok.statusCode).toBe(204);
      await ok.body.dump();
      expect(received).toEqual(['POST /hook {"a":1}']);

      const err = await request(`http://127.0.0.1:${otherPort}/hook`, { dispatcher: agent, method: 'POST', body: '{}' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect((err as Error | null)?.message).toBe('blocked by webhook URL policy: only https URLs are allowed');

      const errHttps = await request(`https://127.0.0.1:${otherPort}/hook`, { dispatcher: agent }).then(
        () => null,
        (e: unknown) => e,
      );
      expect((errHttps as Error | null)?.message).toBe('blocked by webhook URL policy: address is loopback');
      expect(resolve.calls).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it('does not follow redirects', async () => {
    const redirector = createServer((_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${otherPort}/` }).end());
    const port = await listen(redirector);
    const agent = createSafeAgent({ policy: { allowHosts: [`127.0.0.1:${port}`], ownListeners: [] } });
    try {
      const res = await request(`http://127.0.0.1:${port}/`, { dispatcher: agent, method: 'POST', body: '{}' });
      expect(res.statusCode).toBe(302);
      await res.body.dump();
    } finally {
      await agent.close();
      await new Promise((r) => redirector.close(r));
    }
  });
});
