// The preload's plain list of channel names is the channel map's, exactly (it exists only to keep zod out of the
// sandboxed preload), and the preload imports nothing heavier than it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../../../src-shared/channels';
import { EVENT_CHANNEL_NAMES, LIVE_CHANNEL, REQUEST_CHANNEL_NAMES } from '../../../src-shared/channel-names';
import { EVENT_CHANNELS } from '../../../src-shared/live-events';

describe('channel names for the preload', () => {
  it('lists every request channel of the map once, and nothing else', () => {
    expect([...REQUEST_CHANNEL_NAMES].sort()).toEqual(Object.keys(CHANNELS).sort());
    expect(new Set(REQUEST_CHANNEL_NAMES).size).toBe(REQUEST_CHANNEL_NAMES.length);
  });
  it('lists the event channels of the contract, apart from the request channels', () => {
    expect([...EVENT_CHANNEL_NAMES].sort()).toEqual(Object.keys(EVENT_CHANNELS).sort());
    expect(REQUEST_CHANNEL_NAMES).not.toContain(LIVE_CHANNEL);
  });
  it('keeps zod and the channel map out of the preload', () => {
    for (const f of ['src-main/electron/preload.ts', 'src-main/electron/preload-api.ts', 'src-shared/channel-names.ts']) {
      const text = readFileSync(f, 'utf8');
      expect(text, f).not.toMatch(/from ['"]zod['"]/);
      expect(text, f).not.toMatch(/src-shared\/channels['"]/);
    }
  });
});
