// `--help` is universal (issue 13 §5): every form of every command answers it with its usage, exit 0, and
// nothing runs. The forms come from the usage the CLI prints, so a new command is covered without editing this.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { extraCommands } from '../../../src-main/cli/extra-commands';
import { helpFor, main, usageForms } from '../../../src-main/cli/main';

function allForms(): string[] {
  const full = helpFor(['--help']);
  expect(full).not.toBeNull();
  return full!
    .split('\n')
    .filter((l) => l.startsWith('  vconsole '))
    .map((l) => l.trim());
}

describe('vconsole --help', () => {
  it('splits "a | b" usages into one form per subcommand, keeping continuation lines', () => {
    expect(usageForms('wallet', 'vconsole wallet show | wallet topup AMOUNT')).toEqual(['vconsole wallet show', 'vconsole wallet topup AMOUNT']);
    expect(usageForms('providers', 'vconsole providers set ID\n      [--json]\n  vconsole providers list')).toEqual([
      'vconsole providers set ID\n      [--json]',
      'vconsole providers list',
    ]);
  });

  it('answers --help and -h for every form of every command with that form', () => {
    const forms = allForms();
    // Every built-in and every feature command is listed.
    for (const name of ['serve', 'bootstrap', 'users', 'keys', ...extraCommands.map((c) => c.name)]) {
      expect(forms.some((f) => f.startsWith(`vconsole ${name}`)), name).toBe(true);
    }
    for (const form of forms) {
      const words = form.split(/\s+/).slice(1, 3).filter((w) => /^[a-z][a-z-]*$/.test(w));
      for (const flag of ['--help', '-h']) {
        const help = helpFor([...words, flag]);
        expect(help, `${words.join(' ')} ${flag}`).not.toBeNull();
        expect(help!).toContain(form.split('\n')[0]!);
      }
    }
  });

  it('answers help after other arguments, and not after --', () => {
    expect(helpFor(['webhooks', 'listen', '--port', '0', '--help'])).toContain('vconsole webhooks listen');
    expect(helpFor(['webhooks', 'listen', '--help'])).not.toContain('webhooks replay');
    expect(helpFor(['verify', 'account', '--body', '{}'])).toBeNull();
    expect(helpFor(['verify', '--', '--help'])).toBeNull();
  });

  it('keeps an unknown command a usage error', async () => {
    expect(helpFor(['nope', '--help'])).toBeNull();
    const err = process.stderr.write;
    let written = '';
    process.stderr.write = ((s: string) => ((written += s), true)) as typeof process.stderr.write;
    try {
      expect(await main(['nope', '--help'])).toBe(2);
    } finally {
      process.stderr.write = err;
    }
    expect(written).toContain('unknown command: nope');
  });

  it('`webhooks listen --help` prints its usage and exits 0 without starting a listener (the real binary)', () => {
    const r = spawnSync(process.execPath, ['bin/vconsole.mjs', 'webhooks', 'listen', '--help'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('vconsole webhooks listen [--port N]');
    expect(r.stderr).toBe('');
  });

  it('ends with the platform default data folder, not the value of VCONSOLE_DATA_DIR', () => {
    const before = process.env['VCONSOLE_DATA_DIR'];
    process.env['VCONSOLE_DATA_DIR'] = '/tmp/some-env-data-dir';
    try {
      for (const text of [helpFor(['--help'])!, helpFor(['keys', '--help'])!]) {
        const footer = text.trimEnd().split('\n').at(-1)!;
        expect(footer).toMatch(/^Data directory: --data-dir, else \$VCONSOLE_DATA_DIR, else /);
        expect(footer).not.toContain('/tmp/some-env-data-dir');
      }
    } finally {
      if (before === undefined) delete process.env['VCONSOLE_DATA_DIR'];
      else process.env['VCONSOLE_DATA_DIR'] = before;
    }
  });
});
