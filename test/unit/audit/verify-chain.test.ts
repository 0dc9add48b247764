// The console's check of an organization's audit chain (verifyOrganizationChain, docs/audit.md): page by page, its
// reads through `reads` (the reader thread where the store has one), every entry hashed; the same answer as the
// whole-store check, an edited or deleted entry found wherever it is, and a retention prune committed between two
// pages neither missed nor reported as tampering. Real SQLite stores (in memory, or a file for the reader thread);
// only the clock is faked.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { iso, ManualClock } from '../../../src-main/core/clock';
import type { CoreDeps } from '../../../src-main/core/context';
import { appendAudit, auditCsv, exportAudit, exportAuditText, listAudit, pruneAudit, verifyExport, verifyOrganizationChain, verifyStore, type AuditExport } from '../../../src-main/core/audit/audit-log';
import { openDatabase } from '../../../src-main/store/database';
import { ReaderThread } from '../../../src-main/store/reader-thread';
import type { SqlParams } from '../../../src-main/store/sql-port';
import { testDeps } from '../../helpers/core-deps';

const T0 = Date.parse('2026-10-01T00:00:00.000Z');
const DAY = 86_400_000;

function setup(db?: NonNullable<CoreDeps['db']>) {
  const deps = testDeps({ clock: new ManualClock(T0), ...(db ? { db } : {}) });
  for (const id of ['org_a', 'org_b']) deps.db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(id, id, '2026-01-01T00:00:00.000Z');
  return deps;
}

/** `n` entries for `org`, in transactions of 50, as the core writes them. */
async function entries(deps: CoreDeps, org: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 50) {
    await deps.sql.transaction(async (tx) => {
      for (let j = i; j < Math.min(n, i + 50); j++) await appendAudit({ ...deps, sql: tx }, org, { action: 'key.created', target: { type: 'apiKey', id: `key_${j}` }, detail: { j } });
    });
  }
}

const raw = (deps: ReturnType<typeof setup>, sql: string, ...args: unknown[]) => deps.db.prepare(sql).run(...args);

/**
 * 60 entries, then 90 more ten days later, and reads after whose first page the retention prune (entries older than
 * 5 days: the first 60) commits; `pruned` fills in when it has.
 */
async function prunedAfterFirstPage(deps: ReturnType<typeof setup>) {
  await entries(deps, 'org_a', 60);
  (deps.clock as ManualClock).set(T0 + 10 * DAY);
  await entries(deps, 'org_a', 90);
  let pages = 0;
  const pruned: Record<string, number> = {};
  const reads = {
    get: <T,>(s: string, p?: SqlParams) => deps.sql.get<T>(s, p),
    all: async <T,>(s: string, p?: SqlParams) => {
      const rows = await deps.sql.all<T>(s, p);
      if (++pages === 1) Object.assign(pruned, await pruneAudit(deps, 5));
      return rows;
    },
  };
  return { reads, pruned };
}

