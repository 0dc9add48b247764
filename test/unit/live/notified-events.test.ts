// The team server's side of live events and settings (core/events/live-events.ts attachNotifiedLiveEvents,
// core/settings/settings-sync.ts): what an instance makes of the notifications its LISTEN connection hands it. The
// notification source here is the test's (PostgreSQL's own sending is test/integration/pg/change-notifications and
// team-live); the settings are a real SQLite store.
import { describe, expect, it } from 'vitest';
import { attachNotifiedLiveEvents, LiveEventHub, liveEventsOf } from '../../../src-main/core/events/live-events';
import { followSettings } from '../../../src-main/core/settings/settings-sync';
import { writePersistedSettings } from '../../../src-main/core/settings/settings-store';
import type { ChannelListener, NotificationSource } from '../../../src-main/store/notifications';
import type { LiveMessage } from '../../../src-shared/live-events';
import { testDeps } from '../../helpers/core-deps';

/** A notification source the test drives: `send` is a notification, `resume` a LISTEN connection that came back. */
class Source implements NotificationSource {
  readonly listeners = new Map<string, ChannelListener>();
  readonly demands: boolean[] = [];
  demandLiveEvents(on: boolean): Promise<void> {
    this.demands.push(on);
    return Promise.resolve();
  }
  listenTo(channel: string, l: ChannelListener): Promise<() => void> {
    this.listeners.set(channel, l);
    return Promise.resolve(() => this.listeners.delete(channel));
  }
  send(channel: string, payload: string) {
    this.listeners.get(channel)?.notify(payload);
  }
  resume(channel: string) {
    this.listeners.get(channel)?.resumed?.();
  }
}

const turn = () => new Promise((r) => setImmediate(r));
const row = (v: string, o = 'org_a') => ({ o, e: 'sandbox', k: 'verification.created', v });
const ids = (got: LiveMessage[]) => got.map((m) => (m.type === 'event' ? (m.event.ids.verificationId ?? m.event.kind) : 'reset'));

describe('live events from notifications', () => {
  it('publishes the notifications of one commit as one batch, identical events once, for the subscribed organization', async () => {
    const source = new Source();
    const store = {};
    const hub = await attachNotifiedLiveEvents(store, source, undefined, new LiveEventHub(100, 't'));
    expect(liveEventsOf({ sql: store as never })).toBe(hub);
    const got: LiveMessage[] = [];
    hub.subscribe('org_a', (m) => got.push(m));
    source.send('vc_events', JSON.stringify([row('ver_1'), row('ver_2', 'org_b')]));
    source.send('vc_events', JSON.stringify([row('ver_1'), { o: 'org_a', k: 'wallet.updated' }]));
    expect(got).toEqual([]);
    await turn();
    expect(ids(got)).toEqual(['ver_1', 'wallet.updated']);
    expect(got[1]).toMatchObject({ type: 'event', event: { organizationId: 'org_a', environment: null, kind: 'wallet.updated', ids: {} } });
    // Malformed rows and payloads are left out; the rest of a list still counts.
    source.send('vc_events', 'not json');
    source.send('vc_events', JSON.stringify([{ o: 'org_a', k: 'nope' }, { o: 'org_a', e: 'moon', k: 'verification.created' }, row('ver_3')]));
    await turn();
    expect(ids(got)).toEqual(['ver_1', 'wallet.updated', 'ver_3']);
  });

  it('records only while someone subscribes (and the linger after), each time in a new period', async () => {
    const source = new Source();
    const hub = await attachNotifiedLiveEvents({}, source, undefined, new LiveEventHub(100, 't'), 0);
    source.send('vc_events', JSON.stringify([row('ver_before')]));
    await turn();
    expect(hub.lastId).toBe('t-0');
    expect(source.demands).toEqual([]);
    const got: LiveMessage[] = [];
    const off = hub.subscribe('org_a', (m) => got.push(m));
    // Recording tells the database the events are wanted (the triggers send only then).
    expect(source.demands).toEqual([true]);
    await hub.recording();
    const period = hub.boot;
    expect(period).not.toBe('t');
    source.send('vc_events', JSON.stringify([row('ver_1')]));
    await turn();
    expect(ids(got)).toEqual(['ver_1']);
    off();
    await new Promise((r) => setTimeout(r, 5));
    source.send('vc_events', JSON.stringify([row('ver_after')]));
    await turn();
    expect(hub.lastId).toBe(`${period}-1`);
    expect(source.demands).toEqual([true, false]);
    // A resume from the first period now finds a new one: a reset.
    const again: LiveMessage[] = [];
    hub.subscribe('org_a', (m) => again.push(m), `${period}-1`);
    expect(again).toEqual([{ type: 'reset' }]);
  });

  it('sends every subscriber a reset when the LISTEN connection is back (what was sent meanwhile is lost)', async () => {
    const source = new Source();
    const hub = await attachNotifiedLiveEvents({}, source, undefined, new LiveEventHub(100, 't'));
    const got: LiveMessage[] = [];
    hub.subscribe('org_a', (m) => got.push(m));
    source.send('vc_events', JSON.stringify([row('ver_1')]));
    const before = hub.boot;
    source.resume('vc_events');
    // What had arrived before the loss is published first, then the reset.
    expect(ids(got)).toEqual(['ver_1', 'reset']);
    expect(hub.boot).not.toBe(before);
  });
});

describe('settings followed across instances', () => {
  it('applies a rate limit saved elsewhere, keeps a start flag until a new limit is saved, and reloads when the connection is back', async () => {
    const deps = testDeps({ config: { rateLimitPerMinute: 100 } });
    await writePersistedSettings(deps.sql, { rateLimitPerMinute: 200 });
    const source = new Source();
    // Started with --rate-limit 100 while 200 was saved: the flag is in force.
    const follower = await followSettings(deps, source, { rateLimitPerMinute: 200 });
    expect(deps.config.rateLimitPerMinute).toBe(100);
    // Another setting changed: the flag stays.
    await writePersistedSettings(deps.sql, { port: 4999 });
    source.send('vc_settings', '');
    await follower.idle();
    expect(deps.config.rateLimitPerMinute).toBe(100);
    // A new limit saved (by another instance): applied here, as the saving instance applied it.
    await writePersistedSettings(deps.sql, { rateLimitPerMinute: 300 });
    source.send('vc_settings', '');
    await follower.idle();
    expect(deps.config.rateLimitPerMinute).toBe(300);
    // Saved while the LISTEN connection was down (no notification): read when it is back.
    await writePersistedSettings(deps.sql, { rateLimitPerMinute: 0 });
    source.resume('vc_settings');
    await follower.idle();
    expect(deps.config.rateLimitPerMinute).toBe(0);
    follower.stop();
    expect(source.listeners.size).toBe(0);
  });

  it('ends at the latest saved value when changes follow each other quickly', async () => {
    const deps = testDeps({ config: { rateLimitPerMinute: 1 } });
    const source = new Source();
    const follower = await followSettings(deps, source, {});
    await writePersistedSettings(deps.sql, { rateLimitPerMinute: 2 });
    source.send('vc_settings', '');
    await writePersistedSettings(deps.sql, { rateLimitPerMinute: 3 });
    source.send('vc_settings', '');
    await follower.idle();
    expect(deps.config.rateLimitPerMinute).toBe(3);
  });
});
