// The headless entry (out/main/headless.js, what `vconsole` runs): `vconsole serve` loads only what serving needs;
// every other command, and any --help, loads the whole command line (main.ts) with its commands — the simulator,
// the test receiver, the admin commands (docs/performance.md, "Cold start").
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'serve' && !argv.some((a) => a === '--help' || a === '-h')) {
    const [{ runCommand }, { serve }] = await Promise.all([import('./kit'), import('./serve-command')]);
    return runCommand(() => serve(argv.slice(1)));
  }
  quietOnClosedStdout();
  return (await import('./main')).main(argv);
}

let stdoutGuarded = false;

/**
 * When the reader of the output goes away (`vconsole audit export | head -1`), writing to stdout fails with EPIPE:
 * the command ends there, quietly and with exit 0, as other command-line tools do, instead of dying on an unhandled
 * 'error' event with a stack trace. Any other stdout error is thrown as before. Not for `serve`, which shuts down
 * through its own path.
 */
export function quietOnClosedStdout(): void {
  if (stdoutGuarded) return;
  stdoutGuarded = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}

// Run directly when bundled as the headless entry (out/main/headless.js).
if (process.argv[1] && /headless\.(c?js|mjs)$/.test(process.argv[1])) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
