import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One throw-away PostgreSQL for the run (docs/team-server.md, "Tests"); each PostgreSQL test file makes its own database.
    globalSetup: ['test/pg-global-setup.ts'],
  },
});
