// The preload: exposes exactly one function, `window.vc.invoke(channel, input)`, for the channels of the console
// contract and nothing else. The allowlist is derived from the channel map, never written by hand.
import { contextBridge, ipcRenderer } from 'electron';
import { CHANNEL_NAMES } from '../../src-shared/channels';

const allowed = new Set<string>(CHANNEL_NAMES);

contextBridge.exposeInMainWorld('vc', {
  invoke(channel: string, input: unknown): Promise<unknown> {
    if (typeof channel !== 'string' || !allowed.has(channel)) {
      return Promise.resolve({ ok: false, error: { code: 'NOT_FOUND', message: `Unknown console channel ${String(channel)}.` } });
    }
    return ipcRenderer.invoke(channel, input);
  },
});
