// Settings, users and roles, and the configuration file: the shapes the console, the CLI and the core agree on.
// The configuration file carries no secret by construction: its schema has no field that could hold one.
import { z } from 'zod';
import { RoleSchema, PASSWORD_MAX, PASSWORD_MIN } from './auth';
import { EnvironmentSchema } from './common';
import { PRICE_MAX, ServiceKeySchema } from './billing';
import { WebhookEventSchema, WebhookStatusSchema, WEBHOOK_DESCRIPTION_MAX } from './webhooks';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4010;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 6000;
export const RATE_LIMIT_MAX = 1_000_000;

/** A listener host: an IPv4/IPv6 literal or a host name (no scheme, no port). */
export const ListenHostSchema = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|[0-9a-fA-F:.]+)$/, 'must be an IP address or a host name, without scheme or port');
export const ListenPortSchema = z.number().int().min(1).max(65535);
export const RateLimitSchema = z.number().int().min(0).max(RATE_LIMIT_MAX);

/** What is persisted in the store's settings table (all optional: absent means the built-in default). */
export const PersistedSettingsSchema = z
  .object({
    host: ListenHostSchema.optional(),
    port: ListenPortSchema.optional(),
    rateLimitPerMinute: RateLimitSchema.optional(),
  })
  .strict();
export type PersistedSettings = z.infer<typeof PersistedSettingsSchema>;

export const SettingsPatchSchema = PersistedSettingsSchema;
export type SettingsPatch = z.infer<typeof SettingsPatchSchema>;

export const SettingsViewSchema = z.object({
  /** The values saved in the store, with defaults filled in. */
  saved: z.object({ host: z.string(), port: z.number().int(), rateLimitPerMinute: z.number().int() }),
  /** What this process runs with (a command-line flag beats the saved value). */
  running: z.object({ host: z.string().nullable(), port: z.number().int().nullable(), rateLimitPerMinute: z.number().int() }),
  /** The saved listener was changed since this process started and differs from the running one: a restart applies it. */
  restartRequired: z.boolean(),
  dataDir: z.string(),
  developerOptions: z.object({ allowWebhookHosts: z.array(z.string()), retryUnitMs: z.number() }),
});
export type SettingsView = z.infer<typeof SettingsViewSchema>;

// ---- users and roles ----

export const UserStatusSchema = z.enum(['active', 'deactivated']);
export const ManagedUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: RoleSchema,
  organizationId: z.string(),
  status: UserStatusSchema,
  createdAt: z.string(),
  deactivatedAt: z.string().nullable(),
});
export type ManagedUser = z.infer<typeof ManagedUserSchema>;

export const CreateUserInputSchema = z
  .object({
    email: z.string().trim().email().max(254),
    password: z.string().min(PASSWORD_MIN).max(PASSWORD_MAX),
    role: RoleSchema,
  })
  .strict();
export const SetRoleInputSchema = z.object({ id: z.string().max(100), role: RoleSchema }).strict();
export const UserIdInputSchema = z.object({ id: z.string().max(100) }).strict();

// ---- configuration export/import ----

export const CONFIG_FORMAT = 'verification-console-config';
export const CONFIG_VERSION = 1;

export const ConfigWebhookSchema = z
  .object({
    environment: EnvironmentSchema,
    url: z.string().trim().min(1).max(2048),
    events: z.array(WebhookEventSchema).min(1).max(8),
    description: z.string().trim().max(WEBHOOK_DESCRIPTION_MAX).nullable(),
    status: WebhookStatusSchema,
  })
  .strict();
export type ConfigWebhook = z.infer<typeof ConfigWebhookSchema>;

export const ConfigPriceSchema = z
  .object({
    service: ServiceKeySchema,
    amount: z.number().int().min(0).max(PRICE_MAX),
    // The shape only: setPrice judges the list, with the wallet's own currency allowed (an export must import).
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be a 3-letter upper-case ISO 4217 code'),
  })
  .strict();

export const ConfigFileSchema = z
  .object({
    format: z.literal(CONFIG_FORMAT),
    version: z.literal(CONFIG_VERSION),
    exportedAt: z.string(),
    webhooks: z.array(ConfigWebhookSchema).max(1000),
    prices: z.array(ConfigPriceSchema).max(10_000),
    services: z.array(ServiceKeySchema).max(10_000),
    settings: PersistedSettingsSchema,
  })
  .strict();
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

export const ImportActionSchema = z.enum(['create', 'update', 'unchanged']);
export const ImportChangeSchema = z.object({
  kind: z.enum(['webhook', 'price', 'service', 'setting']),
  action: ImportActionSchema,
  /** What the line is about: the webhook's environment and URL, a service key, a setting name. */
  target: z.string(),
  /** Human-readable before → after, or what will be created. */
  detail: z.string(),
});
export type ImportChange = z.infer<typeof ImportChangeSchema>;

export const ImportPlanSchema = z.object({
  changes: z.array(ImportChangeSchema),
  /** Webhooks that will be created, each with a new signing secret (secrets are never exported). */
  newWebhookSecrets: z.number().int(),
  /** Saved settings that take effect only after a restart. */
  restartRequired: z.boolean(),
  applied: z.boolean(),
});
export type ImportPlan = z.infer<typeof ImportPlanSchema>;

/** Parses a configuration file's text, with the same messages for the console and the CLI. */
export function parseConfigText(text: string): { ok: true; file: ConfigFile } | { ok: false; details: { field: string; message: string }[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return { ok: false, details: [{ field: '(file)', message: 'is not valid JSON' }] };
  }
  const r = ConfigFileSchema.safeParse(raw);
  if (r.success) return { ok: true, file: r.data };
  return { ok: false, details: r.error.issues.map((i) => ({ field: i.path.join('.') || '(file)', message: i.message })) };
}
