// What every vconsole command shares: argument parsing, the data folder, output, and how a failure is told
// (exit 2 for bad usage, 1 for a failed operation). Kept apart from main.ts so that `vconsole serve` starts without
// loading the other commands (docs/performance.md, "Cold start").
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isAppError } from '../../src-shared/app-error';
import { defaultDataDir } from '../paths';

export class UsageError extends Error {}

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export function parse(args: string[], options: ParseArgsConfig['options']): { values: Values; positionals: string[] } {
  try {
    const r = parseArgs({ args, options: { ...options, 'data-dir': { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
    return { values: r.values as Values, positionals: r.positionals };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function need(values: Values, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function dataDir(values: Values): string {
  if (values['data-dir'] === '') throw new UsageError('--data-dir must not be empty (it would use the current folder)');
  return typeof values['data-dir'] === 'string' ? values['data-dir'] : defaultDataDir();
}

export function print(values: Values, json: unknown, text: string): void {
  process.stdout.write(values['json'] ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`);
}


/** Runs a command and turns what it throws into its message on stderr and the exit code. */
export async function runCommand(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`vconsole: ${e.message}\nRun \`vconsole help\` for usage.\n`);
      return 2;
    }
    if (isAppError(e)) {
      const detail = e.details?.map((d) => `\n  ${d.field}: ${d.message}`).join('') ?? '';
      process.stderr.write(`vconsole: ${e.message}${detail}\n`);
      return 1;
    }
    process.stderr.write(`vconsole: ${(e as Error).message}\n`);
    return 1;
  }
}
