// The live event hub and its change notes: events only for committed changes (a rolled-back savepoint announces
// nothing), published after the commit, ids increasing, a bounded replay buffer whose overflow means "reset".
import { describe, expect, it } from 'vitest';
import { attachLiveEvents, LiveEventHub } from '../../../src-main/core/events/live-events';
import { sseComment, sseFrame, sseRetry } from '../../../src-main/console/sse';
import { openDatabase } from '../../../src-main/store/database';
import { GroupCommitter } from '../../../src-main/store/group-commit';
import type { LiveMessage } from '../../../src-shared/live-events';

const ev = (n: number, org = 'org_a') => ({ organizationId: org, environment: 'sandbox' as const, kind: 'verification.created' as const, ids: { verificationId: `ver_${n}` } });

describe('LiveEventHub', () => {
  it('replays what followed a resume point, and resets when that point fell out of the buffer', () => {
    const hub = new LiveEventHub(3, 'boot1');
    const start = hub.lastId;
    hub.publish([ev(1), ev(2)]);
    expect((hub.since(start) as { ids: unknown }[]).map((e) => e.ids)).toEqual([{ verificationId: 'ver_1' }, { verificationId: 'ver_2' }]);
    hub.publish([ev(3), ev(4)]);
    // Event 1 was dropped (capacity 3): a subscriber that saw nothing after `start` missed it.
    expect(hub.since(start)).toBe('reset');
    expect((hub.since('boot1-1') as unknown[]).length).toBe(3);
    expect(hub.since(hub.lastId)).toEqual([]);
    expect(hub.since('boot0-1')).toBe('reset');
    expect(hub.since('boot1-99')).toBe('reset');
  });

  it("hands each subscriber its own organization's events only, replayed first on a resume", () => {
    const hub = new LiveEventHub(10, 'b');
    hub.publish([ev(1), ev(2, 'org_b')]);
    const got: LiveMessage[] = [];
    const off = hub.subscribe('org_a', (m) => got.push(m), 'b-0');
    hub.publish([ev(3, 'org_b'), ev(4)]);
    off();
    hub.publish([ev(5)]);
    expect(got.map((m) => (m.type === 'event' ? m.event.ids.verificationId : 'reset'))).toEqual(['ver_1', 'ver_4']);
    const reset: LiveMessage[] = [];
    hub.subscribe('org_a', (m) => reset.push(m), 'x-1');
    expect(reset).toEqual([{ type: 'reset' }]);
  });
});

describe('change notes', () => {
  function store() {
    const db = openDatabase(':memory:');
    const committer = new GroupCommitter(db);
    const hub = attachLiveEvents(db, undefined, new LiveEventHub(100, 't'));
    db.prepare(`INSERT INTO organizations (id, name, created_at) VALUES ('org_a', 'A', '2026-01-01T00:00:00Z')`).run();
    const got: LiveMessage[] = [];
    hub.subscribe('org_a', (m) => got.push(m));
    return { db, committer, got };
  }
  const insert = (db: ReturnType<typeof openDatabase>, id: string) =>
    db
      .prepare(
        `INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode, request, result, created_at)
         VALUES (?, 'org_a', 'sandbox', 'account', 'bank_account', 'NG', '0123456789', 'pending', 'async', '{}', '{}', '2026-01-01T00:00:00Z')`,
      )
      .run(id);

  it('publishes committed changes after the commit resolves, and nothing for a rolled-back write', async () => {
    const { db, committer, got } = store();
    const kept = committer.commit(() => insert(db, 'ver_kept'));
    const failed = committer.commit(() => {
      insert(db, 'ver_rolled_back');
      throw new Error('refused');
    });
    // Nothing is announced before the commit has resolved.
    expect(got).toEqual([]);
    await kept;
    await expect(failed).rejects.toThrow('refused');
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const ids = got.map((m) => (m.type === 'event' ? m.event.ids.verificationId : null));
    expect(ids).toEqual(['ver_kept']);
    db.prepare(`UPDATE verifications SET status = 'success' WHERE id = 'ver_kept'`).run();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(got.map((m) => (m.type === 'event' ? m.event.kind : null))).toEqual(['verification.created', 'verification.updated']);
    db.close();
  });
});

describe('recording on demand', () => {
  it('records nothing without a subscriber (after the linger), and a resume across that gap is a reset', async () => {
    const db = openDatabase(':memory:');
    new GroupCommitter(db);
    const hub = attachLiveEvents(db, undefined, new LiveEventHub(100, 't'), 0);
    db.prepare(`INSERT INTO organizations (id, name, created_at) VALUES ('org_a', 'A', '2026-01-01T00:00:00Z')`).run();
    const insert = (id: string) =>
      db
        .prepare(
          `INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode, request, result, created_at)
           VALUES (?, 'org_a', 'sandbox', 'account', 'bank_account', 'NG', '0123456789', 'pending', 'async', '{}', '{}', '2026-01-01T00:00:00Z')`,
        )
        .run(id);
    const settle = async () => {
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    };
    const triggers = () => (db.prepare("SELECT count(*) AS n FROM sqlite_temp_master WHERE type = 'trigger'").get() as { n: number }).n;
    expect(triggers()).toBe(0);
    insert('ver_unheard');
    const got: LiveMessage[] = [];
    const off = hub.subscribe('org_a', (m) => got.push(m));
    expect(triggers()).toBeGreaterThan(0);
    const seen = hub.lastId;
    insert('ver_heard');
    await settle();
    expect(got.map((m) => (m.type === 'event' ? m.event.ids.verificationId : 'reset'))).toEqual(['ver_heard']);
    off();
    await new Promise((r) => setTimeout(r, 5));
    expect(triggers()).toBe(0);
    insert('ver_in_the_gap');
    await settle();
    const again: LiveMessage[] = [];
    hub.subscribe('org_a', (m) => again.push(m), seen);
    expect(again).toEqual([{ type: 'reset' }]);
    db.close();
  });
});

describe('SSE framing', () => {
  it('writes fields, one data line per line, and strips line breaks from ids and names', () => {
    expect(sseFrame({ id: 'a-1', event: 'change', data: '{"x":1}' })).toBe('event: change\nid: a-1\ndata: {"x":1}\n\n');
    expect(sseFrame({ data: 'one\ntwo\r\nthree' })).toBe('data: one\ndata: two\ndata: three\n\n');
    expect(sseFrame({ id: 'a\n-1\0', event: 'x\ry', data: '' })).toBe('event: xy\nid: a-1\ndata: \n\n');
    expect(sseComment('keep\nalive')).toBe(': keepalive\n\n');
    expect(sseRetry(1500.7)).toBe('retry: 1500\n\n');
  });
});