describe("an organization's audit chain, verified page by page", () => {
  it("gives the whole-store check's answer, one page after another, and reads only its organization", async () => {
    const deps = setup();
    await entries(deps, 'org_a', 230);
    await entries(deps, 'org_b', 40);
    const asked: unknown[][] = [];
    const reads = { all: <T,>(s: string, p?: SqlParams) => (asked.push(p as unknown[]), deps.sql.all<T>(s, p)), get: <T,>(s: string, p?: SqlParams) => deps.sql.get<T>(s, p) };
    const r = await verifyOrganizationChain(deps.sql, 'org_a', reads, 50);
    const whole = (await verifyStore(deps.sql)).find((x) => x.organizationId === 'org_a')!;
    expect(r).toEqual({ ...whole, start: { seq: 0, hash: '0'.repeat(64) } });
    expect(r).toMatchObject({ ok: true, entries: 230, head: { seq: 230 } });
    expect(asked).toHaveLength(5); // 50 + 50 + 50 + 50 + 30
    expect(asked.every((p) => p[0] === 'org_a' && p[1] === 'org_a')).toBe(true);
  });

  it('finds an entry edited, or deleted, on any page', async () => {
    const deps = setup();
    await entries(deps, 'org_a', 120);
    deps.db.exec('DROP TRIGGER audit_events_no_update; DROP TRIGGER audit_events_no_delete');
    raw(deps, "UPDATE audit_events SET detail = '{\"j\":0}' WHERE organization_id = 'org_a' AND seq = 77");
    const edited = await verifyOrganizationChain(deps.sql, 'org_a', deps.sql, 50);
    expect(edited).toMatchObject({ ok: false, entries: 77, head: { seq: 76 }, firstBad: { seq: 77, reason: expect.stringContaining('edited') } });
    expect(edited).toMatchObject((await verifyStore(deps.sql)).find((x) => x.organizationId === 'org_a')!);
    raw(deps, "DELETE FROM audit_events WHERE organization_id = 'org_a' AND seq >= 51 AND seq <= 100");
    expect(await verifyOrganizationChain(deps.sql, 'org_a', deps.sql, 50)).toMatchObject({ ok: false, firstBad: { seq: 101, reason: expect.stringContaining('expected entry 51') } });
  });

  it('starts again from the new checkpoint when a prune commits between two pages', async () => {
    const deps = setup();
    const { reads, pruned } = await prunedAfterFirstPage(deps);
    const r = await verifyOrganizationChain(deps.sql, 'org_a', reads, 40);
    expect(pruned['org_a']).toBe(60);
    expect(r.ok).toBe(true);
    expect(r.start.seq).toBe(60);
    expect(r.entries).toBe((await verifyStore(deps.sql)).find((x) => x.organizationId === 'org_a')!.entries);
  });

  it('is not fooled by a prune that removed every entry up to the head between the head being read and the first page', async () => {
    for (const what of ['check', 'export'] as const) {
      const deps = setup();
      await entries(deps, 'org_a', 30);
      (deps.clock as ManualClock).set(T0 + 10 * DAY);
      let headers = 0;
      const reads = {
        all: <T,>(s: string, p?: SqlParams) => deps.sql.all<T>(s, p),
        get: async <T,>(s: string, p?: SqlParams) => {
          const row = await deps.sql.get<T>(s, p);
          // After the walk read the head (30): every entry is older than the cutoff, and all go.
          if (++headers === 1) expect((await pruneAudit(deps, 5))['org_a']).toBe(30);
          return row;
        },
      };
      if (what === 'check') {
        // Not "entries were deleted": the walk starts again from the checkpoint and finds the prune's own entry.
        expect(await verifyOrganizationChain(deps.sql, 'org_a', reads, 10)).toMatchObject({ ok: true, entries: 1, start: { seq: 30 }, head: { seq: 31 } });
      } else {
        // Not an empty file that verifies: the same file as the log exported now.
        const x = await exportAuditText(deps.sql, 'org_a', T0 + 10 * DAY, 'json', reads, 10);
        expect(x.text).toBe(`${JSON.stringify(await exportAudit(deps.sql, 'org_a', T0 + 10 * DAY), null, 2)}\n`);
        expect(x.entries).toBe(1);
      }
    }
  });

  it('after three prunes in a row while it reads, checks one snapshot of the chain instead', async () => {
    const deps = setup();
    for (let batch = 0; batch < 4; batch++) {
      (deps.clock as ManualClock).set(T0 + batch * 10 * DAY);
      await entries(deps, 'org_a', 30);
    }
    (deps.clock as ManualClock).set(T0 + 31 * DAY);
    let pages = 0;
    const prunes: number[] = [];
    const reads = {
      get: <T,>(s: string, p?: SqlParams) => deps.sql.get<T>(s, p),
      all: async <T,>(s: string, p?: SqlParams) => {
        const rows = await deps.sql.all<T>(s, p);
        // After the first page of each walk, the next ten days' entries are pruned (older than 25, 15, then 5 days).
        if (++pages % 2 === 1) prunes.push((await pruneAudit(deps, 25 - 10 * prunes.length))['org_a'] ?? 0);
        return rows;
      },
    };
    const r = await verifyOrganizationChain(deps.sql, 'org_a', reads, 20);
    expect(prunes).toEqual([30, 30, 30]);
    expect(pages).toBe(6); // three walks, each stopped by the moved checkpoint on its second page
    expect(r).toMatchObject({ ok: true, entries: 33, start: { seq: 90 }, head: { seq: 123 } }); // 30 left, and each prune's own entry
    expect(r).toMatchObject((await verifyStore(deps.sql)).find((x) => x.organizationId === 'org_a')!);
  });

  it('reads through the reader thread, off the event loop, with the same answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-audit-verify-'));
    const db = openDatabase(join(dir, 'store.sqlite'));
    const deps = setup(db);
    const warnings: string[] = [];
    const reader = new ReaderThread({ file: join(dir, 'store.sqlite'), fallback: deps.sql, warn: (m) => warnings.push(m) });
    try {
      await entries(deps, 'org_a', 130);
      const onLoop = await verifyOrganizationChain(deps.sql, 'org_a', deps.sql, 50);
      expect(await verifyOrganizationChain(deps.sql, 'org_a', reader, 50)).toEqual(onLoop);
      expect(onLoop).toMatchObject({ ok: true, entries: 130 });
      expect(warnings).toEqual([]);
    } finally {
      await reader.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('waits out a pause of the reader thread once, not once a page: the check and the export are each one walk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-audit-walk-'));
    const db = openDatabase(join(dir, 'store.sqlite'));
    const deps = setup(db);
    // Paused for good (the WAL missing its restarts under steady writes). With a wait of 0 ms a read that waits looks at
    // the pause exactly once, and one that does not wait never does: `looks` counts the reads that waited.
    let looks = 0;
    const reader = new ReaderThread({ file: join(dir, 'store.sqlite'), fallback: deps.sql, pause: () => (looks++, true), pauseWaitMs: 0, walkFreeMs: 600_000 });
    try {
      await entries(deps, 'org_a', 130);
      const count = async (run: () => Promise<unknown>) => {
        const [reads, waits] = [reader.served.thread, looks];
        await run();
        return { reads: reader.served.thread - reads, waits: looks - waits };
      };
      // The header and three pages of 50: four reads on the thread, of which the first waited (and opened the window).
      const check = await count(async () => expect(await verifyOrganizationChain(deps.sql, 'org_a', reader, 50)).toMatchObject({ ok: true, entries: 130 }));
      const whole = `${JSON.stringify(await exportAudit(deps.sql, 'org_a', T0), null, 2)}\n`;
      const exported = await count(async () => expect((await exportAuditText(deps.sql, 'org_a', T0, 'json', reader, 50)).text).toBe(whole));
      // Reads outside a walk each wait.
      const plain = await count(async () => {
        await reader.get('SELECT 1 AS one');
        await reader.get('SELECT 1 AS one');
      });
      // The export came inside the window the check's wait opened (the thread's, here 600 s): it did not wait at all.
      expect({ check, exported, plain }).toEqual({ check: { reads: 4, waits: 1 }, exported: { reads: 4, waits: 0 }, plain: { reads: 2, waits: 2 } });
    } finally {
      await reader.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a chain from a retention checkpoint', () => {
  /** Deletes org_a's entries up to `through` under the prune guard, as retention does, and moves its checkpoint there. */
  async function cutTo(deps: CoreDeps, through: number, pruned?: Record<string, unknown>): Promise<void> {
    await deps.sql.transaction(async (tx) => {
      const last = (await tx.get<{ hash: string }>("SELECT hash FROM audit_events WHERE organization_id = 'org_a' AND seq = ?", [through]))!;
      await tx.run('INSERT INTO audit_prune_guard (active) VALUES (1)');
      await tx.run("DELETE FROM audit_events WHERE organization_id = 'org_a' AND seq <= ?", [through]);
      await tx.run('DELETE FROM audit_prune_guard');
      await tx.run(
        "INSERT INTO audit_checkpoints (organization_id, seq, hash, pruned_at) VALUES ('org_a', ?, ?, ?) ON CONFLICT (organization_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
        [through, last.hash, iso(T0)],
      );
      if (pruned) await appendAudit({ ...deps, sql: tx }, 'org_a', { action: 'audit.pruned', detail: pruned }, { actor: { type: 'system', id: null, label: 'retention' }, door: 'system' });
    });
  }

  it('an audit.pruned written before throughHash was recorded still proves its checkpoint, page by page and exported; a checkpoint moved past it is refused', async () => {
    const deps = setup();
    await entries(deps, 'org_a', 30);
    // What pruneAudit wrote before this change: the entries deleted, the checkpoint, an entry with throughSeq only.
    await cutTo(deps, 20, { removed: 20, throughSeq: 20, olderThan: iso(T0), retentionDays: 400 });
    await entries(deps, 'org_a', 25); // the prune's entry (#31) is on the second page of 10, entries after it
    const whole = (await verifyStore(deps.sql)).find((x) => x.organizationId === 'org_a')!;
    expect(whole).toMatchObject({ ok: true, entries: 36, head: { seq: 56 } });
    expect(await verifyOrganizationChain(deps.sql, 'org_a', deps.sql, 10)).toEqual({ ...whole, start: { seq: 20, hash: expect.any(String) } });
    expect(verifyExport(await exportAudit(deps.sql, 'org_a', T0))).toEqual(whole);
    // Five more entries deleted and the checkpoint moved after them: the prune's entry says the chain starts after #20.
    await cutTo(deps, 25);
    const broken = { ok: false, entries: 1, head: { seq: 25 }, firstBad: { seq: 26, reason: expect.stringContaining('latest audit.pruned entry (#31) records a prune through #20') } };
    const moved = (await verifyStore(deps.sql)).find((x) => x.organizationId === 'org_a')!;
    expect(moved).toMatchObject(broken);
    expect(await verifyOrganizationChain(deps.sql, 'org_a', deps.sql, 10)).toEqual({ ...moved, start: { seq: 25, hash: expect.any(String) } });
    expect(verifyExport(await exportAudit(deps.sql, 'org_a', T0))).toEqual(moved);
  });
});

