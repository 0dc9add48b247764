// The sandbox test data: one catalogue of documented fixtures (decisions §10), loaded from resources/. The same
// list is what GET /sandbox/fixtures serves, what the console shows, and what the sandbox provider answers from,
// so the documentation cannot drift from the behaviour.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { SandboxFixtureSchema } from '../../../src-shared/schemas/sandbox';

/** The public fixture shape, narrowed for the verification kinds this file holds. */
export const FixtureSchema = SandboxFixtureSchema.extend({
  kind: z.enum(['account', 'phone', 'identity', 'face', 'address']),
  expected: SandboxFixtureSchema.shape.expected.extend({ status: z.enum(['pending', 'success', 'failed', 'error']) }),
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

/**
 * The answer to a listed account number sent with another bank code than its fixture's (issue 18: a fixture matches
 * on every identifying field). Documented by the "right account, wrong bank" fixtures of the catalogue.
 */
export const WRONG_BANK_MESSAGE = 'This account number is not held at this bank: the sandbox test data lists it at another bank code.';

/**
 * The answer to a listed phone number sent with another network code than its fixture's: a fixture matches on the
 * network too. Documented by the "right number, wrong network" fixtures and by the GH number registered elsewhere.
 */
export const OTHER_NETWORK_MESSAGE = 'The number is registered with another network.';

/** Normalises an identifier so spacing and letter case do not change which fixture answers. */
export function norm(v: unknown): string {
  return typeof v === 'string' ? v.replace(/[\s-]/g, '').toUpperCase() : '';
}

export function normName(v: unknown): string {
  return typeof v === 'string' ? v.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9]+/g, ' ').trim().toUpperCase() : '';
}
