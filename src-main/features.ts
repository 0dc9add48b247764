// The list of product features and what each plugs into the composition root: verification kinds, queue job
// handlers, HTTP routes, console channel handlers and background loops. Adding a feature is one entry here.
import type { CoreRuntime } from './core/runtime';
import type { KindSpec, VerificationKind } from './core/verification/types';
import type { ConsoleContext, Handlers } from './console/handlers';
import type { HttpDoor } from './http/app';
import type { JobHandler } from './jobs/worker';
import { accountSpec } from './core/verification/account-spec';
import { webhooksFeature } from './feature-webhooks';
import { routingFeature } from './feature-routing';
import { providersFeature } from './feature-providers';
import { dashboardFeature } from './feature-dashboard';
import { settingsFeature } from './feature-settings';
import { verificationFeature } from './feature-verification';
import { backupsFeature } from './feature-backups';
import { auditFeature } from './feature-audit';
import { housekeepingFeature } from './feature-housekeeping';
import { demoFeature } from './feature-demo';
import { searchFeature } from './feature-search';

export interface FeatureRuntime {
  rt: CoreRuntime;
  /** Wakes the queue worker after jobs were enqueued. */
  wake(): void;
}

export interface Feature {
  name: string;
  specs?: Partial<Record<VerificationKind, KindSpec<unknown>>>;
  jobHandlers?: (f: FeatureRuntime) => Record<string, JobHandler>;
  httpRoutes?: (door: HttpDoor) => void;
  consoleHandlers?: (ctx: ConsoleContext) => Partial<Handlers>;
  /** Background loops (e.g. the webhook dispatcher); stop() must drain and return. */
  start?: (f: FeatureRuntime) => { stop(): Promise<void> } | void;
}

const accountFeature: Feature = {
  name: 'account-verification',
  specs: { account: accountSpec as KindSpec<unknown> },
};

export const FEATURES: readonly Feature[] = [
  accountFeature,
  verificationFeature,
  webhooksFeature,
  routingFeature,
  providersFeature,
  dashboardFeature,
  settingsFeature,
  backupsFeature,
  auditFeature,
  demoFeature,
  housekeepingFeature,
  searchFeature,
];
