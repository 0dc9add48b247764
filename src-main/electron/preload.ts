// The preload: exposes `window.vc` — `invoke(channel, input)` for the channels of the console contract,
// `pathForFile(file)` for dropped files and `subscribe(fn)` for live change messages — and nothing else. The
// allowlist is the plain list of channel names (no zod in a sandboxed CommonJS preload).
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { LIVE_CHANNEL, REQUEST_CHANNEL_NAMES } from '../../src-shared/channel-names';
import { buildConsoleBridge } from './preload-api';

contextBridge.exposeInMainWorld('vc', buildConsoleBridge(ipcRenderer, webUtils, REQUEST_CHANNEL_NAMES, LIVE_CHANNEL));
