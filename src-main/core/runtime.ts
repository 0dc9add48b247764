// The running core as the doors see it: dependencies, the verification runtime, and facts about the listener.
import type { CoreDeps } from './context';
import type { VerificationRuntime } from './verification/engine';

export interface RuntimeInfo {
  version: string;
  apiBaseUrl: string | null;
  dataDir: string;
  /** Developer options in force (decisions §11); the console shows a warning while any is set. */
  developerOptions: { allowWebhookHosts: string[]; retryUnitMs: number };
}

export interface CoreRuntime {
  deps: CoreDeps;
  verification: VerificationRuntime;
  info(): RuntimeInfo;
}
