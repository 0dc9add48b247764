// Service settings end to end: saved values survive a restart and pick the listener, a command-line value beats a
// saved one, a taken port is refused with a clear message (when saving and when starting), and a rate-limit change
// reaches the HTTP door at once.
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/console/handlers';
import { ListenError, startService } from '../../../src-main/service';
import { api, startTestService, testStore, type TestService } from '../../helpers/harness';

function occupy(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const a = server.address();
      resolve({ server, port: typeof a === 'object' && a ? a.port : 0 });
    });
  });
}

async function freePort(): Promise<number> {
  const { server, port } = await occupy();
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function started(opts: Parameters<typeof startTestService>[0] = {}): Promise<TestService> {
  const ts = await startTestService(opts);
  cleanup.push(() => ts.stop());
  return ts;
}

describe('settings', () => {
  it('reports what is saved and what runs, with defaults filled in', async () => {
    const ts = await started();
    const r = await dispatch(ts.service.handlers, 'settings:get', {});
    expect(r.ok).toBe(true);
    const view = (r as { value: any }).value;
    expect(view.saved).toEqual({ host: '127.0.0.1', port: 4010, rateLimitPerMinute: 6000 });
    expect(view.running.port).toBe(ts.port);
    expect(view.running.host).toBe('127.0.0.1');
    expect(view.dataDir).toBe(ts.dataDir);
    // Started with an explicit port 0: nothing saved changed, so no restart is asked for.
    expect(view.restartRequired).toBe(false);
  });

  it('persists host, port and rate limit, and a restart without flags uses them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vc-settings-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const ts = await startTestService({ dataDir });
    const port = await freePort();
    const r = await dispatch(ts.service.handlers, 'settings:update', { host: '127.0.0.1', port, rateLimitPerMinute: 1234 });
    expect(r).toMatchObject({ ok: true, value: { saved: { host: '127.0.0.1', port, rateLimitPerMinute: 1234 }, restartRequired: true } });
    await ts.stop({ keepDir: true });

    // No host/port/rate limit given: the saved values decide.
    const again = await startService({ dataDir, ...(await testStore(dataDir)), logLevel: 'silent', scryptN: 1024 });
    try {
      expect(again.url).toBe(`http://127.0.0.1:${port}`);
      expect(again.deps.config.rateLimitPerMinute).toBe(1234);
      const v = await dispatch(again.handlers, 'settings:get', {});
      expect(v).toMatchObject({ ok: true, value: { restartRequired: false, running: { port, rateLimitPerMinute: 1234 } } });
    } finally {
      await again.stop();
    }

    // A flag given explicitly beats the saved value for that run only.
    const flagged = await startService({ dataDir, ...(await testStore(dataDir)), logLevel: 'silent', scryptN: 1024, port: 0, rateLimitPerMinute: 7 });
    try {
      expect(flagged.url).not.toBe(`http://127.0.0.1:${port}`);
      expect(flagged.deps.config.rateLimitPerMinute).toBe(7);
      const v = await dispatch(flagged.handlers, 'settings:get', {});
      expect(v).toMatchObject({ ok: true, value: { saved: { port, rateLimitPerMinute: 1234 } } });
    } finally {
      await flagged.stop();
    }
  });

  it('refuses a port another program holds, names it, and saves nothing', async () => {
    const ts = await started();
    const { server, port } = await occupy();
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
    const r = await dispatch(ts.service.handlers, 'settings:update', { port });
    expect(r.ok).toBe(false);
    const err = (r as { error: any }).error;
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toContain(`Port ${port} is already in use by another program`);
    expect(err.hint).toBeTruthy();
    expect(err.details).toEqual([{ field: 'port', message: `Port ${port} is already in use by another program.` }]);
    const v = await dispatch(ts.service.handlers, 'settings:get', {});
    expect(v).toMatchObject({ ok: true, value: { saved: { port: 4010 } } });
    // The running listener is untouched.
    expect((await api(ts.url, 'GET', '/verify?limit=1', { key: ts.sandboxKey })).status).toBe(200);
  });

  it('saving the port the service already runs on is not "in use"', async () => {
    const ts = await started();
    const r = await dispatch(ts.service.handlers, 'settings:update', { port: ts.port });
    expect(r).toMatchObject({ ok: true, value: { saved: { port: ts.port }, restartRequired: false } });
  });

  it('a start on a saved port that is taken fails with a clear message', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vc-settings-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const ts = await startTestService({ dataDir });
    const port = await freePort();
    expect((await dispatch(ts.service.handlers, 'settings:update', { port })).ok).toBe(true);
    await ts.stop({ keepDir: true });
    const { server } = await new Promise<{ server: Server }>((resolve, reject) => {
      const s = createServer();
      s.once('error', reject);
      s.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve({ server: s }));
    });
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
    const err = await startService({ dataDir, ...(await testStore(dataDir)), logLevel: 'silent', scryptN: 1024 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ListenError);
    expect((err as Error).message).toContain(`Port ${port} is already in use by another program`);
  });

  it('rejects invalid values without saving', async () => {
    const ts = await started();
    for (const bad of [{ port: 70000 }, { port: 0 }, { rateLimitPerMinute: -1 }, { host: 'http://x' }, { other: 1 }]) {
      const r = await dispatch(ts.service.handlers, 'settings:update', bad);
      expect(r).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } });
    }
    expect(await dispatch(ts.service.handlers, 'settings:get', {})).toMatchObject({ ok: true, value: { saved: { host: '127.0.0.1', port: 4010, rateLimitPerMinute: 6000 } } });
  });

  it('a rate-limit change applies to the HTTP door at once', async () => {
    const ts = await started();
    for (let i = 0; i < 3; i++) expect((await api(ts.url, 'GET', '/verify?limit=1', { key: ts.sandboxKey })).status).toBe(200);
    expect((await dispatch(ts.service.handlers, 'settings:update', { rateLimitPerMinute: 4 })).ok).toBe(true);
    // Three requests already count in this minute's window; the fourth fits, the fifth does not.
    expect((await api(ts.url, 'GET', '/verify?limit=1', { key: ts.sandboxKey })).status).toBe(200);
    const limited = await api(ts.url, 'GET', '/verify?limit=1', { key: ts.sandboxKey });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    // 0 turns the limit off, again without a restart.
    expect((await dispatch(ts.service.handlers, 'settings:update', { rateLimitPerMinute: 0 })).ok).toBe(true);
    expect((await api(ts.url, 'GET', '/verify?limit=1', { key: ts.sandboxKey })).status).toBe(200);
  });
});
