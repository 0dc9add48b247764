// The running service's facts (app:info) for any component under the shell: version, API URL, door, and the
// developer options in force (so, e.g., the webhook form can say which loopback hosts this run allows).
import { createContext, useContext } from 'react';
import type { AppInfo } from '../../src-shared/channels';

export const AppInfoContext = createContext<AppInfo | null>(null);

export function useAppInfo(): AppInfo | null {
  return useContext(AppInfoContext);
}
