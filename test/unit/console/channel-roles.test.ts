// The console's authorization table (src-shared/channel-roles.ts): every channel of the contract has exactly one
// minimum role, so a channel added without deciding who may call it fails here (and does not compile).
import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../../../src-shared/channels';
import { REQUEST_CHANNEL_NAMES } from '../../../src-shared/channel-names';
import { CHANNEL_MIN_ROLE, PATH_CHANNELS, ROLE_RANK, roleMayCall } from '../../../src-shared/channel-roles';
import { RoleSchema } from '../../../src-shared/schemas/auth';

describe('channel → minimum role', () => {
  it('has an entry for every channel of the contract, and none for a channel that does not exist', () => {
    const missing = Object.keys(CHANNELS).filter((c) => !Object.hasOwn(CHANNEL_MIN_ROLE, c));
    expect(missing, 'channels without an authorization entry').toEqual([]);
    const extra = Object.keys(CHANNEL_MIN_ROLE).filter((c) => !Object.hasOwn(CHANNELS, c));
    expect(extra, 'entries for unknown channels').toEqual([]);
    expect(Object.keys(CHANNEL_MIN_ROLE).sort()).toEqual([...REQUEST_CHANNEL_NAMES].sort());
  });

  it('names a real role for each channel', () => {
    for (const [channel, role] of Object.entries(CHANNEL_MIN_ROLE)) expect(RoleSchema.safeParse(role).success, channel).toBe(true);
  });

  it('ranks OWNER over ADMIN over DEVELOPER, and a higher role may do what a lower one may', () => {
    expect(ROLE_RANK.OWNER).toBeGreaterThan(ROLE_RANK.ADMIN);
    expect(ROLE_RANK.ADMIN).toBeGreaterThan(ROLE_RANK.DEVELOPER);
    for (const channel of Object.keys(CHANNELS)) {
      if (roleMayCall('DEVELOPER', channel)) expect(roleMayCall('ADMIN', channel), channel).toBe(true);
      if (roleMayCall('ADMIN', channel)) expect(roleMayCall('OWNER', channel), channel).toBe(true);
      expect(roleMayCall('OWNER', channel), `an owner may call ${channel}`).toBe(true);
    }
  });

  it('allows nothing outside the table, whatever the role', () => {
    for (const name of ['no:such', '__proto__', 'constructor', 'toString', '']) {
      for (const role of RoleSchema.options) expect(roleMayCall(role, name), `${role} ${name}`).toBe(false);
    }
  });

  it('keeps what the API keeps for owners and admins out of a developer’s reach', () => {
    for (const c of ['keys:create', 'keys:list', 'keys:revoke', 'users:create', 'users:setRole', 'audit:list', 'settings:update', 'wallet:topUp', 'providers:set', 'backups:restoreAtRestart'] as const) {
      expect(roleMayCall('DEVELOPER', c), c).toBe(false);
    }
    for (const c of ['providers:set', 'backups:restoreAtRestart', 'audit:setRetention'] as const) expect(roleMayCall('ADMIN', c), c).toBe(false);
  });

  it('lists the channels whose input is a file path, which all take a `path`', () => {
    for (const c of PATH_CHANNELS) {
      const shape = (CHANNELS[c].input as unknown as { shape?: Record<string, unknown> }).shape;
      expect(shape && 'path' in shape, c).toBe(true);
    }
    const withPath = Object.entries(CHANNELS)
      .filter(([, def]) => {
        const shape = (def.input as unknown as { shape?: Record<string, unknown> }).shape;
        return shape !== undefined && 'path' in shape;
      })
      .map(([name]) => name);
    expect(withPath.sort()).toEqual([...PATH_CHANNELS].sort());
  });
});
