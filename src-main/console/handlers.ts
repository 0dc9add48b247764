// The console door: one handler per channel of the console contract, each a thin call into core/. The console
// acts as the installation's owner (the first organization), in the environment the console has switched to.
import { AppError, isAppError } from '../../src-shared/app-error';
import { ACTION_HINTS, HTTP_ERRORS } from '../../src-shared/errors';
import type { BridgeResult, ChannelInput, ChannelName, ChannelOutput, CHANNELS } from '../../src-shared/channels';
import { REQUEST_CHANNEL_NAMES } from '../../src-shared/channel-names';
import type { Environment } from '../../src-shared/schemas/common';
import { createKey, listKeys, revokeKey } from '../core/keys/keys-service';
import { bootstrap, firstOrganizationId } from '../core/orgs/organizations';
import type { Principal } from '../core/principal';
import type { CoreRuntime } from '../core/runtime';
import { listPublicFixtures } from '../core/sandbox-catalogue';
import { getOne, list, submitOnce } from '../core/verification/verification-service';
import { toEnvelope, withPage } from '../../src-shared/schemas/common';
import { storageAppError } from '../store/storage-faults';
import { runWithAudit } from '../core/audit/audit-context';
import { historyHandlers } from './history-handlers';

export type Handlers = { [K in ChannelName]: (input: ChannelOutputOfInput<K>) => Promise<ChannelOutput<K>> };
type ChannelOutputOfInput<K extends ChannelName> = import('zod').output<(typeof CHANNELS)[K]['input']>;

export interface ConsoleContext {
  rt: CoreRuntime;
  door: 'electron' | 'web';
}

export function owner(ctx: ConsoleContext, environment: Environment = 'sandbox'): Principal {
  const organizationId = firstOrganizationId(ctx.rt.deps);
  if (!organizationId) throw new AppError('FORBIDDEN', { message: 'Set up the organization first.' });
  return { kind: 'console', organizationId, environment, role: 'OWNER' };
}

export function createHandlers(ctx: ConsoleContext, extra: Partial<Handlers>[] = []): Handlers {
  const base = baseHandlers(ctx);
  const merged: Partial<Handlers> = { ...base };
  for (const part of extra) {
    for (const [name, fn] of Object.entries(part)) {
      if (name in merged) throw new Error(`Console channel ${name} has two handlers`);
      (merged as Record<string, unknown>)[name] = fn;
    }
  }
  // The names only (the same list as the channel map's keys, test/unit/live/channel-names.test.ts): the map's
  // schemas are loaded by the first call (dispatch), not at start (docs/performance.md, "Cold start").
  const missing = REQUEST_CHANNEL_NAMES.filter((c) => !(c in merged));
  if (missing.length > 0) throw new Error(`Console channels without a handler: ${missing.join(', ')}`);
  const consoleActor = { type: 'console' as const, id: null, label: ctx.door === 'electron' ? 'Desktop console (owner)' : 'Web console (owner)' };
  // A full or read-only disk answers STORAGE_UNAVAILABLE with the folder and free space, in every channel.
  for (const [name, fn] of Object.entries(merged) as [string, (i: unknown) => Promise<unknown>][]) {
    (merged as Record<string, unknown>)[name] = (input: unknown) =>
      // Every console call is audited as the console's (docs/audit.md).
      runWithAudit({ door: 'console', actor: consoleActor }, async () => {
        try {
          return await fn(input);
        } catch (e) {
          throw storageAppError(ctx.rt.deps.db, e) ?? e;
        }
      });
  }
  return merged as Handlers;
}

function baseHandlers(ctx: ConsoleContext): Partial<Handlers> {
  const { rt } = ctx;
  return {
    'app:info': async () => {
      const info = rt.info();
      const organizationId = firstOrganizationId(rt.deps);
      const warnings: string[] = [];
      if (info.developerOptions.allowWebhookHosts.length > 0) {
        warnings.push(`Webhook URL rules are relaxed for ${info.developerOptions.allowWebhookHosts.join(', ')} (--allow-webhook-host).`);
      }
      if (info.developerOptions.retryUnitMs !== 60_000) {
        warnings.push(`One minute of the webhook retry schedule lasts ${info.developerOptions.retryUnitMs} ms (--retry-unit-ms).`);
      }
      return { ...info, needsSetup: organizationId === null, organizationId, door: ctx.door, warnings };
    },
    'setup:bootstrap': async (input) => {
      if (firstOrganizationId(rt.deps)) throw new AppError('FORBIDDEN', { message: 'This installation is already set up.' });
      return bootstrap(rt.deps, input);
    },
    'sandbox:fixtures': async () => listPublicFixtures(rt),
    'keys:list': async () => listKeys(rt.deps, owner(ctx).organizationId, { limit: 100, offset: 0 }).data,
    'keys:create': async (input) => createKey(rt.deps, owner(ctx), input),
    'keys:revoke': async (input) => revokeKey(rt.deps, owner(ctx).organizationId, input.id),
    'verify:account': async ({ environment, request }) => {
      // Each console submission is a new request, with its own idempotency key, through the same path as the API.
      const res = await submitOnce(rt.verification, owner(ctx, environment), 'account', request);
      return JSON.parse(res.body) as ChannelOutput<'verify:account'>;
    },
    'verify:get': async ({ environment, id }) => getOne(rt.verification, owner(ctx, environment), id),
    'verify:list': async ({ environment, query }) => {
      const q = withPage(query);
      return toEnvelope(list(rt.verification, owner(ctx, environment), q), q);
    },
    ...historyHandlers(ctx),
  };
}

/** Validates a channel call, runs it, and wraps the outcome as a result value (errors never cross as throws). */
export async function dispatch(handlers: Handlers, channel: string, raw: unknown, log?: { error(o: object, m: string): void }): Promise<BridgeResult<unknown>> {
  const { CHANNELS } = await import('../../src-shared/channels');
  if (!Object.hasOwn(CHANNELS, channel)) {
    return { ok: false, error: { code: 'NOT_FOUND', message: `Unknown console channel ${channel}.` } };
  }
  const name = channel as ChannelName;
  const parsed = CHANNELS[name].input.safeParse(raw ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      error: {
        code: 'VALIDATION_ERROR',
        message: HTTP_ERRORS.VALIDATION_ERROR.message,
        hint: ACTION_HINTS.FIX_INPUT,
        details: parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(input)', message: i.message })),
      },
    };
  }
  try {
    const handler = handlers[name] as (i: unknown) => Promise<unknown>;
    return { ok: true, value: await handler(parsed.data) };
  } catch (e) {
    if (isAppError(e)) {
      const body = e.toBody();
      return { ok: false, error: { code: body.code, message: body.message, ...(body.action ? { hint: body.action.hint } : {}), ...(body.details ? { details: body.details } : {}) } };
    }
    log?.error({ err: e, channel }, 'console handler failed');
    return { ok: false, error: { code: 'INTERNAL_ERROR', message: HTTP_ERRORS.INTERNAL_ERROR.message } };
  }
}

export type { ChannelInput };
