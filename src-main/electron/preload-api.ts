// What the preload hands to contextBridge, built from injected ipc/webUtils so unit tests can exercise the exact
// surface the page sees: `invoke` for the console channels only, and `pathForFile` for dropped files.
export interface PreloadIpc {
  invoke(channel: string, input: unknown): Promise<unknown>;
}

export interface PreloadWebUtils {
  getPathForFile(file: never): string;
}

export interface ConsoleBridge {
  invoke(channel: string, input: unknown): Promise<unknown>;
  pathForFile(file: unknown): string;
}

export function buildConsoleBridge(ipc: PreloadIpc, webUtils: PreloadWebUtils, channels: readonly string[]): ConsoleBridge {
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
  });
}
