// What the preload hands to contextBridge, built from injected ipc/webUtils so unit tests can exercise the exact
// surface the page sees: `invoke` for the console channels only, `pathForFile` for dropped files, and `subscribe`
// for the live change messages (one fixed event channel; the page never sees the IPC event or ipcRenderer).
export interface PreloadIpc {
  invoke(channel: string, input: unknown): Promise<unknown>;
  on(channel: string, listener: (event: unknown, message: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, message: unknown) => void): unknown;
}

export interface PreloadWebUtils {
  getPathForFile(file: never): string;
}

export interface ConsoleBridge {
  invoke(channel: string, input: unknown): Promise<unknown>;
  pathForFile(file: unknown): string;
  subscribe(fn: (message: unknown) => void): () => void;
}

export function buildConsoleBridge(ipc: PreloadIpc, webUtils: PreloadWebUtils, channels: readonly string[], liveChannel = 'live:message'): ConsoleBridge {
  const allowed = new Set<string>(channels);
  // Frozen plain functions: the page cannot reach ipcRenderer or swap what the bridge calls.
  return Object.freeze({
    invoke(channel: string, input: unknown): Promise<unknown> {
      if (typeof channel !== 'string' || !allowed.has(channel)) {
        return Promise.resolve({ ok: false, error: { code: 'NOT_FOUND', message: `Unknown console channel ${String(channel)}.` } });
      }
      return ipc.invoke(channel, input);
    },
    pathForFile(file: unknown): string {
      // webUtils returns '' for a File the page built itself (not from disk); only real dropped/picked files have a path.
      if (typeof File !== 'undefined' && !(file instanceof File)) return '';
      try {
        return webUtils.getPathForFile(file as never);
      } catch {
        return '';
      }
    },
    subscribe(fn: (message: unknown) => void): () => void {
      if (typeof fn !== 'function') return () => {};
      // Only the message crosses: the IPC event (whose sender is ipcRenderer) stays in the preload.
      const listener = (_event: unknown, message: unknown) => fn(message);
      ipc.on(liveChannel, listener);
      return () => {
        ipc.removeListener(liveChannel, listener);
      };
    },
  });
}
