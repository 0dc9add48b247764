// What a service keeps in memory from the settings, and how it stays current on a team server (docs/settings.md,
// docs/team-server.md "Live events and settings across instances").
//
// Kept in memory: the rate limit (`config.rateLimitPerMinute`, read by the HTTP door on every request). Everything
// else is read from the store where it is used: the audit retention (at each prune), the backup schedule (at each
// check), providers (by version), forwarding (per delivery), the listener address (applies at the next start
// anyway). The instance that saves a setting applies it at once itself (settings-service.ts, config-transfer.ts);
// on PostgreSQL a trigger of the `settings` table (PostgreSQL migration 18) also sends NOTIFY vc_settings in the
// saving transaction, and every instance — this one included — reloads what it keeps when it hears it.
import type { PersistedSettings } from '../../../src-shared/schemas/settings';
import { SETTINGS_CHANNEL, type NotificationSource } from '../../store/notifications';
import { outsideTransaction } from '../../store/tx-context';
import type { CoreDeps } from '../context';
import { readPersistedSettings } from './settings-store';

/**
 * Follows changes of the saved settings committed by any instance (or a CLI command) and applies them here.
 * `savedAtStart` is what this process read at start: a saved value that differs from the last one seen is applied,
 * as the instance that saved it applied it (so a `--rate-limit` flag stays in force until someone saves a new
 * limit, on every instance alike). Resolves once listening, after one reload that covers anything saved between
 * the start's read and the LISTEN.
 */
export async function followSettings(deps: Pick<CoreDeps, 'sql' | 'config' | 'log'>, source: NotificationSource, savedAtStart: PersistedSettings): Promise<SettingsFollower> {
  let seen = savedAtStart.rateLimitPerMinute;
  let running: Promise<void> | null = null;
  let again = false;
  const reloadOnce = async () => {
    const saved = await readPersistedSettings(deps.sql);
    const limit = saved.rateLimitPerMinute;
    if (limit !== undefined && limit !== seen) {
      if (deps.config.rateLimitPerMinute !== limit) deps.log.info({ rateLimitPerMinute: limit }, 'settings: the rate limit saved elsewhere applies here');
      deps.config.rateLimitPerMinute = limit;
    }
    seen = limit;
  };
  const reload = (): Promise<void> => {
    if (running) {
      // A change committed while a read is under way may be after its snapshot: read once more after it.
      again = true;
      return running;
    }
    running = outsideTransaction(async () => {
      try {
        do {
          again = false;
          await reloadOnce();
        } while (again);
      } catch (err) {
        deps.log.warn({ err: (err as Error).message }, 'settings: reloading after a change failed; the next change or reconnection tries again');
      } finally {
        running = null;
      }
    });
    return running;
  };
  const stop = await source.listenTo(SETTINGS_CHANNEL, { notify: () => void reload(), resumed: () => void reload() });
  await reload();
  return { stop, idle: () => running ?? Promise.resolve() };
}

export interface SettingsFollower {
  stop(): void;
  /** Resolves once no reload is under way (tests). */
  idle(): Promise<void>;
}
