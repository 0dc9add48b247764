// The sandbox routing directory and its documented test cases, from resources/routing/sandbox-fixtures.json.
// Bundled as a JSON import so the Electron build, the headless service and worker threads all carry the same data.
import fixtures from '../../../resources/routing/sandbox-fixtures.json' with { type: 'json' };
import { createMemoryDirectory, type DirectoryEntries, type RoutingDirectory } from './directory';

/** One documented sandbox identifier, in the shape of `GET /sandbox/fixtures` (decisions §10). */
export interface RoutingFixtureCase {
  kind: 'bic' | 'routing-codes' | 'correspondents' | 'batch';
  country: string | null;
  description: string;
  request: Record<string, unknown>;
  expected: { status: 'success' | 'failed'; errorCode?: string; fields?: Record<string, unknown> };
}

export const SANDBOX_DIRECTORY_ENTRIES: DirectoryEntries = {
  bics: fixtures.bics,
  abas: fixtures.abas,
  correspondents: fixtures.correspondents,
};

let cached: RoutingDirectory | null = null;

export function sandboxDirectory(): RoutingDirectory {
  cached ??= createMemoryDirectory('sandbox', null, SANDBOX_DIRECTORY_ENTRIES);
  return cached;
}

export function routingSandboxFixtures(): RoutingFixtureCase[] {
  return structuredClone(fixtures.cases) as RoutingFixtureCase[];
}
