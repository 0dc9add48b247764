// Runs one documented sandbox fixture through the console's own verify channels, for the onboarding's guided first
// check and the palette's "Verify a sandbox fixture…" entries.
import type { ChannelInput, SandboxFixture } from '../../../src-shared/channels';
import { call } from '../../client/bridge';
import type { PartialRecord } from '../verify/verification-result';

/** The fixture kinds a console channel can submit; routing fixtures (bic, batch, …) live on the Routing page. */
export const RUNNABLE_KINDS = ['account', 'phone', 'identity', 'face', 'address'] as const;
export type RunnableKind = (typeof RUNNABLE_KINDS)[number];

export function isRunnable(f: SandboxFixture): f is SandboxFixture & { kind: RunnableKind } {
  return (RUNNABLE_KINDS as readonly string[]).includes(f.kind);
}

/** A short, stable label: kind, country and the documented description. */
export function fixtureLabel(f: SandboxFixture): string {
  return `${f.kind} · ${f.country || '—'} · ${f.description}`;
}

// One request per console session: the catalogue is static for a given service version.
let cached: Promise<SandboxFixture[]> | null = null;
export function loadRunnableFixtures(): Promise<SandboxFixture[]> {
  cached ??= call('sandbox:fixtures', {})
    .then((all) => all.filter(isRunnable))
    .catch((e: unknown) => {
      cached = null;
      throw e;
    });
  return cached;
}

/**
 * Always in sandbox whatever the console's switch says: a fixture is sandbox test data, and run in live it would
 * reach a real provider and be charged. The service validates the request; a refusal comes back as ConsoleError.
 */
export async function runFixture(f: SandboxFixture): Promise<PartialRecord> {
  const environment = 'sandbox' as const;
  // The fixture file is the service's own catalogue, so its requests have the channel's shape; the channel
  // schema re-checks them on the way in.
  switch (f.kind) {
    case 'account':
      return call('verify:account', { environment, request: f.request as ChannelInput<'verify:account'>['request'] });
    case 'phone':
      return call('verify:phone', { environment, request: f.request as ChannelInput<'verify:phone'>['request'] });
    case 'identity':
      return call('verify:identity', { environment, request: f.request as ChannelInput<'verify:identity'>['request'] });
    case 'face':
      return call('verify:face', { environment, request: f.request as ChannelInput<'verify:face'>['request'] });
    case 'address':
      return call('verify:address', { environment, request: f.request as ChannelInput<'verify:address'>['request'] });
    default:
      throw new Error(`Fixture kind ${f.kind} cannot be run from here.`);
  }
}
