// The async pipeline's writes ride the group commit and its loops wake on signals: results still come back after
// the commit, a failing write still fails alone, a lost lease still refuses completion, and the dispatcher
// reacts to a committed outbox event without waiting for its poll.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import type { Logger } from '../../../src-main/core/context';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { startTestReceiver } from '../../../src-main/core/webhooks/test-receiver';
import { createWebhook } from '../../../src-main/core/webhooks/webhooks-service';
import { claim, complete, enqueue } from '../../../src-main/jobs/queue';
import { WebhookDispatcher } from '../../../src-main/jobs/webhook-dispatcher';
import { JobWorker } from '../../../src-main/jobs/worker';
import { createCore } from '../../../src-main/service';
import { openDatabase, type Db } from '../../../src-main/store/database';
import { commitThrough, GroupCommitter, onWork, signalWork } from '../../../src-main/store/group-commit';
import { createServicePort } from '../../../src-main/store/service-port';

function memDb(): Db {
  const db = openDatabase(':memory:');
  db.exec('CREATE TEMP TABLE t (v INTEGER NOT NULL UNIQUE)');
  return db;
}

/** Polls `cond` every few ms; fails after `limitMs` (a bound on a hang, not a timing assertion). */
async function until(cond: () => boolean, limitMs = 5_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('commitThrough', () => {
  it('runs writes of one tick in a shared transaction, returns each result after the commit, fails one alone', async () => {
    const db = memDb();
    new GroupCommitter(db);
    const seen: boolean[] = [];
    const results = await Promise.allSettled([
      commitThrough(db, () => {
        seen.push(db.inTransaction);
        db.prepare('INSERT INTO t (v) VALUES (1)').run();
        return 'a';
      }),
      commitThrough(db, () => {
        db.prepare('INSERT INTO t (v) VALUES (2)').run();
        db.prepare('INSERT INTO t (v) VALUES (1)').run(); // UNIQUE violation: this write alone rolls back
        return 'b';
      }),
      commitThrough(db, () => {
        db.prepare('INSERT INTO t (v) VALUES (3)').run();
        return 'c';
      }),
    ]);
    expect(seen).toEqual([true]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: 'a' });
    expect(results[1]?.status).toBe('rejected');
    expect(results[2]).toEqual({ status: 'fulfilled', value: 'c' });
    expect(db.inTransaction).toBe(false);
    expect((db.prepare('SELECT v FROM t ORDER BY v').all() as { v: number }[]).map((r) => r.v)).toEqual([1, 3]);
    db.close();
  });

  it('without a committer for the store (CLI, tests) commits in its own transaction', async () => {
    const db = memDb();
    const out = await commitThrough(db, () => {
      expect(db.inTransaction).toBe(true);
      db.prepare('INSERT INTO t (v) VALUES (7)').run();
      return 42;
    });
    expect(out).toBe(42);
    await expect(commitThrough(db, () => db.prepare('INSERT INTO t (v) VALUES (7)').run())).rejects.toThrow(/UNIQUE/);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    db.close();
  });
});

describe('work signals', () => {
  it('call listeners of that store and topic once, after the synchronous code that raised them', async () => {
    const a = memDb();
    const b = memDb();
    const calls: string[] = [];
    const off = onWork(a, 'outbox', () => calls.push('a-outbox'));
    onWork(a, 'jobs', () => calls.push('a-jobs'));
    onWork(b, 'outbox', () => calls.push('b-outbox'));
    a.transaction(() => {
      signalWork(a, 'outbox');
      signalWork(a, 'outbox');
      calls.push('in-transaction');
    })();
    expect(calls).toEqual(['in-transaction']);
    await Promise.resolve();
    expect(calls).toEqual(['in-transaction', 'a-outbox']);
    off();
    signalWork(a, 'outbox');
    await Promise.resolve();
    expect(calls).toEqual(['in-transaction', 'a-outbox']);
    a.close();
    b.close();
  });
});