describe("an organization's audit export, written page by page", () => {
  const asFile = (x: AuditExport) => `${JSON.stringify(x, null, 2)}\n`;

  it('is the same file as the whole log exported at once, JSON and CSV, empty or pruned, its reads through `reads`', async () => {
    const deps = setup();
    const now = T0 + 20 * DAY;
    // org_b has no entries yet: an empty export.
    expect((await exportAuditText(deps.sql, 'org_b', now, 'json', deps.sql, 50)).text).toBe(asFile(await exportAudit(deps.sql, 'org_b', now)));
    expect((await exportAuditText(deps.sql, 'org_b', now, 'csv', deps.sql, 50)).text).toBe(auditCsv([]));
    await entries(deps, 'org_a', 60);
    (deps.clock as ManualClock).set(T0 + 10 * DAY);
    await entries(deps, 'org_a', 171);
    await entries(deps, 'org_b', 3);
    for (const pruned of [false, true]) {
      if (pruned) expect((await pruneAudit(deps, 5))['org_a']).toBe(60);
      const asked: unknown[][] = [];
      const reads = { all: <T,>(s: string, p?: SqlParams) => (asked.push(p as unknown[]), deps.sql.all<T>(s, p)), get: <T,>(s: string, p?: SqlParams) => deps.sql.get<T>(s, p) };
      const whole = await exportAudit(deps.sql, 'org_a', now);
      const json = await exportAuditText(deps.sql, 'org_a', now, 'json', reads, 50);
      expect(json.text).toBe(asFile(whole));
      expect(json).toMatchObject({ exportedAt: whole.exportedAt, entries: whole.entries.length });
      expect(verifyExport(JSON.parse(json.text) as AuditExport)).toMatchObject({ ok: true, entries: whole.entries.length });
      expect((await exportAuditText(deps.sql, 'org_a', now, 'csv', reads, 50)).text).toBe(auditCsv(whole.entries));
      expect(asked.length).toBe(2 * Math.ceil(whole.entries.length / 50));
      expect(asked.every((p) => p[0] === 'org_a')).toBe(true);
    }
  });

  it('starts again from the new checkpoint when a prune commits between two pages', async () => {
    const deps = setup();
    const { reads, pruned } = await prunedAfterFirstPage(deps);
    const x = await exportAuditText(deps.sql, 'org_a', T0 + 10 * DAY, 'json', reads, 40);
    expect(x.text).toBe(asFile(await exportAudit(deps.sql, 'org_a', T0 + 10 * DAY)));
    expect(pruned['org_a']).toBe(60);
    expect(JSON.parse(x.text)).toMatchObject({ start: { seq: 60 }, head: { seq: 151 } });
  });
});

