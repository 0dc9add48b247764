// Backups a user can restore (issue 20): an online backup while a load runs, restored after a stop, holds every
// record acknowledged before it began and the store's invariants; a restore refuses while a service holds the
// folder, refuses a damaged backup and one from a newer app, and keeps the current files aside; `kill -9` in the
// middle of a backup leaves a complete, verified backup or none; automatic backups run on their schedule and keep
// the newest N; a restore scheduled from the console happens at the next start.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src-main/console/handlers';
import { backupsDir, createBackup, inspectStoreFile, listBackups, restoreBackup } from '../../src-main/core/backups/backups';
import { runDueBackup } from '../../src-main/core/backups/schedule';
import { createCore } from '../../src-main/service';
import { api, NG_OK, startTestService } from '../helpers/harness';
import { checkStore, spawnCli } from './child-service';

const dirs: string[] = [];
function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('backup and restore', { timeout: 180_000 }, () => {
  it('an online backup during a load, restored after a stop, holds every record acknowledged before it began', async () => {
    const ts = await startTestService({ dataDir: tempDir('vc-backup-') });
    const acknowledged: string[] = [];
    let n = 0;
    const send = async () => {
      const r = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: `load-${n++}`, body: NG_OK });
      if (r.status === 200) acknowledged.push(r.body.id);
      return r.status;
    };
    for (let i = 0; i < 30; i++) expect(await send()).toBe(200);
    // The load goes on while the backup is taken.
    let loading = true;
    const load = (async () => {
      while (loading) await send();
    })();
    const beforeBackup = [...acknowledged];
    const made = await createBackup(ts.service.deps.db, ts.dataDir);
    loading = false;
    await load;
    expect(made.integrity).toBe('ok');
    expect(made.keyNote).toContain('secret.key');
    expect(listBackups(ts.dataDir).map((b) => b.name)).toEqual([made.name]);
    // A restore is refused while the service holds the folder, and changes nothing.
    const refused = spawnCli(['db', 'restore', made.file, '--data-dir', ts.dataDir]);
    const r1 = await refused.done;
    expect(r1.code, r1.stdout + r1.stderr).toBe(1);
    expect(r1.stderr).toContain('cannot be restored while a service runs');
    await ts.stop({ keepDir: true });
    const restored = spawnCli(['db', 'restore', made.file, '--data-dir', ts.dataDir, '--json']);
    const r2 = await restored.done;
    expect(r2.code, r2.stderr).toBe(0);
    const result = JSON.parse(r2.stdout) as { keptAside: string[] };
    expect(result.keptAside.length).toBeGreaterThan(0);
    for (const f of result.keptAside) expect(existsSync(f)).toBe(true);
    const again = await startTestService({ dataDir: ts.dataDir, bootstrap: false });
    try {
      for (const id of beforeBackup) expect((await api(again.url, 'GET', `/verify/${id}`, { key: ts.sandboxKey })).status, id).toBe(200);
      const check = checkStore(again.service.deps.db!);
      expect(check).toMatchObject({ integrity: 'ok', ledgerMismatches: [], negativeBalances: 0, chargeAnomalies: [], recordLedgerMismatches: [] });
    } finally {
      await again.stop();
    }
  });

  it('refuses a damaged backup and one written by a newer app; the current store stays as it was', async () => {
    const dir = tempDir('vc-restore-');
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    const good = await createBackup(core.deps.db, dir);
    await core.close();
    const damaged = join(dir, 'damaged.sqlite');
    writeFileSync(damaged, Buffer.alloc(8192, 0x41));
    expect(() => restoreBackup(dir, damaged)).toThrow(/cannot be read as a store|integrity/);
    const newer = join(dir, 'newer.sqlite');
    const src = new Database(good.file, { readonly: true });
    await src.backup(newer);
    src.close();
    const n = new Database(newer);
    n.pragma('user_version = 9999');
    n.close();
    expect(() => restoreBackup(dir, newer)).toThrow(/newer than this app/);
    expect(readdirSync(dir).filter((f) => f.includes('before-restore'))).toEqual([]);
    expect(inspectStoreFile(join(dir, 'verification-console.sqlite')).integrity).toBe('ok');
  });

  it("refuses another application's SQLite file before anything moves, restores the folder's own store, and two restores in one second keep both", async () => {
    const dir = tempDir('vc-foreign-');
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    await core.close();
    const store = join(dir, 'verification-console.sqlite');
    const before = readFileSync(store);
    // Files that keep a table named schema_migrations, as other applications' stores do: empty and of this app's
    // shape (it was "restored" as an empty store), and of another shape (the store was swapped, then the migrations
    // failed on it and left the folder without a usable store).
    const foreign = (name: string, ddl: string, rows: string[] = []) => {
      const f = join(dir, name);
      const d = new Database(f);
      d.exec(ddl);
      for (const r of rows) d.exec(r);
      d.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
      d.close();
      return f;
    };
    const files = [
      foreign('empty-same-shape.sqlite', 'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, applied_at TEXT NOT NULL)'),
      foreign('other-shape.sqlite', 'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)', ["INSERT INTO schema_migrations VALUES (1, 'init')"]),
      foreign('other-rows.sqlite', 'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, applied_at TEXT NOT NULL)', ["INSERT INTO schema_migrations VALUES (1, 'create_users', 'abc', '2020-01-01')"]),
    ];
    for (const f of files) {
      expect(() => restoreBackup(dir, f), f).toThrow(/not a Verification Console store/);
      const cli = await spawnCli(['db', 'restore', f, '--data-dir', dir]).done;
      expect(cli.code, f).not.toBe(0);
      expect(cli.stderr, f).toContain('not a Verification Console store');
      expect(readdirSync(dir).filter((x) => x.includes('before-restore') || x.includes('restoring')), f).toEqual([]);
      expect(readFileSync(store).equals(before), f).toBe(true);
    }
    // The folder's own store named as the backup: restored (it was moved aside first, then could not be copied).
    const now = Date.UTC(2026, 10, 27, 12, 0, 0);
    const first = restoreBackup(dir, store, { now });
    expect(inspectStoreFile(store).integrity).toBe('ok');
    // A second restore in the same second keeps the first one's files aside under another name.
    const second = restoreBackup(dir, store, { now });
    expect(second.keptAside[0]).not.toBe(first.keptAside[0]);
    for (const f of [...first.keptAside, ...second.keptAside]) expect(existsSync(f), f).toBe(true);
    const reopened = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    await reopened.close();
  });

  it('two backups in one second get two files (-2); a file named by the caller is never overwritten', async () => {
    const dir = tempDir('vc-same-second-');
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    try {
      const now = Date.UTC(2026, 10, 26, 3, 0, 0);
      const a = await createBackup(core.deps.db, dir, { now });
      const b = await createBackup(core.deps.db, dir, { now });
      const c = await createBackup(core.deps.db, dir, { now, auto: true });
      expect([a.name, b.name, c.name]).toEqual([
        'verification-console-2026-11-26T030000Z.sqlite',
        'verification-console-2026-11-26T030000Z-2.sqlite',
        'verification-console-2026-11-26T030000Z-auto.sqlite',
      ]);
      expect(listBackups(dir).map((x) => x.name).sort()).toEqual([a.name, b.name, c.name].sort());
      await expect(createBackup(core.deps.db, dir, { out: a.file })).rejects.toThrow(/exists already/);
    } finally {
      await core.close();
    }
  });

  it('kill -9 in the middle of a backup leaves a complete, verified backup or none', async () => {
    const dir = tempDir('vc-backup-kill-');
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    // About 40 MB, so that a backup takes long enough to be interrupted.
    core.deps.db!.exec(`CREATE TABLE filler (b BLOB);
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 640) INSERT INTO filler SELECT randomblob(65536) FROM n;`);
    await core.close();
    const outcomes: string[] = [];
    const unfinished = (f: string) => /\.partial(-wal|-shm|-journal)?$/.test(f);
    const copying = () => existsSync(backupsDir(dir)) && readdirSync(backupsDir(dir)).some((f) => f.endsWith('.partial'));
    for (const delayMs of [0, 5, 20, 60, 150]) {
      const run = spawnCli(['db', 'backup', '--data-dir', dir]);
      // Kill it at several points after the copy has begun (or after it finished, if it was quicker than the poll).
      let finished = false;
      void run.done.then(() => (finished = true));
      while (!copying() && !finished) await new Promise((r) => setTimeout(r, 2));
      await new Promise((r) => setTimeout(r, delayMs));
      run.proc.kill('SIGKILL');
      const res = await run.done;
      outcomes.push(res.signal ? 'killed' : `exit ${res.code}`);
    }
    // Whatever the timing, every backup the folder shows is complete and verified.
    for (const b of listBackups(dir)) expect(inspectStoreFile(b.file).integrity, b.name).toBe('ok');
    const leftovers = existsSync(backupsDir(dir)) ? readdirSync(backupsDir(dir)).filter((f) => f.endsWith('.partial')) : [];
    // The next backup clears what a crash left unfinished: the copies and their journals (a copy killed mid-write
    // leaves its -journal beside it).
    const done = await spawnCli(['db', 'backup', '--data-dir', dir]).done;
    expect(done.code, done.stderr).toBe(0);
    expect(readdirSync(backupsDir(dir)).filter(unfinished)).toEqual([]);
    console.log(`backup kill -9: ${outcomes.join(', ')}; ${leftovers.length} unfinished copies left and then removed; ${listBackups(dir).length} verified backups`);
  });

  it('automatic backups run when due and keep the newest N; backups made by hand are never pruned', async () => {
    const ts = await startTestService({ dataDir: tempDir('vc-auto-'), backups: { everyHours: 24, keep: 2 } });
    try {
      const byHand = await createBackup(ts.service.deps.db, ts.dataDir);
      const day = 24 * 3_600_000;
      const t0 = Date.now();
      expect(await runDueBackup(ts.service.rt, t0)).toMatch(/-auto\.sqlite$/);
      expect(await runDueBackup(ts.service.rt, t0 + 3_600_000)).toBeNull();
      // Backups are named by their time; later ones are made "later" by the injected time.
      for (let i = 1; i <= 3; i++) expect(await runDueBackup(ts.service.rt, t0 + i * day + 1000)).not.toBeNull();
      const names = listBackups(ts.dataDir).map((b) => b.name);
      expect(names.filter((x) => x.endsWith('-auto.sqlite'))).toHaveLength(2);
      expect(names).toContain(byHand.name);
    } finally {
      await ts.stop();
    }
  });

  it('a restore scheduled from the console happens at the next start', async () => {
    const ts = await startTestService({ dataDir: tempDir('vc-sched-') });
    const first = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: 'in-backup', body: NG_OK });
    const made = await dispatch(ts.service.handlers, 'backups:create', {});
    expect(made.ok).toBe(true);
    const later = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: 'after-backup', body: NG_OK });
    const name = (made as { value: { name: string } }).value.name;
    const scheduled = await dispatch(ts.service.handlers, 'backups:restoreAtRestart', { name });
    expect(scheduled).toMatchObject({ ok: true, value: { pendingRestore: { file: join(backupsDir(ts.dataDir), name) } } });
    await ts.stop({ keepDir: true });
    const again = await startTestService({ dataDir: ts.dataDir, bootstrap: false });
    try {
      expect((await api(again.url, 'GET', `/verify/${first.body.id}`, { key: ts.sandboxKey })).status).toBe(200);
      expect((await api(again.url, 'GET', `/verify/${later.body.id}`, { key: ts.sandboxKey })).status).toBe(404);
      const overview = await dispatch(again.service.handlers, 'backups:list', {});
      expect(overview).toMatchObject({ ok: true, value: { pendingRestore: null, lastRestore: { ok: true } } });
    } finally {
      await again.stop();
    }
  });
});
