// The console door: one handler per channel of the console contract, each a thin call into core/. The console
// acts as the installation's owner (the first organization), in the environment the console has switched to — or,
// on a team server (docs/team-server.md), as the signed-in user: dispatch() checks the user's role against the
// channel's (src-shared/channel-roles.ts) before any handler runs, and runs the handler as that user.
import { AsyncLocalStorage } from 'node:async_hooks';
import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
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
import { CHANNEL_MIN_ROLE, PATH_CHANNELS, roleMayCall } from '../../src-shared/channel-roles';
import type { ConsoleUser } from '../core/auth/console-sessions';

export type Handlers = { [K in ChannelName]: (input: ChannelOutputOfInput<K>) => Promise<ChannelOutput<K>> };
type ChannelOutputOfInput<K extends ChannelName> = import('zod').output<(typeof CHANNELS)[K]['input']>;

export interface ConsoleContext {
  rt: CoreRuntime;
  door: 'electron' | 'web';
  /** A team server: the web console is entered by signing in (docs/team-server.md), not by a one-time link. */
  teamSignIn?: boolean;
}

/** The signed-in team user a console call runs as (none: the desktop app or a one-time link, acting as owner). */
const consoleUsers = new AsyncLocalStorage<ConsoleUser>();

export function currentConsoleUser(): ConsoleUser | undefined {
  return consoleUsers.getStore();
}

function userPrincipal(u: ConsoleUser, environment: Environment): Principal {
  return { kind: 'user', organizationId: u.organizationId, environment, role: u.role, userId: u.userId, sessionId: u.sessionId, door: 'console' };
}

/**
 * Who a console call acts as: the signed-in user on a team server, else the installation's owner (the desktop
 * app, or a web console opened through its one-time link on loopback).
 */
export async function owner(ctx: ConsoleContext, environment: Environment = 'sandbox'): Promise<Principal> {
  const user = consoleUsers.getStore();
  if (user) return userPrincipal(user, environment);
  const organizationId = await firstOrganizationId(ctx.rt.deps);
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
  for (const [name, fn] of Object.entries(merged) as [string, (i: unknown) => Promise<unknown>][]) {
    (merged as Record<string, unknown>)[name] = (input: unknown) => consoleCall(ctx, () => fn(input));
  }
  return merged as Handlers;
}

/**
 * What every console call runs inside (each channel's handler, and a door's other form of one, such as the web
 * console's audit download): audited as the console's (docs/audit.md) or as the signed-in team user's, and a full or
 * read-only disk answered as STORAGE_UNAVAILABLE with the folder and free space.
 */
export function consoleCall<T>(ctx: ConsoleContext, fn: () => Promise<T>): Promise<T> {
  const user = consoleUsers.getStore();
  const consoleActor = { type: 'console' as const, id: null, label: ctx.door === 'electron' ? 'Desktop console (owner)' : 'Web console (owner)' };
  return runWithAudit(user ? { door: 'console', principal: userPrincipal(user, 'sandbox') } : { door: 'console', actor: consoleActor }, async () => {
    try {
      return await fn();
    } catch (e) {
      // SQLite engine only: the store's health is attached to its connection (store/storage-faults.ts).
      throw storageAppError(ctx.rt.deps.db, e) ?? e;
    }
  });
}

function baseHandlers(ctx: ConsoleContext): Partial<Handlers> {
  const { rt } = ctx;
  return {
    'app:info': async () => {
      const info = rt.info();
      const user = consoleUsers.getStore();
      const organizationId = user?.organizationId ?? (await firstOrganizationId(rt.deps));
      const warnings: string[] = [];
      if (info.developerOptions.allowWebhookHosts.length > 0) {
        warnings.push(`Webhook URL rules are relaxed for ${info.developerOptions.allowWebhookHosts.join(', ')} (--allow-webhook-host).`);
      }
      if (info.developerOptions.retryUnitMs !== 60_000) {
        warnings.push(`One minute of the webhook retry schedule lasts ${info.developerOptions.retryUnitMs} ms (--retry-unit-ms).`);
      }
      return {
        ...info,
        needsSetup: organizationId === null,
        organizationId,
        door: ctx.door,
        warnings,
        signIn: ctx.teamSignIn ? ('password' as const) : ('link' as const),
        user: user ? { id: user.userId, email: user.email, role: user.role } : null,
      };
    },
    'setup:bootstrap': async (input) => bootstrap(rt.deps, input, { firstOnly: true }),
    'sandbox:fixtures': async () => listPublicFixtures(rt),
    'keys:list': async () => (await listKeys(rt.deps, (await owner(ctx)).organizationId, { limit: 100, offset: 0 })).data,
    'keys:create': async (input) => createKey(rt.deps, await owner(ctx), input),
    'keys:revoke': async (input) => revokeKey(rt.deps, (await owner(ctx)).organizationId, input.id),
    'verify:account': async ({ environment, request }) => {
      // Each console submission is a new request, with its own idempotency key, through the same path as the API.
      const res = await submitOnce(rt.verification, await owner(ctx, environment), 'account', request);
      return JSON.parse(res.body) as ChannelOutput<'verify:account'>;
    },
    'verify:get': async ({ environment, id }) => getOne(rt.verification, await owner(ctx, environment), id),
    'verify:list': async ({ environment, query }) => {
      const q = withPage(query);
      return toEnvelope(await list(rt.verification, await owner(ctx, environment), q), q);
    },
    ...historyHandlers(ctx),
  };
}

