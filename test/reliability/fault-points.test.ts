// Deterministic crashes (issue 9 item 1): the real `vconsole serve` process is started with VC_FAULT_POINT so it
// SIGKILLs itself at one exact point (src-main/core/fault-points.ts); then it is started again without it on the
// same data dir, and what the client was told, the ledger and the queue must agree.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readFaultConfig } from '../../src-main/core/fault-points';
import { SYNC_GUARD_MS } from '../../src-main/core/verification/engine';
import { api, NG_OK, newKey } from '../helpers/harness';
import { checkStore, killChild, LEASE_MS, openReadOnly, prepareDataDir, removeDataDirs, serveEntry, startChild, stopChild, until, type ChildService, type Prepared } from './child-service';

const PRICE = 25;
const BALANCE = 1000;
let running: ChildService | null = null;
const figures = { crashes: new Set<string>(), starts: 0, storeChecks: 0 };
afterEach(async () => {
  if (running) await killChild(running);
  running = null;
});
afterAll(() => {
  removeDataDirs();
  console.log(`fault-points: crashes at ${[...figures.crashes].join(', ')}; service starts=${figures.starts}; store checks=${figures.storeChecks}; entry=${serveEntry().label}`);
});

async function start(prep: Prepared, o: Parameters<typeof startChild>[1] = {}): Promise<ChildService> {
  running = await startChild(prep.dataDir, o);
  figures.starts += 1;
  const point = o.env?.['VC_FAULT_POINT'];
  if (point) void running.exited.then((e) => e.signal === 'SIGKILL' && figures.crashes.add(point));
  return running;
}

/** Sends the request; 'cut' when the connection died with the process. */
async function send(c: ChildService, key: string, idem: string, body: object) {
  try {
    return await api(c.url, 'POST', '/verify/account', { key, idem, body });
  } catch {
    return 'cut' as const;
  }
}

function store(prep: Prepared) {
  const db = openReadOnly(prep.dataDir);
  try {
    const s = checkStore(db);
    const wallet = db.prepare('SELECT balance FROM wallets WHERE organization_id = ?').get(prep.organizationId) as { balance: number };
    const verifications = db.prepare("SELECT id, status, mode, charge_status, error_code FROM verifications WHERE environment = 'live' ORDER BY created_at, id").all() as {
      id: string;
      status: string;
      mode: string;
      charge_status: string;
      error_code: string | null;
    }[];
    const idem = (key: string) =>
      db.prepare('SELECT status_code, body FROM idempotency_keys WHERE scope = ? AND idem_key = ?').get(`${prep.organizationId}:live`, key) as
        | { status_code: number; body: string }
        | undefined;
    const job = (id: string) => db.prepare('SELECT state, attempts, lease_until_ms FROM jobs WHERE id = ?').get(id) as { state: string; attempts: number; lease_until_ms: number | null } | undefined;
    const events = (id: string) => (db.prepare('SELECT count(*) AS n FROM outbox_events WHERE verification_id = ?').get(id) as { n: number }).n;
    const ledger = (db.prepare("SELECT sum(kind = 'charge') AS charges, sum(kind = 'reversal') AS reversals FROM ledger_entries WHERE verification_id IS NOT NULL").get() as {
      charges: number | null;
      reversals: number | null;
    });
    // Read everything now: the connection closes on return.
    return { s, balance: wallet.balance, verifications, idem, job, events, ledger: { charges: ledger.charges ?? 0, reversals: ledger.reversals ?? 0 }, db };
  } catch (e) {
    db.close();
    throw e;
  }
}

function expectSound(s: ReturnType<typeof checkStore>) {
  figures.storeChecks += 1;
  expect(s.integrity).toBe('ok');
  expect(s.ledgerMismatches).toEqual([]);
  expect(s.negativeBalances).toBe(0);
  expect(s.chargeAnomalies).toEqual([]);
  expect(s.recordLedgerMismatches).toEqual([]);
}

