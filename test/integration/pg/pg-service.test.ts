// PostgreSQL as the service's store (store/pg/pg-service.ts): read-then-write transactions racing over two ports
// (two instances) keep SQLite's serializable meaning through retries, and those that name one queue wait for each
// other instead; a transaction whose time budget runs out is a 503 with Retry-After; work signals travel between
// instances only when the transaction that raised them commits; the ports refuse use of themselves inside their
// transactions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-shared/app-error';
import { createPgServicePort, type PgServicePort, type PgServiceOptions } from '../../../src-main/store/pg/pg-service';
import { onWork, signalWork } from '../../../src-main/store/work-signals';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';

let db: TestDatabase;
const ports: PgServicePort[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  const setup = createPgServicePort(db.url, { listen: false });
  await setup.exec('CREATE TABLE wallet (id text PRIMARY KEY, balance bigint NOT NULL CHECK (balance >= 0)); CREATE TABLE ledger (id serial PRIMARY KEY, amount bigint NOT NULL)');
  await setup.close();
}, 60_000);

afterAll(async () => {
  for (const p of ports) await p.close();
  await db?.drop();
});

function instance(o: PgServiceOptions = {}): PgServicePort {
  const p = createPgServicePort(db.url, { max: 8, ...o });
  ports.push(p);
  return p;
}

const until = async (cond: () => boolean, what: string) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
};

