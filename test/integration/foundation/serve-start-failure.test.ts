// A service whose HTTP listener cannot be set up stops its core and lets the data folder go (the CLI review, 27 Nov
// 2026): an address Fastify's proxy check refuses reached buildApp, which threw after the worker had started, and
// `vconsole serve` printed the error and kept running, holding the folder's lock, so no other service could start.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ListenError, startService } from '../../../src-main/service';

const dir = mkdtempSync(join(tmpdir(), 'vc-start-failure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a listener that cannot be set up', () => {
  it('closes the core and releases the data folder, so the next start on it works', async () => {
    await expect(startService({ dataDir: dir, host: '127.0.0.1', port: 0, logLevel: 'silent', trustProxy: ['abc'] })).rejects.toThrow(ListenError);
    await expect(startService({ dataDir: dir, host: '127.0.0.1', port: 0, logLevel: 'silent', publicUrl: 'https://team.test', tls: { cert: Buffer.from('garbage'), key: Buffer.from('garbage') } })).rejects.toThrow(
      /could not be set up/,
    );
    const svc = await startService({ dataDir: dir, host: '127.0.0.1', port: 0, logLevel: 'silent' });
    try {
      expect((await fetch(`${svc.url}/api/v1/health`)).status).toBe(200);
    } finally {
      await svc.stop();
    }
  });
});
