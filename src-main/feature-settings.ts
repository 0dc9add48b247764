// The settings feature: console channels for service settings, users and roles, and the configuration file.
// The console acts as the installation's owner; the role rules live in core/settings and apply to every caller.
import type { z } from 'zod';
import { AppError } from '../src-shared/app-error';
import type { settingsChannels } from '../src-shared/channels-settings';
import { ConfigFileSchema, type ConfigFile } from '../src-shared/schemas/settings';
import type { ConsoleContext } from './console/handlers';
import { owner } from './console/handlers';
import { exportConfig, importConfig } from './core/settings/config-transfer';
import { settingsView, updateSettings } from './core/settings/settings-service';
import { createManagedUser, deactivateUser, listManagedUsers, reactivateUser, setUserRole } from './core/settings/users';
import type { Feature } from './features';

type SettingsChannels = typeof settingsChannels;
export type SettingsHandlers = {
  [K in keyof SettingsChannels]: (input: z.output<SettingsChannels[K]['input']>) => Promise<z.output<SettingsChannels[K]['output']>>;
};

/** Checks a configuration file's shape; the details name the file's own fields (e.g. `webhooks.0.url`). */
export function parseConfigFile(raw: unknown): ConfigFile {
  const r = ConfigFileSchema.safeParse(raw);
  if (!r.success) {
    throw new AppError('VALIDATION_ERROR', {
      message: 'This is not a valid configuration file; nothing was changed.',
      details: r.error.issues.map((i) => ({ field: i.path.join('.') || '(file)', message: i.message })),
    });
  }
  return r.data;
}

export function settingsConsoleHandlers(ctx: ConsoleContext): SettingsHandlers {
  const { rt } = ctx;
  return {
    'settings:get': async () => settingsView(rt),
    'settings:update': async (patch) => updateSettings(rt, await owner(ctx), patch),
    'users:list': async () => listManagedUsers(rt.deps, await owner(ctx)),
    'users:create': async (input) => createManagedUser(rt.deps, await owner(ctx), input),
    'users:setRole': async ({ id, role }) => setUserRole(rt.deps, await owner(ctx), id, role),
    'users:deactivate': async ({ id }) => deactivateUser(rt.deps, await owner(ctx), id),
    'users:reactivate': async ({ id }) => reactivateUser(rt.deps, await owner(ctx), id),
    'config:export': async () => exportConfig(rt, (await owner(ctx)).organizationId),
    'config:preview': async ({ file }) => importConfig(rt, (await owner(ctx)).organizationId, parseConfigFile(file), { dryRun: true }),
    'config:import': async ({ file }) => importConfig(rt, (await owner(ctx)).organizationId, parseConfigFile(file), { dryRun: false }),
  };
}

export const settingsFeature: Feature = {
  name: 'settings',
  consoleHandlers: (ctx) => settingsConsoleHandlers(ctx),
};
