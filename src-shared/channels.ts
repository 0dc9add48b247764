// The console contract: one typed map of `domain:verb` channels to input and output schemas. The ipcMain
// registration, the preload allowlist, the headless web bridge and the renderer client are all derived from it,
// so no list of channel names is ever written twice.
import { z } from 'zod';
import { EnvironmentSchema, PaginationSchema } from './schemas/common';
import { SandboxFixtureSchema } from './schemas/sandbox';
import { ApiKeySchema, CreatedKeySchema, CreateKeyRequestSchema, RevokedKeySchema } from './schemas/keys';
import { AccountRequestSchema, VerificationListQuerySchema, VerificationRecordSchema } from './schemas/verification';
import { routingChannels } from './channels-routing';
import { providerChannels } from './channels-providers';
import { verificationChannels } from './channels-verification';
import { webhookChannels } from './channels-webhooks';
import { dashboardChannels } from './channels-dashboard';
import { settingsChannels } from './channels-settings';
import { backupChannels } from './channels-backups';
import { auditChannels } from './channels-audit';
import { historyChannels } from './channels-history';
import { demoChannels } from './channels-demo';
import { ORGANIZATION_NAME_MAX, PASSWORD_MAX, PASSWORD_MIN, RoleSchema } from './schemas/auth';
import { channel, type ChannelDef } from './channel-def';

/** Merges per-domain channel maps; a channel defined twice is an error at start. */
export type { ChannelDef };

export function mergeChannels<T extends Record<string, ChannelDef>[]>(...maps: T): UnionToIntersection<T[number]> {
  const out: Record<string, ChannelDef> = {};
  for (const m of maps) {
    for (const [name, def] of Object.entries(m)) {
      if (name in out) throw new Error(`Duplicate console channel: ${name}`);
      if (!/^[a-z]+:[a-zA-Z]+$/.test(name)) throw new Error(`Console channel names are domain:verb, got ${name}`);
      out[name] = def;
    }
  }
  return out as UnionToIntersection<T[number]>;
}
type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;

const Empty = z.object({}).strict();

export const AppInfoSchema = z.object({
  version: z.string(),
  apiBaseUrl: z.string().nullable(),
  dataDir: z.string(),
  needsSetup: z.boolean(),
  organizationId: z.string().nullable(),
  door: z.enum(['electron', 'web']),
  developerOptions: z.object({ allowWebhookHosts: z.array(z.string()), retryUnitMs: z.number() }),
  warnings: z.array(z.string()),
  /** How the web console is entered: a one-time link (desktop, loopback) or signing in (a team server). */
  signIn: z.enum(['link', 'password']),
  /** The signed-in user on a team server; null where the console acts as the owner. */
  user: z.object({ id: z.string(), email: z.string(), role: RoleSchema }).nullable(),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

export const BootstrapInputSchema = z.object({
  email: z.string().trim().email().max(254),
  password: z.string().min(PASSWORD_MIN).max(PASSWORD_MAX),
  organizationName: z.string().trim().min(1).max(ORGANIZATION_NAME_MAX).optional(),
});
export const BootstrapOutputSchema = z.object({
  organizationId: z.string(),
  owner: z.object({ id: z.string(), email: z.string() }),
  keys: z.object({ sandbox: CreatedKeySchema, live: CreatedKeySchema }),
});

export type { SandboxFixture } from './schemas/sandbox';

const appChannels = {
  'app:info': channel(Empty, AppInfoSchema),
  'setup:bootstrap': channel(BootstrapInputSchema, BootstrapOutputSchema),
  'sandbox:fixtures': channel(Empty, z.array(SandboxFixtureSchema)),
};

const keyChannels = {
  'keys:list': channel(Empty, z.array(ApiKeySchema)),
  'keys:create': channel(CreateKeyRequestSchema, CreatedKeySchema),
  'keys:revoke': channel(z.object({ id: z.string().max(100) }), RevokedKeySchema),
};

const verifyChannels = {
  'verify:account': channel(z.object({ environment: EnvironmentSchema, request: AccountRequestSchema }), VerificationRecordSchema.partial().required({ id: true, status: true })),
  'verify:get': channel(z.object({ environment: EnvironmentSchema, id: z.string().max(100) }), VerificationRecordSchema),
  'verify:list': channel(
    z.object({ environment: EnvironmentSchema, query: VerificationListQuerySchema.partial() }),
    z.object({ data: z.array(VerificationRecordSchema), pagination: PaginationSchema }),
  ),
};

export const CHANNELS = mergeChannels(appChannels, keyChannels, verifyChannels, verificationChannels, webhookChannels, routingChannels, dashboardChannels, settingsChannels, providerChannels, backupChannels, auditChannels, historyChannels, demoChannels);
export type Channels = typeof CHANNELS;
export type ChannelName = keyof Channels & string;
export const CHANNEL_NAMES = Object.keys(CHANNELS) as ChannelName[];

export type ChannelInput<K extends ChannelName> = z.input<Channels[K]['input']>;
export type ChannelOutput<K extends ChannelName> = z.output<Channels[K]['output']>;

export interface BridgeError {
  code: string;
  message: string;
  hint?: string;
  details?: { field: string; message: string }[];
}
export type BridgeResult<T> = { ok: true; value: T } | { ok: false; error: BridgeError };
