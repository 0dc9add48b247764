// The service settings kept in the store's `settings` table (listener host and port, rate limit), and which
// value wins at start: a command-line flag, else the saved value, else the built-in default.
import {
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  ListenHostSchema,
  ListenPortSchema,
  RateLimitSchema,
  type PersistedSettings,
} from '../../../src-shared/schemas/settings';
import type { SqlQueries } from '../../store/sql-port';

/** Keys in the shared settings table; namespaced so they never meet the JWT secret or forwarding entries. */
const KEYS = {
  host: 'service.listen.host',
  port: 'service.listen.port',
  rateLimitPerMinute: 'service.rate_limit_per_minute',
} as const;

const FIELD_SCHEMAS = { host: ListenHostSchema, port: ListenPortSchema, rateLimitPerMinute: RateLimitSchema } as const;

type Field = keyof typeof KEYS;
const FIELDS = Object.keys(KEYS) as Field[];

const FIELD_OF_KEY = new Map<string, Field>(FIELDS.map((f) => [KEYS[f], f]));
const READ_SQL = `SELECT key, value FROM settings WHERE key IN (${FIELDS.map(() => '?').join(', ')})`;
const FIELD_KEYS = FIELDS.map((f) => KEYS[f]);

/** The saved values. A value that no longer parses (hand-edited store) is ignored rather than failing the start. */
export async function readPersistedSettings(q: SqlQueries): Promise<PersistedSettings> {
  const out: Record<string, unknown> = {};
  for (const row of await q.all<{ key: string; value: string }>(READ_SQL, FIELD_KEYS)) {
    const f = FIELD_OF_KEY.get(row.key)!;
    let v: unknown;
    try {
      v = JSON.parse(row.value);
    } catch {
      continue;
    }
    const parsed = FIELD_SCHEMAS[f].safeParse(v);
    if (parsed.success) out[f] = parsed.data;
  }
  return out as PersistedSettings;
}

/**
 * Saves the given fields (others are left alone) in one transaction (a savepoint when `q` is already a
 * transaction's handle); returns what is saved afterwards.
 */
export async function writePersistedSettings(q: SqlQueries, patch: PersistedSettings): Promise<PersistedSettings> {
  return q.transaction(async (tx) => {
    for (const f of FIELDS) {
      const v = patch[f];
      if (v !== undefined) await tx.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [KEYS[f], JSON.stringify(v)]);
    }
    return readPersistedSettings(tx);
  });
}

export interface EffectiveSettings {
  host: string;
  port: number;
  rateLimitPerMinute: number;
}

export function withDefaults(p: PersistedSettings): EffectiveSettings {
  return {
    host: p.host ?? DEFAULT_HOST,
    port: p.port ?? DEFAULT_PORT,
    rateLimitPerMinute: p.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
  };
}

/** Flags (explicitly given values) override the saved settings, which override the defaults. */
export function effectiveSettings(
  persisted: PersistedSettings,
  flags: { host?: string | undefined; port?: number | undefined; rateLimitPerMinute?: number | undefined },
): EffectiveSettings {
  const base = withDefaults(persisted);
  return {
    host: flags.host ?? base.host,
    port: flags.port ?? base.port,
    rateLimitPerMinute: flags.rateLimitPerMinute ?? base.rateLimitPerMinute,
  };
}

/**
 * The listener this process actually runs and the settings saved when it started, recorded by the composition root
 * (the runtime info shows only a URL). A restart is needed only when the saved address changed since then.
 */
interface RunningListener {
  host: string;
  port: number | null;
  savedAtStart: EffectiveSettings;
}
const running = new WeakMap<object, RunningListener>();

export async function noteRunningListener(deps: { sql: SqlQueries }, host: string, port: number | null): Promise<void> {
  const savedAtStart = running.get(deps)?.savedAtStart ?? withDefaults(await readPersistedSettings(deps.sql));
  running.set(deps, { host, port, savedAtStart });
}

export function runningListener(deps: object): RunningListener | null {
  return running.get(deps) ?? null;
}
