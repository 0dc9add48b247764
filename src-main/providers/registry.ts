// Chooses who answers a verification: sandbox keys get the fixture provider; live keys get the upstream adapter
// routed for the kind and corridor (provider_routes), behind the cache of definitive answers. A live check with no
// route is refused before it is charged (docs/providers.md).
import { AppError } from '../../src-shared/app-error';
import type { ProbeResult, ProviderView } from '../../src-shared/schemas/providers';
import type { CoreDeps } from '../core/context';
import { cacheKey, readCache, writeCache } from '../core/providers/cache';
import { createProviderConfig, type ProviderConfig, type ResolvedProvider, type StoredProvider } from '../core/providers/provider-config';
import { createNodeSecretBox, maskSecret, type SecretBox } from '../core/providers/secret-box';
import type { CoreRuntime } from '../core/runtime';
import type { ProviderRegistry } from '../core/verification/engine';
import type { ProviderAnswer, ProviderContext, VerificationKind } from '../core/verification/types';
import type { Req } from './live/adapter';
import type { LiveProvider, ProviderStateView } from './live/live-provider';
import { createSandboxProvider } from './sandbox/sandbox-provider';

/**
 * The live adapters and their runtime (upstream agents, breakers, bulkheads), loaded by the first live call or probe,
 * not at start: a service in sandbox use never needs them (docs/performance.md, "Cold start").
 */
let liveModules: Promise<typeof import('./live/modules')> | null = null;
const loadLive = (): Promise<typeof import('./live/modules')> => (liveModules ??= import('./live/modules'));

const IDLE_STATE: ProviderStateView = { circuit: 'closed', consecutiveFailures: 0, inFlight: 0, queued: 0, lastError: null, lastErrorAt: null };

/** The registry the engine calls, plus what the configuration doors need. */
export interface LiveProviderRegistry extends ProviderRegistry {
  config: ProviderConfig;
  view(p: StoredProvider): ProviderView;
  probe(id: string): Promise<ProbeResult>;
  /**
   * The service is stopping: no new upstream call starts (they answer VERIFICATION_CANCELLED at once); calls in
   * flight get `shutdownDrainMs` to finish, then are aborted (VERIFICATION_CANCELLED). Resolves when none is left.
   * Idempotent.
   */
  shutdown(): Promise<void>;
  /** How long shutdown() lets upstream calls in flight finish (default 5000 ms; tests lower it). */
  shutdownDrainMs: number;
  /** Upstream calls in flight now (across providers). */
  readonly upstreamInFlight: number;
  /** Cancels what is left and closes the upstream connection pools. */
  close(): Promise<void>;
}

export interface RegistryOptions {
  deps: CoreDeps;
  /** Seals provider credentials; default: AES-256-GCM with `<dataDir>/secret.key`. */
  secretBox?: SecretBox;
  dataDir?: string;
  /** See LiveProviderRegistry.shutdownDrainMs. */
  shutdownDrainMs?: number;
}

const CANCELLED: ProviderAnswer = { outcome: 'error', errorCode: 'VERIFICATION_CANCELLED' };

