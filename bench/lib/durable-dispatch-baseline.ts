// Second baseline for benchmark 4 (docs/performance.md): the least a durable, signed webhook dispatcher can do on
// this machine, beside plain undici as benchmark 1's durable baseline stands beside bare Fastify. The deliveries are
// rows of a SQLite WAL store, written and synced before the round starts (as the service's are: an event is on disk
// before any webhook carries it). Each post is signed (HMAC-SHA256 of the body, the receiver checks it) and sent with
// undici at the given concurrency; its answer is recorded as one UPDATE of its row, the answers of one turn of the
// loop in one transaction, made durable by an fdatasync of the WAL on libuv's pool (synchronous=NORMAL plus that sync:
// synchronous=FULL's guarantee, off the loop). A slot opens its next post at the answer, without waiting for the sync
// (as the service's leased-ahead attempts do); the round ends when every answer is on disk. No fan-out, lease,
// attempt log, endpoint limits, SSRF guard or secret rotation: what is left is signing, HTTP, one update and the disk.
import Database from 'better-sqlite3';
import { createHmac } from 'node:crypto';
import { fdatasync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';

export interface DurableDispatchBaseline {
  /** Delivers every body once at `concurrency`; resolves once every answer is durable. */
  round(concurrency: number): Promise<{ perSec: number; ms: number }>;
  close(): void;
}

export function durableDispatchBaseline(opts: { dir: string; origin: string; path: string; secret: string; bodies: string[] }): DurableDispatchBaseline {
  const file = join(opts.dir, 'durable-dispatch-baseline.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    `CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, payload TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL,
       response_status INTEGER, delivered_at TEXT)`,
  );
  const reset = db.prepare(`UPDATE deliveries SET status = 'pending', attempts = 0, response_status = NULL, delivered_at = NULL`);
  const insert = db.prepare(`INSERT OR REPLACE INTO deliveries (id, payload, status, attempts) VALUES (?, ?, 'pending', 0)`);
  const record = db.prepare(`UPDATE deliveries SET status = 'delivered', attempts = attempts + 1, response_status = ?, delivered_at = ? WHERE id = ?`);
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const ids = opts.bodies.map((_, i) => `dlv_${String(i).padStart(8, '0')}`);
  db.transaction(() => opts.bodies.forEach((b, i) => insert.run(ids[i], b)))();
  const walFd = openSync(`${file}-wal`, 'r+');

  return {
    async round(concurrency) {
      reset.run();
      await new Promise<void>((res, rej) => fdatasync(walFd, (e) => (e ? rej(e) : res())));
      const pool = new Pool(opts.origin, { connections: concurrency });
      /** Answers of this turn, and whether a sync is running (commits wait for it, so one sync covers a batch). */
      let queued: { id: string; status: number }[] = [];
      let scheduled = false;
      let syncing = false;
      let durable = 0;
      let failed: unknown = null;
      let allDurable!: () => void;
      const done = new Promise<void>((r) => (allDurable = r));
      const flush = (): void => {
        scheduled = false;
        if (queued.length === 0 || syncing) return;
        const batch = queued;
        queued = [];
        const at = new Date().toISOString();
        begin.run();
        for (const a of batch) record.run(a.status, at, a.id);
        commit.run();
        syncing = true;
        fdatasync(walFd, (e) => {
          syncing = false;
          if (e) failed = e;
          durable += batch.length;
          if (durable === ids.length || failed) allDurable();
          else schedule();
        });
      };
      const schedule = (): void => {
        if (scheduled || syncing) return;
        scheduled = true;
        setImmediate(flush);
      };
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < ids.length) {
            const i = next++;
            const body = opts.bodies[i]!;
            const signature = `sha256=${createHmac('sha256', opts.secret).update(body).digest('hex')}`;
            const r = await pool.request({ method: 'POST', path: opts.path, headers: { 'content-type': 'application/json', 'x-signature': signature }, body });
            await r.body.text();
            queued.push({ id: ids[i]!, status: r.statusCode });
            schedule();
          }
        }),
      );
      await done;
      const ms = performance.now() - t0;
      await pool.close();
      if (failed) throw failed;
      return { perSec: (ids.length / ms) * 1000, ms };
    },
    close() {
      closeSync(walFd);
      db.close();
    },
  };
}
