// The store under the machine's faults (issue 20): a full store (SQLite's max_page_count makes it report
// SQLITE_FULL portably) and a read-only one (query_only: SQLITE_READONLY) while the service runs answer 503
// STORAGE_UNAVAILABLE with Retry-After, `GET /health` says degraded, the log says it once a minute with a count, and
// the service recovers by itself with nothing acknowledged lost. At start, a damaged or unwritable store exits 1
// naming the file, the problem and the next step, and the file is left exactly as it was.
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src-main/core/clock';
import { dispatch } from '../../src-main/console/handlers';
import { createCore } from '../../src-main/service';
import { api, NG_OK, startTestService, type TestService } from '../helpers/harness';
import { runCli } from './child-service';

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('storage faults while running', { timeout: 120_000 }, () => {
  let ts: TestService;
  const lines: string[] = [];
  const clock = new ManualClock(Date.now());
  afterAll(async () => {
    await ts?.stop();
  });

  it('a full store answers 503 STORAGE_UNAVAILABLE, health is degraded, one log line a minute, and writes resume once there is room', async () => {
    ts = await startTestService({ clock, logLevel: 'warn', logStream: { write: (l: string) => void lines.push(l) } });
    const db = ts.service.deps.db!;
    const acknowledged: string[] = [];
    const first = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: 'before-full', body: NG_OK });
    expect(first.status).toBe(200);
    acknowledged.push(first.body.id);
    // The store may grow by only a few pages from now on.
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages + 2}`);
    const refused: { status: number; headers: Headers; body: { code: string; message: string } }[] = [];
    for (let i = 0; i < 400 && refused.length < 5; i++) {
      const res = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: `fill-${i}`, body: NG_OK });
      if (res.status === 200) acknowledged.push(res.body.id);
      else refused.push(res);
    }
    expect(refused.length, 'the store never reported full').toBe(5);
    for (const r of refused) {
      expect(r.status).toBe(503);
      expect(r.body.code).toBe('STORAGE_UNAVAILABLE');
      expect(r.headers.get('retry-after')).toBe('30');
      expect(r.body.message).toContain(ts.dataDir);
      expect(r.body.message).toContain('full');
    }
    const health = await api(ts.url, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'degraded', reason: 'storage full' });
    expect(health.body.message).toContain(ts.dataDir);
    // The console says the same, in its own door.
    const viaConsole = await dispatch(ts.service.handlers, 'verify:account', { environment: 'sandbox', request: NG_OK });
    expect(viaConsole).toMatchObject({ ok: false, error: { code: 'STORAGE_UNAVAILABLE' } });
    // The console's banner reads the same state, with the folder and its free space.
    const banner = await dispatch(ts.service.handlers, 'storage:status', {});
    expect(banner).toMatchObject({ ok: true, value: { status: 'degraded', reason: 'full', dataDir: ts.dataDir } });
    expect((banner as { value: { message: string } }).value.message).toContain(ts.dataDir);
    // One log line per fault, then at most one a minute. SQLite's "full" is not absolute: a small write that fits in
    // the pages the store already has still succeeds (a POST whose rows fit, the background search indexer's state
    // row), and a commit that changed rows ends the fault ("available again"), so the next refusal starts a new one
    // with its own line. Whatever the interleaving: each line opens a fault or comes a minute after the previous
    // line of the same fault.
    const logged = () => lines.filter((l) => l.includes('storage unavailable'));
    const resumed = () => lines.filter((l) => l.includes('storage available again'));
    const faults = () => {
      const out: string[][] = [[]];
      for (const l of lines) {
        if (l.includes('storage available again')) out.push([]);
        else if (l.includes('storage unavailable')) out[out.length - 1]!.push(l);
      }
      return out;
    };
    const oneLinePerFault = () => {
      expect(logged().length).toBeGreaterThanOrEqual(1);
      expect(logged().length - resumed().length).toBeGreaterThanOrEqual(0);
      expect(logged().length - resumed().length).toBeLessThanOrEqual(1);
      for (const f of faults()) expect(f.length).toBeLessThanOrEqual(1);
    };
    oneLinePerFault();
    expect(lines.some((l) => l.includes('"stack"'))).toBe(false);
    await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: 'still-full-1', body: NG_OK });
    oneLinePerFault();
    // A minute later the next refusal logs again (the same fault: with the count of refusals since its last line).
    clock.advance(61_000);
    const before = logged().length;
    for (let i = 0; i < 400; i++) {
      const r = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: `still-full-2-${i}`, body: NG_OK });
      if (r.status === 200) acknowledged.push(r.body.id);
      else break;
    }
    expect(logged().length).toBe(before + 1);
    const last = faults().at(-1)!;
    // A fault's second line counts the refusals since its first; when no write got through at all, that is at least
    // the seven refusals the doors answered since the first line (background writes may add their own).
    if (last.length === 2) expect(JSON.parse(last[1]!).refusedSinceLastLog).toBeGreaterThanOrEqual(faults().length === 1 ? 7 : 1);
    else expect(last).toHaveLength(1);
    // Room again: the next write succeeds, health is ok, nothing acknowledged was lost.
    db.pragma('max_page_count = 4294967294');
    const after = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: 'after-room', body: NG_OK });
    expect(after.status).toBe(200);
    acknowledged.push(after.body.id);
    expect((await api(ts.url, 'GET', '/health')).body.status).toBe('ok');
    expect(lines.some((l) => l.includes('storage available again'))).toBe(true);
    for (const id of acknowledged) expect((await api(ts.url, 'GET', `/verify/${id}`, { key: ts.sandboxKey })).status).toBe(200);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('a read-only store answers 503 naming it read-only, and recovers by itself', async () => {
    const db = ts.service.deps.db!;
    db.pragma('query_only = ON');
    const res = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: 'read-only', body: NG_OK });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('STORAGE_UNAVAILABLE');
    expect(res.body.message).toContain('read-only');
    expect((await api(ts.url, 'GET', '/health')).body).toMatchObject({ status: 'degraded', reason: 'storage read-only' });
    db.pragma('query_only = OFF');
    const again = await api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem: 'read-only', body: NG_OK });
    expect(again.status, again.text).toBe(200);
    expect((await api(ts.url, 'GET', '/health')).body.status).toBe('ok');
  });
});

describe('a store that cannot be opened at start', { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a damaged file: exit 1 naming the file, the problem and the restore command; the file is not modified', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-damaged-'));
    dirs.push(dir);
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    await core.close();
    const file = join(dir, 'verification-console.sqlite');
    // Overwrite the header and the first pages: what a failed disk or a bad copy leaves.
    const bytes = readFileSync(file);
    bytes.fill(0x5a, 0, Math.min(bytes.length, 8192));
    writeFileSync(file, bytes);
    const before = sha(file);
    const res = await runCli(['serve', '--port', '0', '--data-dir', dir, '--no-console']);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toContain(`The store ${file} is damaged`);
    expect(res.stderr).toContain('vconsole db restore');
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(sha(file)).toBe(before);
  });

  it('an unwritable folder: exit 1 naming the file and the permission to fix', async () => {
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const dir = mkdtempSync(join(tmpdir(), 'vc-readonly-'));
    dirs.push(dir);
    const core = await createCore({ dataDir: dir, startWorker: false, logLevel: 'silent' });
    await core.close();
    const file = join(dir, 'verification-console.sqlite');
    const before = sha(file);
    // Root ignores permissions, so as root the service runs as `nobody` against a folder it does not own.
    chmodSync(dir, 0o555);
    chmodSync(file, 0o444);
    if (!isRoot) chownSync(dir, process.getuid!(), process.getgid!());
    const res = await runCli(['serve', '--port', '0', '--data-dir', dir, '--no-console'], isRoot ? { uid: 65534, gid: 65534 } : {});
    chmodSync(dir, 0o755);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toContain(dir);
    expect(res.stderr).toMatch(/cannot be written|write access/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(sha(file)).toBe(before);
  });
});