export function createProviderRegistry(resourcesDir: string, opts: RegistryOptions): LiveProviderRegistry {
  const { deps } = opts;
  const sandbox = createSandboxProvider(resourcesDir);
  // The explicitly configured `stand-in` adapter: answers like the sandbox but billed as live (tests and demos).
  const standIn = createSandboxProvider(resourcesDir);
  const box = opts.secretBox ?? createNodeSecretBox(opts.dataDir ?? '.');
  const config = createProviderConfig(deps, box);
  const running = new Map<string, LiveProvider>();
  /** Replaced runtimes still finishing their checks (runtimeFor). */
  const retiring = new Set<Promise<void>>();

  const runtimeFor = async (p: ResolvedProvider): Promise<LiveProvider> => {
    const { LiveProvider, ADAPTERS } = await loadLive();
    const cur = running.get(p.id);
    if (cur && cur.config.version === p.version) return cur;
    // A changed configuration gets fresh state (agent, breaker); checks in flight, queued or between retries on the
    // old one finish there: its pool closes once they are done (bounded by their deadline).
    if (cur) {
      const done = cur.retire().catch(() => {});
      retiring.add(done);
      void done.finally(() => retiring.delete(done));
    }
    const next = new LiveProvider(p, ADAPTERS[p.adapter as keyof typeof ADAPTERS], () => deps.clock.now(), deps.log);
    running.set(p.id, next);
    return next;
  };

  // Our own cancellation (interface §7.3 VERIFICATION_CANCELLED): one signal aborts every upstream call at shutdown.
  const stopping = new AbortController();
  let closing: Promise<void> | null = null;
  let inFlight = 0;
  let onIdle: (() => void) | null = null;

  const askUpstream = async (p: ResolvedProvider, kind: VerificationKind, request: unknown, ctx: ProviderContext): Promise<ProviderAnswer> => {
    if (p.adapter === 'stand-in') return standIn.ask(kind, request, ctx);
    // Stopping: a call started now would only be aborted at the end of the drain.
    if (closing) return { ...CANCELLED, interrupted: true };
    inFlight += 1;
    try {
      const signal = ctx.signal ? AbortSignal.any([ctx.signal, stopping.signal]) : stopping.signal;
      const answer = await (await runtimeFor(p)).ask(kind, request as Req, ctx.verificationId, signal);
      // Cancelled by the shutdown, not by the caller or the upstream: say so, so a queued check is retried.
      return answer.errorCode === 'VERIFICATION_CANCELLED' && stopping.signal.aborted ? { ...answer, interrupted: true } : answer;
    } finally {
      inFlight -= 1;
      if (inFlight === 0) onIdle?.();
    }
  };

  const countryOf = (request: unknown, ctx: ProviderContext): string =>
    ctx.country ?? String((request as Req | null)?.['country'] ?? '');

  const registry: LiveProviderRegistry = {
    config,
    async ensureRoute(kind, request, ctx) {
      if (ctx.environment !== 'live') return;
      const country = countryOf(request, ctx);
      if (await config.resolve(kind, country)) return;
      throw new AppError('SERVICE_NOT_ENABLED', {
        message: `No live provider is configured for ${kind}:${country}. An administrator must configure one (console Providers page or \`vconsole providers set\`).`,
        remedy: 'live-provider',
      });
    },
    async ask(kind, request, ctx) {
      if (ctx.environment === 'sandbox') return sandbox.ask(kind, request, ctx);
      const provider = await config.resolve(kind, countryOf(request, ctx));
      // The route was removed after the charge (or while an async check waited): a non-answer, reversed.
      if (!provider) return { outcome: 'error', errorCode: 'VERIFICATION_UNAVAILABLE' };
      const ttl = (await config.cacheTtl())[kind];
      const key = ttl > 0 && ctx.organizationId ? cacheKey(ctx.organizationId, kind, request) : null;
      if (key) {
        const hit = await readCache(deps, key);
        if (hit) return hit;
      }
      const answer = { ...(await askUpstream(provider, kind, request, ctx)), source: 'live' as const };
      if (key && ctx.organizationId) await writeCache(deps, key, ctx.organizationId, kind, answer, ttl);
      return answer;
    },
    view(p) {
      const { secretConfigured, secretLast4, ...rest } = p;
      const state = running.get(p.id)?.state() ?? IDLE_STATE;
      return {
        ...rest,
        secret: { configured: secretConfigured, masked: secretConfigured ? maskSecret(secretLast4 ?? '') : null },
        state,
      };
    },
    async probe(id) {
      const p = await config.resolveById(id);
      if (!p) throw new AppError('NOT_FOUND', { message: `No provider with id ${id} exists.` });
      if (p.adapter === 'stand-in') return { id, ok: true, httpStatus: null, message: 'The stand-in answers locally from the sandbox fixtures.' };
      return (await runtimeFor(p)).probe();
    },
    shutdownDrainMs: opts.shutdownDrainMs ?? 5_000,
    get upstreamInFlight() {
      return inFlight;
    },
    shutdown() {
      if (closing) return closing;
      closing = new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          onIdle = null;
          if (!stopping.signal.aborted) stopping.abort(new Error('service stopping'));
          resolve();
        };
        const timer = setTimeout(() => {
          if (inFlight > 0) deps.log.warn({ inFlight }, 'cancelling upstream calls still in flight at shutdown');
          finish();
        }, registry.shutdownDrainMs);
        if (inFlight === 0) finish();
        else onIdle = finish;
      });
      return closing;
    },
    async close() {
      if (!closing) void registry.shutdown();
      // Whatever is still in flight is cancelled now, not after the drain: the store is about to close.
      if (!stopping.signal.aborted) stopping.abort(new Error('service stopping'));
      const all = [...running.values()];
      running.clear();
      await Promise.all([...all.map((r) => r.close().catch(() => {})), ...retiring]);
    },
  };
  return registry;
}

/** The live registry of a running core (the console, the CLI and tests configure providers through it). */
export function liveProviders(rt: CoreRuntime): LiveProviderRegistry {
  const p = rt.verification.providers as Partial<LiveProviderRegistry>;
  if (!p.config) throw new Error('this core runs without the live provider registry');
  return p as LiveProviderRegistry;
}

/** Routes every kind's live checks to the `stand-in` adapter (sandbox-like answers, billed): tests and demos. */
export async function configureStandIn(rt: CoreRuntime, routes: string[] = ['account:*', 'phone:*', 'identity:*', 'face:*', 'address:*']): Promise<void> {
  const { config } = liveProviders(rt);
  // Routes already served by another provider stay with it: the stand-in only fills the gaps.
  const all = await config.list();
  const taken = new Set(all.filter((p) => p.id !== 'stand-in').flatMap((p) => p.routes));
  const existing = all.find((p) => p.id === 'stand-in');
  const mine = [...new Set([...(existing?.routes ?? []), ...routes.filter((r) => !taken.has(r))])];
  await config.set({ id: 'stand-in', adapter: 'stand-in', routes: mine });
}
