// The public catalogue of sandbox fixtures (decisions §10), as served to API clients and the console.
import { z } from 'zod';
import { loadFixtures } from '../providers/sandbox/fixtures';
import type { CoreRuntime } from './runtime';

export const PublicFixtureSchema = z.object({
  kind: z.string(),
  country: z.string(),
  description: z.string(),
  request: z.record(z.string(), z.unknown()),
  expected: z.object({ status: z.string(), errorCode: z.string().optional(), fields: z.record(z.string(), z.unknown()).optional() }),
});
export const FixtureListSchema = z.object({ data: z.array(PublicFixtureSchema) });
export type PublicFixture = z.infer<typeof PublicFixtureSchema>;

export function listPublicFixtures(rt: CoreRuntime): PublicFixture[] {
  return loadFixtures(rt.deps.config.resourcesDir).map((f) => ({
    kind: f.kind,
    country: f.country,
    description: f.description,
    request: f.request,
    expected: f.expected,
  }));
}
