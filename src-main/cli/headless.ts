// The headless entry (out/main/headless.js, what `vconsole` runs): `vconsole serve` loads only what serving needs;
// every other command, and any --help, loads the whole command line (main.ts) with its commands — the simulator,
// the test receiver, the admin commands (docs/performance.md, "Cold start").
export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'serve' && !argv.some((a) => a === '--help' || a === '-h')) {
    const [{ runCommand }, { serve }] = await Promise.all([import('./kit'), import('./serve-command')]);
    return runCommand(() => serve(argv.slice(1)));
  }
  return (await import('./main')).main(argv);
}

// Run directly when bundled as the headless entry (out/main/headless.js).
if (process.argv[1] && /headless\.(c?js|mjs)$/.test(process.argv[1])) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
