// The live event hub and its change notes: events only for committed changes (a rolled-back savepoint announces
// nothing), published after the commit, ids increasing, a bounded replay buffer whose overflow means "reset".
import type { WebContents } from 'electron';
import { describe, expect, it } from 'vitest';
import { attachLiveEvents, LiveEventHub } from '../../../src-main/core/events/live-events';
import { sseComment, sseFrame, sseRetry } from '../../../src-main/console/sse';
import { forwardLiveEvents } from '../../../src-main/electron/live-events';
import type { RunningService } from '../../../src-main/service';
import { openDatabase } from '../../../src-main/store/database';
import { GroupCommitter } from '../../../src-main/store/group-commit';
import { createServicePort } from '../../../src-main/store/service-port';
import { insideTransaction } from '../../../src-main/store/tx-context';
import type { LiveMessage } from '../../../src-shared/live-events';
import { testDeps } from '../../helpers/core-deps';

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

describe('change notes of writes through the SQL port', () => {
  // The core writes through the port: its transactions span awaits, so a note's drain (a microtask after the
  // statement) comes while the transaction is still open. It must wait for the commit, with or without a group commit.
  for (const grouped of [true, false]) {
    it(`publishes only what committed, after the commit (${grouped ? 'group commit' : 'a transaction of its own'})`, async () => {
      const db = openDatabase(':memory:');
      const committer = grouped ? new GroupCommitter(db) : null;
      const sql = createServicePort(db, committer ? (fn) => committer.commit(fn) : undefined);
      const hub = attachLiveEvents(db, undefined, new LiveEventHub(100, 't'));
      db.prepare(`INSERT INTO organizations (id, name, created_at) VALUES ('org_a', 'A', '2026-01-01T00:00:00Z')`).run();
      const got: LiveMessage[] = [];
      hub.subscribe('org_a', (m) => got.push(m));
      const ids = () => got.map((m) => (m.type === 'event' ? m.event.ids.verificationId : 'reset'));
      const turns = async (n: number) => {
        for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
      };
      const insert = `INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode, request, result, created_at)
         VALUES (?, 'org_a', 'sandbox', 'account', 'bank_account', 'NG', '0123456789', 'pending', 'async', '{}', '{}', '2026-01-01T00:00:00Z')`;
      const refused = sql.transaction(async (tx) => {
        await tx.run(insert, ['ver_rolled_back']);
        // (A test may wait inside a transaction; the core never does.)
        await turns(3);
        throw new Error('refused');
      });
      await expect(refused).rejects.toThrow('refused');
      await sql.transaction(async (tx) => {
        await tx.run(insert, ['ver_kept']);
        await turns(3);
        expect(got).toEqual([]);
      });
      await turns(4);
      expect(ids()).toEqual(['ver_kept']);
      expect(db.prepare('SELECT count(*) AS n FROM temp.vc_live_notes').get()).toEqual({ n: 0 });
      await committer?.close();
      db.close();
    });
  }
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

describe('forwarding to the desktop window', () => {
  const INSERT_VER = `INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode, request, result, created_at)
         VALUES (?, ?, 'sandbox', 'account', 'bank_account', 'NG', '0123456789', 'pending', 'async', '{}', '{}', '2026-01-01T00:00:00Z')`;
  const insertVer = (db: ReturnType<typeof openDatabase>, id: string, org = 'org_a') => db.prepare(INSERT_VER).run(id, org);
  const turns = async (n = 4) => {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
  };

  function desktop(withOrg: boolean) {
    const db = openDatabase(':memory:');
    const committer = new GroupCommitter(db);
    attachLiveEvents(db, undefined, new LiveEventHub(100, 't'));
    if (withOrg) db.prepare(`INSERT INTO organizations (id, name, created_at) VALUES ('org_a', 'A', '2026-01-01T00:00:00Z')`).run();
    const sent: LiveMessage[] = [];
    const contents = { isDestroyed: () => false, send: (_channel: string, m: LiveMessage) => void sent.push(m) };
    const service = { deps: testDeps({ db }) } as unknown as RunningService;
    const stop = forwardLiveEvents(service, () => contents as unknown as WebContents);
    const seen = () => sent.map((m) => (m.type === 'event' ? m.event.ids.verificationId : 'reset'));
    return { db, committer, seen, stop };
  }

  it("forwards the console organization's events, and only its own", async () => {
    const { db, committer, seen, stop } = desktop(true);
    db.prepare(`INSERT INTO organizations (id, name, created_at) VALUES ('org_b', 'B', '2026-01-02T00:00:00Z')`).run();
    await turns();
    await committer.commit(() => {
      insertVer(db, 'ver_b', 'org_b');
      insertVer(db, 'ver_a');
    });
    await turns();
    expect(seen()).toEqual(['ver_a']);
    stop();
    db.close();
  });

  for (const grouped of [true, false]) {
    it(`finds an organization set up after start from changes written through the port (${grouped ? 'group commit' : 'transactions of their own'}), its listeners outside any transaction`, async () => {
      // The console writes through the SQL port: a change trigger queues the drain from inside the transaction's body.
      // The hub's listeners must not run in that transaction's async context, where the port is refused: the
      // forwarder's look-up of the organization failed there and every event was dropped until a restart.
      const db = openDatabase(':memory:');
      const committer = grouped ? new GroupCommitter(db) : null;
      const sql = createServicePort(db, committer ? (fn) => committer.commit(fn) : undefined);
      const hub = attachLiveEvents(db, undefined, new LiveEventHub(100, 't'));
      const warnings: unknown[] = [];
      const log = { info() {}, debug() {}, error() {}, warn: (o: unknown) => void warnings.push(o) } as never;
      const sent: LiveMessage[] = [];
      const contents = { isDestroyed: () => false, send: (_c: string, m: LiveMessage) => void sent.push(m) };
      const service = { deps: testDeps({ db, sql, log }) } as unknown as RunningService;
      const inside: boolean[] = [];
      const unsubscribe = hub.subscribe('org_a', () => void inside.push(insideTransaction()));
      const stop = forwardLiveEvents(service, () => contents as unknown as WebContents);
      await turns();
      db.prepare(`INSERT INTO organizations (id, name, created_at) VALUES ('org_a', 'A', '2026-01-01T00:00:00Z')`).run();
      await sql.transaction((tx) => tx.run(INSERT_VER, ['ver_first', 'org_a']));
      await turns();
      await sql.transaction((tx) => tx.run(INSERT_VER, ['ver_second', 'org_a']));
      await turns();
      expect(inside).toEqual([false, false]);
      expect(warnings).toEqual([]);
      expect(sent.map((m) => (m.type === 'event' ? m.event.ids.verificationId : 'reset'))).toEqual(['reset', 'ver_second']);
      unsubscribe();
      stop();
      await committer?.close();
      db.close();
    });
  }

  it('finds an organization set up after start; what came before it is known is a reset, not a loss', async () => {
    const { db, committer, seen, stop } = desktop(false);
    await turns();
    db.prepare(`INSERT INTO organizations (id, name, created_at) VALUES ('org_a', 'A', '2026-01-01T00:00:00Z')`).run();
    await committer.commit(() => insertVer(db, 'ver_first'));
    await turns();
    await committer.commit(() => insertVer(db, 'ver_second'));
    await turns();
    expect(seen()).toEqual(['reset', 'ver_second']);
    stop();
    db.close();
  });
});
