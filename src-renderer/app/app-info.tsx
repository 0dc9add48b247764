// The running service's facts (app:info) for any component under the shell: version, API URL, door, and the
// developer options in force (so, e.g., the webhook form can say which loopback hosts this run allows).
import { createContext, useCallback, useContext } from 'react';
import type { AppInfo, ChannelName } from '../../src-shared/channels';
import { roleMayCall } from '../../src-shared/channel-roles';

export const AppInfoContext = createContext<AppInfo | null>(null);

export function useAppInfo(): AppInfo | null {
  return useContext(AppInfoContext);
}

/**
 * Whether the signed-in team user's role may use a channel (src-shared/channel-roles.ts), to hide or disable what
 * it cannot do; the service checks the same table on every call. Without a signed-in user the console acts as the
 * owner, and everything is allowed.
 */
export function canCall(info: AppInfo | null, channel: ChannelName): boolean {
  const user = info?.user;
  return !user || roleMayCall(user.role, channel);
}

export function useCan(): (channel: ChannelName) => boolean {
  const info = useAppInfo();
  return useCallback((channel: ChannelName) => canCall(info, channel), [info]);
}