describe('VC_FAULT_POINT parsing', () => {
  it('is off when unset, refuses unknown points and bad counts', () => {
    expect(readFaultConfig({})).toBeNull();
    expect(readFaultConfig({ VC_FAULT_POINT: 'after-claim' })).toEqual({ point: 'after-claim', after: 1 });
    expect(readFaultConfig({ VC_FAULT_POINT: 'after-upstream', VC_FAULT_AFTER: '3' })).toEqual({ point: 'after-upstream', after: 3 });
    expect(() => readFaultConfig({ VC_FAULT_POINT: 'after-clam' })).toThrow(/VC_FAULT_POINT/);
    expect(() => readFaultConfig({ VC_FAULT_POINT: 'after-claim', VC_FAULT_AFTER: '0' })).toThrow(/VC_FAULT_AFTER/);
  });
});

describe('crash at a fault point, then restart on the same data', () => {
  it('after-commit-before-response: the client saw nothing; its retry replays the committed answer, charged once', async () => {
    const prep = await prepareDataDir({ price: PRICE, balance: BALANCE });
    const c = await start(prep, { env: { VC_FAULT_POINT: 'after-commit-before-response' } });
    const idem = newKey();
    expect(await send(c, prep.liveKey, idem, NG_OK)).toBe('cut');
    expect((await c.exited).signal).toBe('SIGKILL');

    const after = store(prep);
    expectSound(after.s);
    expect(after.verifications).toHaveLength(1);
    expect(after.verifications[0]).toMatchObject({ status: 'success', charge_status: 'charged' });
    expect(after.balance).toBe(BALANCE - PRICE);
    const stored = after.idem(idem);
    after.db.close();
    expect(stored?.status_code).toBe(200);

    const c2 = await start(prep);
    const retry = await send(c2, prep.liveKey, idem, NG_OK);
    if (retry === 'cut') throw new Error('restarted service did not answer');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(stored!.body);
    expect(retry.body.id).toBe(after.verifications[0]!.id);
    await stopChild(c2);
    const end = store(prep);
    expectSound(end.s);
    expect([end.balance, end.ledger.charges, end.verifications.length]).toEqual([BALANCE - PRICE, 1, 1]);
    end.db.close();
  });

  it('after-upstream (sync, live): the charge waits for the guard, the retry is a new check, the stranded one is reversed once', async () => {
    const prep = await prepareDataDir({ price: PRICE, balance: BALANCE });
    const c = await start(prep, { env: { VC_FAULT_POINT: 'after-upstream' } });
    const idem = newKey();
    expect(await send(c, prep.liveKey, idem, NG_OK)).toBe('cut');
    expect((await c.exited).signal).toBe('SIGKILL');

    const after = store(prep);
    expectSound(after.s);
    expect(after.verifications).toHaveLength(1);
    const stranded = after.verifications[0]!;
    expect(stranded).toMatchObject({ status: 'pending', mode: 'sync', charge_status: 'charged' });
    expect(after.job(`guard_${stranded.id}`)?.state).toBe('queued');
    // No response was stored, so the key is free: the client's retry executes.
    expect(after.idem(idem)).toBeUndefined();
    after.db.close();

    const c2 = await start(prep);
    const retry = await send(c2, prep.liveKey, idem, NG_OK);
    if (retry === 'cut') throw new Error('restarted service did not answer');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.id).not.toBe(stranded.id);
    expect(retry.body.charge.status).toBe('charged');
    await stopChild(c2);

    // The same data dir, started once the guard is due: the stranded charge is reversed, exactly once.
    const c3 = await start(prep, { clockOffsetMs: SYNC_GUARD_MS + 1000 });
    await until(
      () => {
        const v = store(prep);
        v.db.close();
        return v.verifications.find((x) => x.id === stranded.id)?.status !== 'pending';
      },
      30_000,
      () => 'guard did not settle the stranded verification',
    );
    await stopChild(c3);
    const end = store(prep);
    expectSound(end.s);
    expect(end.verifications.find((x) => x.id === stranded.id)).toMatchObject({ status: 'error', error_code: 'VERIFICATION_ERROR', charge_status: 'reversed' });
    expect([end.balance, end.ledger.charges, end.ledger.reversals]).toEqual([BALANCE - PRICE, 2, 1]);
    end.db.close();
  });

  it('after-charge (async, live): the charge committed with its stored 202, so the retry replays it — never a second charge', async () => {
    const prep = await prepareDataDir({ price: PRICE, balance: BALANCE });
    const c = await start(prep, { env: { VC_FAULT_POINT: 'after-charge' } });
    const idem = newKey();
    const body = { ...NG_OK, mode: 'async' };
    expect(await send(c, prep.liveKey, idem, body)).toBe('cut');
    expect((await c.exited).signal).toBe('SIGKILL');

    const after = store(prep);
    expectSound(after.s);
    expect(after.verifications).toHaveLength(1);
    const v = after.verifications[0]!;
    expect(v).toMatchObject({ status: 'pending', mode: 'async', charge_status: 'charged' });
    const stored = after.idem(idem);
    after.db.close();
    expect(stored?.status_code).toBe(202);

    const c2 = await start(prep);
    const retry = await send(c2, prep.liveKey, idem, body);
    if (retry === 'cut') throw new Error('restarted service did not answer');
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(v.id);
    await until(
      () => {
        const s = store(prep);
        s.db.close();
        return s.verifications[0]?.status !== 'pending';
      },
      30_000,
      () => 'async verification did not complete after restart',
    );
    await stopChild(c2);
    const end = store(prep);
    expectSound(end.s);
    expect(end.verifications).toHaveLength(1);
    expect([end.balance, end.ledger.charges, end.events(v.id)]).toEqual([BALANCE - PRICE, 1, 1]);
    end.db.close();
  });

  for (const point of ['after-claim', 'after-upstream'] as const) {
    it(`${point} (async, live): the job held by the dead process runs again after the restart; one charge, one event`, async () => {
      const prep = await prepareDataDir({ price: PRICE, balance: BALANCE });
      const c = await start(prep, { env: { VC_FAULT_POINT: point } });
      const idem = newKey();
      const body = { ...NG_OK, mode: 'async' };
      // The 202 is sent right after the commit; the worker may claim (and die) before or after it leaves.
      const first = await send(c, prep.liveKey, idem, body);
      expect((await c.exited).signal).toBe('SIGKILL');

      const after = store(prep);
      expectSound(after.s);
      expect(after.verifications).toHaveLength(1);
      const v = after.verifications[0]!;
      expect(v).toMatchObject({ status: 'pending', mode: 'async', charge_status: 'charged' });
      const job = after.job(`job_${v.id}`);
      expect(job).toMatchObject({ state: 'leased', attempts: 1 });
      expect(job!.lease_until_ms).toBeGreaterThan(0);
      const stored = after.idem(idem);
      after.db.close();
      expect(stored?.status_code).toBe(202);
      if (first !== 'cut') expect(first.text).toBe(stored!.body);

      // Restarted one lease later (a real restart sooner waits out the rest of the 60 s lease first).
      const c2 = await start(prep, { clockOffsetMs: LEASE_MS + 1000 });
      await until(
        () => {
          const s = store(prep);
          s.db.close();
          return s.verifications[0]?.status !== 'pending';
        },
        30_000,
        () => 'async verification did not complete after restart',
      );
      const retry = await send(c2, prep.liveKey, idem, body);
      if (retry === 'cut') throw new Error('restarted service did not answer');
      expect([retry.status, retry.headers.get('idempotent-replayed'), retry.text]).toEqual([202, 'true', stored!.body]);
      await stopChild(c2);
      const end = store(prep);
      expectSound(end.s);
      expect(end.verifications).toHaveLength(1);
      expect(end.verifications[0]).toMatchObject({ status: 'success', charge_status: 'charged' });
      expect(end.job(`job_${v.id}`)).toMatchObject({ state: 'done', attempts: 2 });
      expect(end.events(v.id)).toBe(1);
      expect([end.balance, end.ledger.charges, end.ledger.reversals]).toEqual([BALANCE - PRICE, 1, 0]);
      end.db.close();
    });
  }
});
