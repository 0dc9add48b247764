// vitest globalSetup: one throw-away PostgreSQL for the whole run (test/helpers/pg-cluster.ts). A cluster that cannot
// start does not stop the other suites: the PostgreSQL test files fail with the reason (never skip).
// Both projects of vitest.config.ts (sqlite, postgres) name this file; their setups run in the one vitest process,
// so the cluster is shared through globalThis and stopped when the last project is done with it.
import type { TestProject } from 'vitest/node';
import { startPgCluster, type PgCluster } from './helpers/pg-cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cluster's admin URL, or '' when it could not start (then pgError says why). */
    pgAdminUrl: string;
    pgError: string;
  }
}

interface Shared {
  cluster: Promise<PgCluster>;
  users: number;
}
const KEY = Symbol.for('verification-console.test-pg-cluster');
const registry = globalThis as unknown as Record<symbol, Shared | undefined>;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let shared = registry[KEY];
  if (!shared) {
    shared = { cluster: startPgCluster(), users: 0 };
    registry[KEY] = shared;
  }
  shared.users += 1;
  const release = async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    registry[KEY] = undefined;
    await shared.cluster.then(
      (c) => c.stop(),
      () => undefined,
    );
  };
  try {
    const cluster = await shared.cluster;
    project.provide('pgAdminUrl', cluster.adminUrl);
    project.provide('pgError', '');
  } catch (e) {
    project.provide('pgAdminUrl', '');
    project.provide('pgError', (e as Error).message);
  }
  return release;
}
