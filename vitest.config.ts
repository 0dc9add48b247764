import { defineConfig } from 'vitest/config';

// The integration suites that run a second time on PostgreSQL (VC_TEST_ENGINE=postgres, docs/team-server.md
// "Tests"): every suite of the core that goes through HTTP or the console. Left out: files that do not start the
// service through the harness (the store, CLI and child-process files below, test/unit, the simulator), the
// PostgreSQL-specific suites (test/integration/pg, engine-explicit already), and what is heavy without new SQL
// (test/integration/live: providers and their faults; test/conformance: the API's shapes).
const ON_POSTGRES = [
  'test/integration/foundation/**/*.test.ts',
  'test/integration/verification/**/*.test.ts',
  'test/integration/webhooks/**/*.test.ts',
  'test/integration/settings/**/*.test.ts',
  'test/integration/audit/**/*.test.ts',
  'test/integration/routing/**/*.test.ts',
  'test/integration/console/**/*.test.ts',
  'test/security/**/*.test.ts',
];
const NOT_ON_POSTGRES = [
  'test/integration/foundation/store.test.ts', // the SQLite store itself
  'test/integration/routing/cli.test.ts', // the CLI on a data folder
  'test/integration/webhooks/recovery-crash.test.ts', // a child process on a data folder, killed
];

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One throw-away PostgreSQL for the run, shared by both projects (docs/team-server.md, "Tests"); each
    // PostgreSQL test file makes its own database.
    globalSetup: ['test/pg-global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'postgres', include: ON_POSTGRES, exclude: NOT_ON_POSTGRES, env: { VC_TEST_ENGINE: 'postgres' } } },
    ],
  },
});
