// The Settings page's service side: what is saved, what runs, and saving a change. The rate limit applies at once
// (the HTTP door reads it per request); a new listener address is checked for availability, saved, and applied at
// the next start (docs/settings.md says why it is not re-bound live).
import { AppError } from '../../../src-shared/app-error';
import type { SettingsPatch, SettingsView } from '../../../src-shared/schemas/settings';
import type { Principal } from '../principal';
import type { CoreRuntime } from '../runtime';
import { checkPortAvailable } from './port-check';
import { readPersistedSettings, runningListener, withDefaults, writePersistedSettings } from './settings-store';
import { audited } from '../audit/audit-log';

export async function settingsView(rt: CoreRuntime): Promise<SettingsView> {
  const saved = withDefaults(await readPersistedSettings(rt.deps.sql));
  const run = runningListener(rt.deps);
  const info = rt.info();
  return {
    saved,
    running: { host: run?.host ?? null, port: run?.port ?? null, rateLimitPerMinute: rt.deps.config.rateLimitPerMinute },
    restartRequired:
      run !== null &&
      run.port !== null &&
      (saved.host !== run.savedAtStart.host || saved.port !== run.savedAtStart.port) &&
      (saved.host !== run.host || saved.port !== run.port),
    dataDir: info.dataDir,
    developerOptions: info.developerOptions,
  };
}

function requireSettingsAdmin(actor: Principal): void {
  if (actor.kind === 'apiKey' || (actor.role !== 'OWNER' && actor.role !== 'ADMIN')) {
    throw new AppError('FORBIDDEN', { message: 'Only owners and admins change the service settings.' });
  }
}

export async function updateSettings(rt: CoreRuntime, actor: Principal, patch: SettingsPatch): Promise<SettingsView> {
  requireSettingsAdmin(actor);
  const saved = withDefaults(await readPersistedSettings(rt.deps.sql));
  const run = runningListener(rt.deps);
  const host = patch.host ?? saved.host;
  const port = patch.port ?? saved.port;
  const listenerChanged = patch.host !== undefined || patch.port !== undefined;
  // Our own running listener holds its address: binding it again would report a false "in use".
  const isOurs = run !== null && run.host === host && run.port === port;
  if (listenerChanged && !isOurs) {
    const check = await checkPortAvailable(host, port);
    if (!check.ok) {
      throw new AppError('VALIDATION_ERROR', {
        message: `${check.message} Choose another port, or stop that program first. Nothing was saved.`,
        details: [{ field: check.code === 'EADDRNOTAVAIL' || check.code === 'ENOTFOUND' ? 'host' : 'port', message: check.message }],
      });
    }
  }
  await audited(rt.deps, actor.organizationId, (tx) => writePersistedSettings(tx, patch), () => ({ action: 'settings.updated', target: { type: 'settings', id: null }, detail: { ...patch } }));
  if (patch.rateLimitPerMinute !== undefined) rt.deps.config.rateLimitPerMinute = patch.rateLimitPerMinute;
  rt.deps.log.info({ patch }, 'settings saved');
  return settingsView(rt);
}
