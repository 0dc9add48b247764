// The surface the Electron preload exposes to the page; absent when the console runs in a browser.
import type { BridgeResult } from '../src-shared/channels';

declare global {
  interface Window {
    vc?: {
      invoke(channel: string, input: unknown): Promise<BridgeResult<unknown>>;
      /** The local path of a dropped or picked file (Electron's webUtils.getPathForFile); absent in a browser. */
      pathForFile?(file: File): string;
      /** Live change events (src-shared/live-events.ts); returns the unsubscribe function. */
      subscribe?(fn: (message: unknown) => void): () => void;
    };
  }
}

export {};
