// The preload: exposes `window.vc` — `invoke(channel, input)` for the channels of the console contract and
// `pathForFile(file)` for dropped files — and nothing else. The allowlist is derived from the channel map.
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { CHANNEL_NAMES } from '../../src-shared/channels';
import { buildConsoleBridge } from './preload-api';

contextBridge.exposeInMainWorld('vc', buildConsoleBridge(ipcRenderer, webUtils, CHANNEL_NAMES));
