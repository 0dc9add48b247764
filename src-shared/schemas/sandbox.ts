// The sandbox test data catalogue (decisions §10): one documented fixture, as served by GET /sandbox/fixtures,
// shown in the console, and (for the verification kinds) answered by the sandbox provider.
import { z } from 'zod';

export const SandboxFixtureSchema = z
  .object({
    /** The endpoint the request posts to: a verification kind, or bic / routing-codes / correspondents / batch. */
    kind: z.string(),
    /** '' for routing fixtures that concern no single country (a malformed BIC, a batch). */
    country: z.string(),
    description: z.string(),
    request: z.record(z.string(), z.unknown()),
    expected: z.object({
      status: z.string(),
      errorCode: z.string().optional(),
      fields: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'SandboxFixture' });
export type SandboxFixture = z.infer<typeof SandboxFixtureSchema>;

export const SandboxFixtureListSchema = z.object({ data: z.array(SandboxFixtureSchema) });