/** A signed-in team user's call: checked against the channel's role, files confined to the user's uploads. */
export interface ConsoleCaller {
  user: ConsoleUser;
  /** The folder uploads are stored in; a path input outside it is refused. */
  uploadDir?: string;
}

/**
 * What a console user who may fix a CONTACT_ADMIN refusal does about it: the API's hint ("Ask an administrator") is
 * for a client that cannot; an owner or admin in the console (and the desktop's user, who is the owner) is told where.
 */
const CONSOLE_FIX: Partial<Record<string, { channel: ChannelName; hint: string }>> = {
  WALLET_SUSPENDED: { channel: 'wallet:setStatus', hint: 'Activate the wallet on the Wallet page to accept live checks again.' },
  SERVICE_PRICE_NOT_CONFIGURED: { channel: 'prices:set', hint: 'Set a price for this service on the Wallet page (Prices).' },
  SERVICE_NOT_ENABLED: { channel: 'services:enable', hint: 'Switch this service on under Enabled services on the Wallet page.' },
  'live-provider': { channel: 'providers:set', hint: 'Configure a live provider for this corridor on the Providers page.' },
};

function hintFor(e: AppError, apiHint: string | undefined, caller: ConsoleCaller | undefined): string | undefined {
  const fix = CONSOLE_FIX[e.remedy ?? e.code];
  if (fix && (!caller || roleMayCall(caller.user.role, fix.channel))) return fix.hint;
  return apiHint;
}

function forbidden(message: string): BridgeResult<never> {
  return { ok: false, error: { code: 'FORBIDDEN', message, hint: ACTION_HINTS.CONTACT_ADMIN } };
}

/** Whether a path names a file inside `dir` (after resolving `..` and symbolic links). */
export function isInside(dir: string, path: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const root = real(dir);
  const file = real(resolve(dir, path));
  return file.startsWith(root + sep);
}

/**
 * Validates a channel call, runs it, and wraps the outcome as a result value (errors never cross as throws). With
 * a caller (a signed-in team user), the caller's role is checked against the channel's first (channel-roles.ts),
 * then the handler runs as that user.
 */
export async function dispatch(
  handlers: Handlers,
  channel: string,
  raw: unknown,
  log?: { error(o: object, m: string): void },
  caller?: ConsoleCaller,
  /**
   * Answers the call in another form than the channel's handler (a door's file download) after the same role, input
   * and file checks; run it inside `consoleCall`, as the handlers are.
   */
  answer?: (input: never) => Promise<unknown>,
): Promise<BridgeResult<unknown>> {
  const { CHANNELS } = await import('../../src-shared/channels');
  if (!Object.hasOwn(CHANNELS, channel)) {
    return { ok: false, error: { code: 'NOT_FOUND', message: `Unknown console channel ${channel}.` } };
  }
  const name = channel as ChannelName;
  if (caller && !roleMayCall(caller.user.role, name)) {
    return forbidden(`Your role (${caller.user.role}) cannot do this: ${name} needs ${CHANNEL_MIN_ROLE[name]} or above.`);
  }
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
  if (caller && PATH_CHANNELS.includes(name)) {
    // A team user is not on the service's machine: the only files they may name are the ones they uploaded.
    const path = (parsed.data as { path?: unknown }).path;
    if (typeof path !== 'string' || !caller.uploadDir || !isInside(caller.uploadDir, path)) {
      return forbidden('On a team server the console reads only files uploaded through it. Drop the file into the page to upload it.');
    }
  }
  try {
    const handler = (answer ?? handlers[name]) as (i: unknown) => Promise<unknown>;
    const run = () => handler(parsed.data);
    return { ok: true, value: await (caller ? consoleUsers.run(caller.user, run) : run()) };
  } catch (e) {
    if (isAppError(e)) {
      const body = e.toBody();
      const hint = hintFor(e, body.action?.hint, caller);
      return { ok: false, error: { code: body.code, message: body.message, ...(hint ? { hint } : {}), ...(body.details ? { details: body.details } : {}) } };
    }
    log?.error({ err: e, channel }, 'console handler failed');
    return { ok: false, error: { code: 'INTERNAL_ERROR', message: HTTP_ERRORS.INTERNAL_ERROR.message } };
  }
}

export type { ChannelInput };