describe("an organization's audit log, listed", () => {
  it('counts off the event loop, reads a filtered page there too, and no page past the total, with the same answers', async () => {
    const deps = setup();
    await entries(deps, 'org_a', 30);
    await entries(deps, 'org_b', 5);
    const asked: string[] = [];
    const reads = {
      all: <T,>(s: string, p?: SqlParams) => (asked.push(s), deps.sql.all<T>(s, p)),
      get: <T,>(s: string, p?: SqlParams) => (asked.push(s), deps.sql.get<T>(s, p)),
    };
    const cases: [Parameters<typeof listAudit>[2], number, number][] = [
      [{ limit: 10, offset: 0 }, 30, 0], // no filter: the page is a range of (organization, seq), on the connection
      [{ limit: 10, offset: 0, target: 'key_7' }, 1, 1],
      [{ limit: 10, offset: 0, action: 'key.' }, 30, 1],
      [{ limit: 10, offset: 40 }, 30, 0], // past the total: no page
    ];
    for (const [q, total, pages] of cases) {
      asked.length = 0;
      const onConnection = await listAudit(deps.sql, 'org_a', q);
      expect(onConnection.total).toBe(total);
      expect(await listAudit(deps.sql, 'org_a', q, reads)).toEqual(onConnection);
      expect(asked.filter((s) => /^SELECT count/.test(s)), JSON.stringify(q)).toHaveLength(1);
      expect(asked.filter((s) => /^SELECT \*/.test(s)), JSON.stringify(q)).toHaveLength(pages);
    }
    // Inside a transaction nothing goes to the long reads.
    asked.length = 0;
    await deps.sql.transaction((tx) => listAudit(tx, 'org_a', { limit: 5, offset: 0, target: 'key_1' } as Parameters<typeof listAudit>[2], reads));
    expect(asked).toEqual([]);
  });
});
