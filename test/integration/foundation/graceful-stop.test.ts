// A stop never waits on sockets that serve no request: a browser opens connections ahead of time and keeps idle
// ones alive, and Node would hold the close until its headers or keep-alive timeout (a minute or more).
import { connect, type Socket } from 'node:net';
import inject from 'light-my-request';
import { describe, expect, it } from 'vitest';
import { api, startTestService } from '../../helpers/harness';

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

describe('graceful stop', () => {
  it('ends a connection that never sent a request and an idle keep-alive one', async () => {
    const ts = await startTestService();
    const preconnected = await openSocket(ts.port);
    const preconnectedClosed = new Promise<void>((r) => preconnected.once('close', () => r()));
    // A keep-alive connection that served one request and now sits idle.
    const idle = await openSocket(ts.port);
    const idleClosed = new Promise<void>((r) => idle.once('close', () => r()));
    idle.write(`GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:${ts.port}\r\nConnection: keep-alive\r\n\r\n`);
    await new Promise<void>((r) => idle.once('data', () => r()));
    // An ordinary request still answers before the stop.
    expect((await api(ts.url, 'GET', '/verify?limit=1', { key: ts.sandboxKey })).status).toBe(200);

    await ts.stop();
    // Both sockets were ended by the stop itself (the test's 30 s limit is far below Node's own timeouts).
    await preconnectedClosed;
    await idleClosed;
    expect(preconnected.destroyed || preconnected.readableEnded).toBe(true);
  });
});

describe('a request that reaches the listener while it closes', () => {
  it("gets the service's own 503 (SERVICE_STOPPING, Retry-After), as the OpenAPI document describes it, not a bare one", async () => {
    // Such a request is one that arrived on a connection still busy when the close began (the idle ones are ended
    // at once). It is driven here through the app's own request handler after close() has begun, the state it meets.
    const ts = await startTestService();
    const app = ts.service.app!;
    const port = ts.port;
    await app.close();
    const r = await inject(app.routing, { method: 'GET', url: '/api/v1/health', headers: { host: `127.0.0.1:${port}` } });
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.json()).toMatchObject({ code: 'SERVICE_STOPPING', statusCode: 503, action: { type: 'WAIT_AND_RETRY' } });
    await ts.stop();
  });
});
