// The sandbox test data: one catalogue of documented fixtures (decisions §10), loaded from resources/. The same
// list is what GET /sandbox/fixtures serves, what the console shows, and what the sandbox provider answers from,
// so the documentation cannot drift from the behaviour.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

export const FixtureSchema = z.object({
  kind: z.enum(['account', 'phone', 'identity', 'face', 'address']),
  country: z.string(),
  description: z.string(),
  request: z.record(z.string(), z.unknown()),
  expected: z.object({
    status: z.enum(['pending', 'success', 'failed', 'error']),
    errorCode: z.string().optional(),
    fields: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type Fixture = z.infer<typeof FixtureSchema>;

const cache = new Map<string, Fixture[]>();

export function loadFixtures(resourcesDir: string): Fixture[] {
  const hit = cache.get(resourcesDir);
  if (hit) return hit;
  const raw = JSON.parse(readFileSync(join(resourcesDir, 'sandbox', 'fixtures.json'), 'utf8')) as unknown;
  const list = z.array(FixtureSchema).parse(raw);
  cache.set(resourcesDir, list);
  return list;
}

/** Normalises an identifier so spacing and letter case do not change which fixture answers. */
export function norm(v: unknown): string {
  return typeof v === 'string' ? v.replace(/[\s-]/g, '').toUpperCase() : '';
}

export function normName(v: unknown): string {
  return typeof v === 'string' ? v.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9]+/g, ' ').trim().toUpperCase() : '';
}
