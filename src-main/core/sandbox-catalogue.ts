// The public catalogue of sandbox fixtures (decisions §10), as served to API clients and the console.
import type { SandboxFixture as PublicFixture } from '../../src-shared/schemas/sandbox';
import { loadFixtures } from '../providers/sandbox/fixtures';
import { evaluateCorrespondents, runBatch } from './routing/checks';
import { routingSandboxFixtures, sandboxDirectory, type RoutingFixtureCase } from './routing/sandbox-directory';
import type { BatchItem } from '../../src-shared/schemas/routing';
import type { CoreRuntime } from './runtime';

export function listPublicFixtures(rt: CoreRuntime): PublicFixture[] {
  const verification = loadFixtures(rt.deps.config.resourcesDir).map((f) => ({
    kind: f.kind,
    country: f.country,
    description: f.description,
    request: f.request,
    expected: f.expected,
  }));
  return [...verification, ...publicRoutingFixtures()];
}

let routingCache: PublicFixture[] | null = null;

/**
 * The routing fixtures with `expected.fields` in the shape the endpoint returns: the fixture file states
 * correspondents as `correspondentBics` and routes as `paths`, shorthand a client cannot compare with an answer,
 * so those become the full `correspondents` / `results` arrays (checked against the shorthand, so they cannot drift).
 * Kinds are the endpoint names under /verifications/: bic, routing-codes, correspondents, batch.
 */
export function publicRoutingFixtures(): PublicFixture[] {
  routingCache ??= routingSandboxFixtures().map(toPublicRouting);
  return structuredClone(routingCache);
}

function toPublicRouting(c: RoutingFixtureCase): PublicFixture {
  const ctx = { directory: sandboxDirectory(), sandbox: true };
  const { correspondentBics, paths, ...fields } = (c.expected.fields ?? {}) as Record<string, unknown>;
  if (correspondentBics !== undefined) {
    const req = c.request as { bic: string; currency?: string };
    const got = evaluateCorrespondents(req.bic, req.currency, ctx).result.correspondents;
    if (JSON.stringify(got.map((x) => x.bic)) !== JSON.stringify(correspondentBics)) {
      throw new Error(`routing fixture "${c.description}": correspondents ${got.map((x) => x.bic).join(',')} differ from the fixture file`);
    }
    fields['correspondents'] = got;
  }
  if (paths !== undefined) {
    const got = runBatch((c.request as { items: BatchItem[] }).items, ctx).results;
    const gotPaths = got.map((r) => ('path' in r ? r.path : null));
    if (JSON.stringify(gotPaths) !== JSON.stringify(paths)) {
      throw new Error(`routing fixture "${c.description}": route paths differ from the fixture file`);
    }
    fields['results'] = got;
  }
  return {
    kind: c.kind,
    country: c.country ?? '',
    description: c.description,
    request: c.request,
    expected: { status: c.expected.status, ...(c.expected.errorCode ? { errorCode: c.expected.errorCode } : {}), ...(Object.keys(fields).length > 0 ? { fields } : {}) },
  };
}
