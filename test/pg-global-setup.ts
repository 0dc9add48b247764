// vitest globalSetup: one throw-away PostgreSQL for the whole run (test/helpers/pg-cluster.ts). A cluster that cannot
// start does not stop the other suites: the PostgreSQL test files fail with the reason (never skip).
import type { TestProject } from 'vitest/node';
import { startPgCluster } from './helpers/pg-cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cluster's admin URL, or '' when it could not start (then pgError says why). */
    pgAdminUrl: string;
    pgError: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  try {
    const cluster = await startPgCluster();
    project.provide('pgAdminUrl', cluster.adminUrl);
    project.provide('pgError', '');
    return () => cluster.stop();
  } catch (e) {
    project.provide('pgAdminUrl', '');
    project.provide('pgError', (e as Error).message);
    return async () => undefined;
  }
}
