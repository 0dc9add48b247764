// Console channels of the dashboard (merged into CHANNELS by channels.ts): one summary read per refresh.
import { channel } from './channel-def';
import { DashboardInputSchema, DashboardSummarySchema } from './schemas/dashboard';

export const dashboardChannels = {
  'dashboard:summary': channel(DashboardInputSchema, DashboardSummarySchema),
};
export type DashboardChannels = typeof dashboardChannels;
