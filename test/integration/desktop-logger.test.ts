// The Electron door's log (src-main/electron/desktop-logger.ts): one pino instance in a size-rotated file in the data
// folder, shared by the core and Fastify through startService's `logger` option, with the service's redaction.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createDesktopLogger } from '../../src-main/electron/desktop-logger';
import { startService } from '../../src-main/service';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'vc-desktop-log-'));
  dirs.push(d);
  return d;
};

describe('desktop log file', () => {
  it('core and Fastify write to the same file through one logger; credentials are redacted', async () => {
    const dataDir = tmp();
    const log = createDesktopLogger(dataDir, 'info');
    const s = await startService({ dataDir, port: 0, scryptN: 1024, lockDoor: 'test', logger: log.logger });
    try {
      // Fastify's own request log lines (info), through the shared instance.
      const res = await fetch(`${s.url}/api/v1/openapi.json`);
      expect(res.status).toBe(200);
      // One instance: the core logs with it, and Fastify's logger is it (or a child of it, on the same stream).
      expect(s.deps.log).toBe(log.logger);
      const stream = (l: unknown) => (l as Record<symbol, unknown>)[pino.symbols.streamSym];
      expect(stream(s.app!.log)).toBe(stream(log.logger));
      s.deps.log.warn({ apiKey: 'sk_test_abcdef', note: 'core line' }, 'core says');
    } finally {
      await s.stop();
      await log.close();
    }
    const lines = readFileSync(log.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(log.file).toBe(join(dataDir, 'logs', 'desktop.log'));
    expect(lines.some((l) => l['msg'] === 'incoming request')).toBe(true);
    const core = lines.find((l) => l['msg'] === 'core says')!;
    expect(core).toMatchObject({ apiKey: '[redacted]', note: 'core line' });
    expect(readFileSync(log.file, 'utf8')).not.toContain('sk_test_abcdef');
  });

  it('rotates by size, keeping numbered older files', async () => {
    const dataDir = tmp();
    const log = createDesktopLogger(dataDir, 'info', '1K');
    for (let i = 0; i < 200; i++) log.logger.info({ i, pad: 'x'.repeat(40) }, 'line');
    await log.close();
    const files = readdirSync(join(dataDir, 'logs')).sort();
    expect(files[0]).toBe('desktop.log');
    expect(files).toContain('desktop.log.1');
    expect(files.length).toBeLessThanOrEqual(6);
    // Nothing recent is lost: the newest lines are in the current file or the one just rotated.
    const recent = readFileSync(join(dataDir, 'logs', 'desktop.log'), 'utf8') + readFileSync(join(dataDir, 'logs', 'desktop.log.1'), 'utf8');
    expect(recent).toContain('"i":199');
  });
});
