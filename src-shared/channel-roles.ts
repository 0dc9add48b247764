// Who may call each console channel: the lowest role (OWNER > ADMIN > DEVELOPER) that may. The console door checks
// it centrally before any handler runs (src-main/console/handlers.ts, dispatch) for a signed-in team user; the
// renderer reads the same table to hide or disable what the signed-in role cannot do. A channel without an entry
// does not compile (the Record below) and fails a unit test (test/unit/console/channel-roles.test.ts).
// The core keeps its own finer rules on top (e.g. only an owner makes someone an owner: core/settings/users.ts).
import type { Role } from './schemas/auth';
import type { ChannelName } from './channels';

/** Rank of a role: a role may do what any role of lower or equal rank may. */
export const ROLE_RANK: Record<Role, number> = { DEVELOPER: 1, ADMIN: 2, OWNER: 3 };

export const CHANNEL_MIN_ROLE: Record<ChannelName, Role> = {
  // The shell and reference data.
  'app:info': 'DEVELOPER',
  'setup:bootstrap': 'OWNER',
  'sandbox:fixtures': 'DEVELOPER',
  'dashboard:summary': 'DEVELOPER',
  'storage:status': 'DEVELOPER',
  // API keys: OWNER and ADMIN only, as in the API (decisions §6).
  'keys:list': 'ADMIN',
  'keys:create': 'ADMIN',
  'keys:revoke': 'ADMIN',
  // Verifications: what an API key (a DEVELOPER) may do.
  'verify:account': 'DEVELOPER',
  'verify:get': 'DEVELOPER',
  'verify:list': 'DEVELOPER',
  'verify:phone': 'DEVELOPER',
  'verify:identity': 'DEVELOPER',
  'verify:face': 'DEVELOPER',
  'verify:address': 'DEVELOPER',
  'history:search': 'DEVELOPER',
  'history:record': 'DEVELOPER',
  'lookup:id': 'DEVELOPER',
  // Billing: everyone reads; money, prices and enabled services are the admins'.
  'wallet:get': 'DEVELOPER',
  'usage:list': 'DEVELOPER',
  'prices:list': 'DEVELOPER',
  'services:list': 'DEVELOPER',
  'wallet:topUp': 'ADMIN',
  'wallet:setStatus': 'ADMIN',
  'prices:set': 'ADMIN',
  'services:enable': 'ADMIN',
  'services:disable': 'ADMIN',
  // Webhooks: any role manages them, as in the API (decisions §6); recovery and the forward are the admins'.
  'webhooks:list': 'DEVELOPER',
  'webhooks:create': 'DEVELOPER',
  'webhooks:update': 'DEVELOPER',
  'webhooks:rotate': 'DEVELOPER',
  'webhooks:delete': 'DEVELOPER',
  'webhooks:deliveries': 'DEVELOPER',
  'webhooks:delivery': 'DEVELOPER',
  'webhooks:timeline': 'DEVELOPER',
  'webhooks:replay': 'DEVELOPER',
  'webhooks:retryNow': 'DEVELOPER',
  'webhooks:alerts': 'DEVELOPER',
  'webhooks:trigger': 'DEVELOPER',
  'webhooks:getForward': 'DEVELOPER',
  'webhooks:setForward': 'ADMIN',
  'webhooks:recoverPreview': 'ADMIN',
  'webhooks:recover': 'ADMIN',
  // Routing checks and batches run as a DEVELOPER may; importing a directory changes everyone's answers.
  'routing:bic': 'DEVELOPER',
  'routing:routingNumber': 'DEVELOPER',
  'routing:correspondents': 'DEVELOPER',
  'routing:batch': 'DEVELOPER',
  'routing:directories': 'DEVELOPER',
  'routing:import': 'ADMIN',
  'batch:preview': 'DEVELOPER',
  'batch:start': 'DEVELOPER',
  'batch:progress': 'DEVELOPER',
  'batch:cancel': 'DEVELOPER',
  'batch:list': 'DEVELOPER',
  'batch:results': 'DEVELOPER',
  // Settings: everyone reads the service settings; changes, users and the configuration file are the admins'.
  'settings:get': 'DEVELOPER',
  'settings:update': 'ADMIN',
  'users:list': 'ADMIN',
  'users:create': 'ADMIN',
  'users:setRole': 'ADMIN',
  'users:deactivate': 'ADMIN',
  'users:reactivate': 'ADMIN',
  'config:export': 'ADMIN',
  'config:preview': 'ADMIN',
  'config:import': 'ADMIN',
  // Live providers hold the installation's upstream credentials: the owners'.
  'providers:list': 'ADMIN',
  'providers:set': 'OWNER',
  'providers:remove': 'OWNER',
  'providers:test': 'ADMIN',
  'providers:cacheTtl': 'OWNER',
  // Backups: admins list and take them; restoring replaces everything, so it is the owners'.
  'backups:list': 'ADMIN',
  'backups:create': 'ADMIN',
  'backups:schedule': 'ADMIN',
  'backups:restoreAtRestart': 'OWNER',
  'backups:cancelRestore': 'OWNER',
  // The audit trail: OWNER and ADMIN, as in the API; its retention is the owners'.
  'audit:list': 'ADMIN',
  'audit:export': 'ADMIN',
  'audit:verify': 'ADMIN',
  'audit:setRetention': 'OWNER',
  // Demo data: everyone sees whether it is there; loading and removing it is the admins'.
  'demo:status': 'DEVELOPER',
  'demo:load': 'ADMIN',
  'demo:remove': 'ADMIN',
};

/** Whether `role` may call `channel`; a name outside the table is never allowed. */
export function roleMayCall(role: Role, channel: string): boolean {
  if (!Object.hasOwn(CHANNEL_MIN_ROLE, channel)) return false;
  return ROLE_RANK[role] >= ROLE_RANK[CHANNEL_MIN_ROLE[channel as ChannelName]];
}

/**
 * A backup that includes the data key (secret.key) opens every sealed secret — provider credentials, webhook signing
 * secrets — so only whoever may restore a backup may make one: an owner. An admin backs up without the key.
 */
export function mayBackUpWithKey(role: Role): boolean {
  return roleMayCall(role, 'backups:restoreAtRestart');
}

/** Channels whose input names a file on the service's disk: a team user may only name files they uploaded. */
export const PATH_CHANNELS: readonly ChannelName[] = ['routing:import', 'batch:preview', 'batch:start'];
