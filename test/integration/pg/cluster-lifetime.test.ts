// The test cluster stops by itself (test/helpers/pg-supervisor.mjs): when the process that started it dies — even by
// SIGKILL, with no handler run — the supervisor sees its standard input close, stops PostgreSQL and deletes the
// cluster's folder. No server or folder outlives a test run.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { until } from '../webhooks/helpers';

const SUPERVISOR = fileURLToPath(new URL('../../helpers/pg-supervisor.mjs', import.meta.url));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the test cluster', () => {
  it('stops PostgreSQL and removes its folder when the runner that started it is killed', async () => {
    // A stand-in for the test runner: starts the supervisor, reports its first line, then waits forever.
    const runner = spawn(
      process.execPath,
      [
        '-e',
        `const s = require('node:child_process').spawn(process.execPath, [${JSON.stringify(SUPERVISOR)}], { stdio: ['pipe', 'pipe', 'inherit'] });
         require('node:readline').createInterface({ input: s.stdout }).once('line', (l) => process.stdout.write(l + '\\n'));
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolve) => createInterface({ input: runner.stdout! }).once('line', resolve));
    const started = JSON.parse(line) as { ok: boolean; dir: string; error?: string };
    expect(started.ok, started.error).toBe(true);
    const pid = Number(readFileSync(join(started.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(pid)).toBe(true);
    runner.kill('SIGKILL');
    await until(() => !alive(pid) && !existsSync(started.dir), 'the cluster to stop and its folder to go', 30_000);
  }, 60_000);
});