describe('JobWorker through the group commit', () => {
  it('completes jobs, and a run whose lease was taken over is refused completion', async () => {
    const db = openDatabase(':memory:');
    const committer = new GroupCommitter(db);
    const sql = createServicePort(db, (fn) => committer.commit(fn));
    const clock = new ManualClock();
    const warnings: string[] = [];
    const log: Logger = { info() {}, debug() {}, error() {}, warn: (_o, msg) => void warnings.push(String(msg)) };
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let runs = 0;
    const worker = new JobWorker({
      sql,
      clock,
      log,
      leaseMs: 1_000,
      maxIdleMs: 20,
      handlers: {
        slow: async () => {
          runs++;
          await gate;
        },
        quick: async () => {},
      },
    });
    const now = clock.now();
    const slow = await enqueue(sql, now, 'slow', {});
    const quick = await enqueue(sql, now, 'quick', {});
    worker.start();
    worker.wake();
    const state = (id: string) => db.prepare('SELECT state, lease_token FROM jobs WHERE id = ?').get(id) as { state: string; lease_token: string | null };
    await until(() => runs === 1 && state(quick).state === 'done');

    // The lease expires and another claimer takes the job over; the first run's completion must be refused.
    clock.advance(5_000);
    const [stolen] = await claim(sql, clock.now(), ['slow'], 60_000, 1);
    expect(stolen?.id).toBe(slow);
    release();
    await until(() => warnings.includes('job completion refused: lease lost'));
    expect(state(slow)).toEqual({ state: 'leased', lease_token: stolen!.leaseToken });
    expect(await complete(sql, clock.now(), stolen!)).toBe(true);
    expect(state(slow).state).toBe('done');
    await worker.stop();
    db.close();
  });
});

describe('WebhookDispatcher wake-up', () => {
  it('fans out an outbox event when the commit that wrote it signals, long before its poll', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-perf-'));
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent', scryptN: 1024 });
    try {
      const org = await bootstrap(core.deps, { email: 'perf@example.com', password: 'correct horse battery staple' });
      const d = new WebhookDispatcher(core.rt, { pollMs: 600_000 });
      d.start();
      // Let the first pass run and the loop go to sleep for the (long) poll.
      await new Promise((r) => setTimeout(r, 50));
      const dispatched = () =>
        (core.deps.db!.prepare(`SELECT count(*) AS n FROM outbox_events WHERE dispatched_at IS NOT NULL`).get() as { n: number }).n;
      await core.deps.sql.transaction(async (tx) => {
        await tx.run(
          `INSERT INTO outbox_events (id, organization_id, environment, event_type, verification_id, payload, created_at)
           VALUES ('evt_wake', ?, 'sandbox', 'verification.completed', 'ver_wake', '{}', ?)`,
          [org.organizationId, new Date().toISOString()],
        );
        signalWork(tx, 'outbox');
      });
      await until(() => dispatched() === 1);
      await d.stop();
    } finally {
      await core.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('WebhookDispatcher slots and chained claims', () => {
  for (const concurrency of [1, 4]) {
    it(`delivers every event exactly once, never more than ${concurrency} at a time, each logged once`, async () => {
      let open = 0;
      let maxOpen = 0;
      const receiver = await startTestReceiver({
        responder: async () => {
          open++;
          maxOpen = Math.max(maxOpen, open);
          await new Promise((r) => setTimeout(r, 2));
          open--;
          return { status: 200, body: 'ok' };
        },
      });
      const dir = mkdtempSync(join(tmpdir(), 'vc-perf-'));
      const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent', scryptN: 1024, allowWebhookHosts: [`127.0.0.1:${receiver.port}`] });
      try {
        const org = await bootstrap(core.deps, { email: 'slots@example.com', password: 'correct horse battery staple' });
        const scope = { kind: 'console' as const, organizationId: org.organizationId, environment: 'sandbox' as const, role: 'OWNER' as const };
        await createWebhook(core.rt, scope, { url: `${receiver.url}/hook`, events: ['verification.completed'] });
        const n = 40;
        const insert = core.deps.db!.prepare(
          `INSERT INTO outbox_events (id, organization_id, environment, event_type, verification_id, payload, created_at)
           VALUES (?, ?, 'sandbox', 'verification.completed', ?, '{}', ?)`,
        );
        for (let i = 0; i < n; i++) insert.run(`evt_${i}`, org.organizationId, `ver_${i}`, new Date().toISOString());
        const d = new WebhookDispatcher(core.rt, { concurrency, pollMs: 600_000 });
        d.start();
        const counts = () =>
          core.deps.db!.prepare(`SELECT status, count(*) AS n, sum(attempts) AS attempts FROM webhook_deliveries GROUP BY status`).all() as {
            status: string;
            n: number;
            attempts: number;
          }[];
        // Only chained claims and completions can keep this going: the poll is ten minutes.
        await until(() => counts().some((c) => c.status === 'success' && c.n === n), 15_000);
        await d.stop();
        expect(counts()).toEqual([{ status: 'success', n, attempts: n }]);
        expect(receiver.requests).toHaveLength(n);
        expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(n);
        expect(maxOpen).toBeLessThanOrEqual(concurrency);
        expect(maxOpen).toBeGreaterThanOrEqual(1);
        const logged = core.deps.db!.prepare(`SELECT count(*) AS n FROM webhook_attempts`).get() as { n: number };
        expect(logged.n).toBe(n);
      } finally {
        await core.close();
        await receiver.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
