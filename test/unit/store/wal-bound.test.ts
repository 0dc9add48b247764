// The checkpoint cycle of the off-loop sync (store/wal-sync.ts, docs/performance.md "Durability off the event
// loop"): under sustained writes the WAL keeps restarting and never grows past its bound, whatever the timing
// (the bound is enforced by holding writes, not hoped for); a reader in another connection that keeps the WAL
// from restarting moves the bound up instead of stalling every sync; and no write is acknowledged before the
// sync covering its commit, while checkpoints run beside the syncs. Counts only, no timing: the WAL's size is read
// from the file, and its restarts from the WAL header's checkpoint sequence number, which SQLite increments at
// each restart (https://sqlite.org/fileformat2.html#walformat).
import Database from 'better-sqlite3';
import { mkdtempSync, openSync, closeSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../../src-main/store/database';
import { GroupCommitter } from '../../../src-main/store/group-commit';
import { WAL_BOUND_FRAMES, type WalSyncer } from '../../../src-main/store/wal-sync';

const PAGE = 512;
const CLIENTS = 64;
const FRAME = 24 + PAGE;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A store of 512-byte pages, so that many times the bound in frames is a few MiB of writes. */
function store(): Db {
  const dir = mkdtempSync(join(tmpdir(), 'vc-walbound-'));
  dirs.push(dir);
  const db = new Database(join(dir, 'store.sqlite'));
  db.pragma(`page_size = ${PAGE}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, pad BLOB NOT NULL)');
  return db;
}

/** The WAL header's checkpoint sequence number: how many times the WAL has restarted. */
function restarts(db: Db): number {
  const fd = openSync(`${db.name}-wal`, 'r');
  try {
    const b = Buffer.alloc(4);
    readSync(fd, b, 0, 4, 12);
    return b.readUInt32BE(0);
  } finally {
    closeSync(fd);
  }
}

/** Frames the WAL file has room for: its high-water mark since it was created. */
const walFileFrames = (db: Db) => Math.floor((statSync(`${db.name}-wal`).size - 32) / FRAME);

// Seeded, so a failure can be replayed (VC_SEED=<printed seed>).
const seed = Number(process.env['VC_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
function rng(s: number): () => number {
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const syncerOf = (c: GroupCommitter) => (c as unknown as { syncer: WalSyncer }).syncer;

describe(`the WAL under sustained writes (VC_SEED=${seed})`, () => {
  it('restarts over and over and never outgrows its bound; every write is acknowledged after its sync', async () => {
    const db = store();
    const random = rng(seed);
    const warnings: string[] = [];
    let syncedUpTo = 0;
    let inBatch: number[] = [];
    const seqOf = new Map<number, number>();
    const early: string[] = [];
    const c = new GroupCommitter(db, {
      offLoopSync: true,
      warn: (m) => void warnings.push(m),
      observe: {
        committed: (seq) => {
          // Writes are held while the cycle's final pass runs: else it could never copy the whole WAL.
          if (syncerOf(c).finalPassRunning) early.push(`commit ${seq} made during a final pass`);
          for (const w of inBatch) seqOf.set(w, seq);
          inBatch = [];
        },
        // Each completed sync counts a little later (0–2 ms, seeded), so checkpoints and syncs interleave variously.
        synced: async (seq) => {
          const wait = Math.floor(random() * 3);
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          syncedUpTo = Math.max(syncedUpTo, seq);
        },
      },
    });
    const insert = db.prepare('INSERT INTO t (id, pad) VALUES (?, randomblob(1200))');
    let next = 0;
    const write = () => {
      const id = ++next;
      return c
        .commit(() => {
          insert.run(id);
          inBatch.push(id);
        })
        .then(() => {
          const seq = seqOf.get(id);
          if (seq === undefined || seq > syncedUpTo) early.push(`write ${id} of commit ${seq} acknowledged with syncs up to ${syncedUpTo}`);
        });
    };

    // One commit of 64 writes, to learn how many frames a commit writes (each row spills to overflow pages).
    await Promise.all(Array.from({ length: CLIENTS }, write));
    const perCommit = walFileFrames(db);
    expect(perCommit).toBeGreaterThan(CLIENTS);

    // Then sustained load until six times the bound has been written: each client writes again as soon as its
    // write is acknowledged, so writes are always waiting when a sync ends (no quiet moment to restart in).
    const target = Math.ceil((6 * WAL_BOUND_FRAMES) / perCommit) * CLIENTS;
    const client = async () => {
      while (next < target) await write();
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    await c.durable();
    const stats = { ...syncerOf(c).stats };
    await c.close();

    expect(warnings).toEqual([]);
    expect(early).toEqual([]);
    // The bound: below it after a sync, plus what one commit adds before the next sync sees it.
    expect(walFileFrames(db)).toBeLessThan(WAL_BOUND_FRAMES + 2 * perCommit);
    expect(restarts(db)).toBeGreaterThanOrEqual(5);
    expect(stats.restarts).toBe(restarts(db));
    expect(stats.passes).toBeGreaterThanOrEqual(stats.restarts);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(next);
    db.close();
    const again = new Database(db.name);
    expect(again.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(again.prepare('SELECT count(*) FROM t').pluck().get()).toBe(next);
    again.close();
  });

  it('moves its bound up while a reader elsewhere keeps the WAL from restarting, and restarts once it is gone', async () => {
    const db = store();
    const c = new GroupCommitter(db, { offLoopSync: true });
    const insert = db.prepare('INSERT INTO t (pad) VALUES (randomblob(1200))');
    const round = () => Promise.all(Array.from({ length: 32 }, () => c.commit(() => void insert.run())));
    await round();
    const perCommit = walFileFrames(db);

    // A read transaction on another connection: its snapshot must stay readable, so the WAL can be copied only
    // up to it and cannot restart.
    const reader = new Database(db.name);
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    const before = restarts(db);
    let written = 0;
    while (written < 4 * WAL_BOUND_FRAMES) {
      await round();
      written += perCommit;
    }
    const pinned = { ...syncerOf(c).stats };
    expect(restarts(db)).toBe(before);
    expect(walFileFrames(db)).toBeGreaterThan(3 * WAL_BOUND_FRAMES);
    // Writes were held at most once per bound's worth of frames, not at every one of the syncs.
    expect(pinned.boundStalls).toBeGreaterThanOrEqual(1);
    expect(pinned.boundStalls).toBeLessThanOrEqual(5);
    expect(pinned.syncs).toBeGreaterThan(4 * WAL_BOUND_FRAMES / perCommit - 1);

    reader.exec('COMMIT');
    reader.close();
    // Gone: the next cycles copy everything and the WAL restarts.
    for (let i = 0; i < 4 * Math.ceil(WAL_BOUND_FRAMES / perCommit) && restarts(db) === before; i++) await round();
    expect(restarts(db)).toBeGreaterThan(before);
    await c.close();
    db.close();
  });
});