describe('PostgreSQL service store', () => {
  it('charges racing over two instances never overdraw: the read-then-write transactions are serializable', async () => {
    const [a, b] = [instance(), instance()];
    await a.transaction(async (tx) => void (await tx.run("INSERT INTO wallet VALUES ('w', 100)")));
    // 40 charges of 10 against a balance of 100, read then written (as the core's billing does), over two pools.
    const charge = (port: PgServicePort) =>
      port.transaction(async (tx) => {
        const w = await tx.get<{ balance: number }>("SELECT balance FROM wallet WHERE id = 'w'");
        if (!w || w.balance < 10) return false;
        await tx.run("UPDATE wallet SET balance = ? WHERE id = 'w'", [w.balance - 10]);
        await tx.run('INSERT INTO ledger (amount) VALUES (-10)');
        return true;
      });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => charge(i % 2 ? a : b)));
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(await a.get('SELECT balance FROM wallet')).toEqual({ balance: 0 });
    expect(await a.get('SELECT count(*) AS n, sum(amount) AS s FROM ledger')).toEqual({ n: 10, s: -100 });
  });

  it('two transactions that read the same row and then both write it: one is run again, and both take effect', async () => {
    const [a, b] = [instance(), instance()];
    await a.transaction(async (tx) => void (await tx.run("INSERT INTO wallet VALUES ('x', 5)")));
    // A barrier inside the bodies (a test only: the core never waits for anything but the store inside one) makes
    // both read before either writes, on the first attempt.
    let arrived = 0;
    let open: () => void = () => undefined;
    const gate = new Promise<void>((r) => (open = r));
    const add = (port: PgServicePort, n: number) =>
      port.transaction(async (tx) => {
        const w = (await tx.get<{ balance: number }>("SELECT balance FROM wallet WHERE id = 'x'"))!;
        if (++arrived === 2) open();
        await gate;
        await tx.run("UPDATE wallet SET balance = ? WHERE id = 'x'", [w.balance + n]);
      });
    const before = a.retries + b.retries;
    await Promise.all([add(a, 1), add(b, 10)]);
    expect(await a.get("SELECT balance FROM wallet WHERE id = 'x'")).toEqual({ balance: 16 });
    expect(a.retries + b.retries - before).toBe(1);
  });

  it('a signal reaches the other instance after the commit, and never for a rollback', async () => {
    const [a, b] = [instance(), instance()];
    await Promise.all([a.startListening(), b.startListening()]);
    const seen: string[] = [];
    onWork(b, 'jobs', () => seen.push('jobs'));
    onWork(b, 'outbox', () => seen.push('outbox'));
    // The startup sweep of a new listener (one of each) is not what this test is about.
    await new Promise((r) => setTimeout(r, 50));
    seen.length = 0;

    await expect(
      a.transaction(async (tx) => {
        signalWork(tx, 'outbox');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await a.transaction(async (tx) => {
      await tx.transaction(async (sp) => void signalWork(sp, 'jobs'));
      signalWork(tx, 'jobs');
    });
    await until(() => seen.length > 0, 'the notification');
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual(['jobs']);
  });

  it('a signal raised after the commit by work the transaction started is still sent', async () => {
    // Work started from a body (a timer, a listener, a refill) keeps the body's async context after the commit: its
    // signal must not be added to the topics the commit already sent.
    const [a, b] = [instance(), instance()];
    await Promise.all([a.startListening(), b.startListening()]);
    const seen: string[] = [];
    onWork(b, 'outbox', () => seen.push('outbox'));
    await new Promise((r) => setTimeout(r, 50));
    seen.length = 0;
    let later: Promise<void> = Promise.resolve();
    await a.transaction(async () => {
      later = new Promise<void>((resolve) =>
        setTimeout(() => {
          signalWork(a, 'outbox');
          resolve();
        }, 50),
      );
    });
    await later;
    await until(() => seen.length > 0, 'the notification of the later signal');
    expect(seen).toEqual(['outbox']);
  });

  it('transactions that name one queue wait for each other over two instances: read then written, none is run again', async () => {
    const [a, b] = [instance(), instance()];
    await a.transaction(async (tx) => void (await tx.run("INSERT INTO wallet VALUES ('q', 0)")));
    // Each reads the balance, then writes it back plus one (as a charge reads, then writes, its wallet): side by side
    // under SERIALIZABLE they fail each other; queued, each begins once the one before has committed.
    const add = (port: PgServicePort) =>
      port.transaction(
        async (tx) => {
          const w = (await tx.get<{ balance: number }>("SELECT balance FROM wallet WHERE id = 'q'"))!;
          await tx.run("UPDATE wallet SET balance = ? WHERE id = 'q'", [w.balance + 1]);
        },
        { queue: 'wallet:q' },
      );
    const before = a.retries + b.retries;
    await Promise.all(Array.from({ length: 40 }, (_, i) => add(i % 2 ? a : b)));
    expect(await a.get("SELECT balance FROM wallet WHERE id = 'q'")).toEqual({ balance: 40 });
    expect(a.retries + b.retries - before).toBe(0);
    // The queue's lock went with each transaction: no connection holds it now.
    const held = "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = 30321 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
    expect(await a.get(held)).toEqual({ n: 0 });
  });

  it('a transaction whose budget runs out answers 503 STORAGE_UNAVAILABLE with Retry-After, never the database error', async () => {
    const a = instance({ retryBudgetMs: 150 });
    // Serialization failures every time (as PostgreSQL reports them): run again until the budget is spent.
    let runs = 0;
    const conflict = Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' });
    const failing = a.transaction(async () => {
      runs++;
      throw conflict;
    });
    const err = await failing.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'STORAGE_UNAVAILABLE', status: 503, retryAfterSeconds: 1 });
    expect((err as Error & { cause?: unknown }).cause).toBe(conflict);
    expect(runs).toBeGreaterThan(1);
    // Any other failure is not run again, and is the caller's as it was.
    await expect(a.transaction(async () => Promise.reject(new Error('plain')))).rejects.toThrow('plain');
  });

  it('a queued transaction that waits past its budget for the queue is a 503 too, and never began; an instance waits for the lock with one connection', async () => {
    const [a, b] = [instance(), instance({ retryBudgetMs: 200 })];
    let release: () => void = () => undefined;
    const holding = new Promise<void>((r) => (release = r));
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((r) => (entered = r));
    // A holds the queue (a test only: a body waits for nothing but the store).
    const first = a.transaction(
      async () => {
        entered();
        await holding;
      },
      { queue: 'held' },
    );
    await inside;
    let ran = false;
    const err = await b
      .transaction(
        async () => {
          ran = true;
        },
        { queue: 'held' },
      )
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'STORAGE_UNAVAILABLE', retryAfterSeconds: 1 });
    expect(ran).toBe(false);
    // Five more of one instance wait in line in the instance, one connection at a time waiting for the lock (a burst
    // of one queue does not take every connection of the pool), and all run once the queue is free.
    const c = instance();
    const waiting = "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = 30321 AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
    const order: number[] = [];
    const line = Array.from({ length: 5 }, (_, i) => c.transaction(async () => void order.push(i), { queue: 'held' }));
    for (let i = 0; i < 200 && (await c.get<{ n: number }>(waiting))!.n === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 100));
    expect(await a.get(waiting)).toEqual({ n: 1 });
    release();
    await first;
    await Promise.all(line);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    // B's connection is usable, and the queue free: its next transaction runs at once.
    expect(await b.transaction(async (tx) => (await tx.get<{ one: number }>('SELECT 1 AS one'))!.one, { queue: 'held' })).toBe(1);
  });

  it("one that gives up waiting in its instance's line does not open the line to the next (found by the final review)", async () => {
    const d = instance({ retryBudgetMs: 300 });
    const waiting = "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = 30321 AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
    let release: () => void = () => undefined;
    const holding = new Promise<void>((r) => (release = r));
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((r) => (entered = r));
    const first = d.transaction(
      async () => {
        entered();
        await holding;
      },
      { queue: 'line' },
    );
    await inside;
    // The second waits in the line past its budget and gives up; the first still holds the queue.
    await expect(d.transaction(async () => undefined, { queue: 'line' })).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    // A third waits behind the first in the line, not at the database beside it.
    let ran = false;
    const third = d.transaction(async () => void (ran = true), { queue: 'line' }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 150));
    expect(ran).toBe(false);
    expect(await instance().get(waiting)).toEqual({ n: 0 });
    release();
    await first;
    await third;
  });

  it('refuses the port from inside its own transaction', async () => {
    const a = instance();
    await expect(a.transaction(async () => a.get('SELECT 1'))).rejects.toThrow(/inside a transaction/);
    await expect(a.transaction(async () => a.transaction(async () => 1))).rejects.toThrow(/inside a transaction/);
    expect(await a.get<{ one: number }>('SELECT 1 AS one')).toEqual({ one: 1 });
  });
});
