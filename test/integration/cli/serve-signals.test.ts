// Ctrl+C under `npm start`: the terminal sends SIGINT to every process of its group and the start script passes it on
// too, so `vconsole serve` gets a second SIGINT while it stops. It used to die there (no handler left: Node's default),
// half-way through draining the queue and before the store was closed. Found by the Electron-door review.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'vc-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('vconsole serve and signals', () => {
  it('a second SIGINT during the stop does not cut it short: the stop finishes and the exit code is 0', async () => {
    const child = spawn(process.execPath, ['bin/vconsole.mjs', 'serve', '--port', '0', '--data-dir', dir, '--no-console'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } });
    let out = '';
    const seen = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no "${text}" in: ${out}`)), 60_000);
        const look = () => {
          if (!out.includes(text)) return;
          clearTimeout(t);
          child.stdout.off('data', look);
          resolve();
        };
        child.stdout.on('data', look);
        look();
      });
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    await seen('is running');
    child.kill('SIGINT');
    await seen('Stopping');
    // The second one, as the terminal's and the start script's arrive: while the service stops.
    child.kill('SIGINT');
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 90_000);
});
