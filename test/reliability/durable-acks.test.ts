// "Acknowledged means on disk" with the WAL sync off the event loop (docs/performance.md, "Durability off the event
// loop"): the service's syncs are instrumented and held back by a random number of timer turns, and every answer
// and every webhook is checked, at the moment it arrives, against the syncs that have completed. A record may be
// committed before its sync, but nothing built on it may leave the service until the sync covering its commit
// has completed on disk.
import type { Database } from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestReceiver, type ReceivedRequest } from '../../src-main/core/webhooks/test-receiver';
import type { DurabilityObserver } from '../../src-main/store/write-port';
import { api, NG_OK, newKey, startTestService, type TestService } from '../helpers/harness';
import { seededRandom } from '../../src-shared/seeded-random';


const SEED = Number(process.env['VC_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

/**
 * Watches the service's group commits and syncs. At each commit it notes which verifications and outbox events
 * first became visible in it (their commit number); each sync is held back a random 0–15 ms before it counts.
 */
class SyncWatch implements DurabilityObserver {
  db: Database | null = null;
  syncedUpTo = 0;
  commits = 0;
  syncs = 0;
  readonly verificationCommit = new Map<string, number>();
  readonly eventCommit = new Map<string, number>();
  private lastVerification = 0;
  private lastEvent = 0;

  constructor(private readonly random: () => number) {}

  committed(seq: number): void {
    this.commits = seq;
    const db = this.db;
    if (!db) return;
    for (const r of db.prepare('SELECT _rowid_ AS n, id FROM verifications WHERE _rowid_ > ? ORDER BY _rowid_').all(this.lastVerification) as { n: number; id: string }[]) {
      this.verificationCommit.set(r.id, seq);
      this.lastVerification = r.n;
    }
    for (const r of db.prepare('SELECT _rowid_ AS n, verification_id AS v FROM outbox_events WHERE _rowid_ > ? ORDER BY _rowid_').all(this.lastEvent) as { n: number; v: string }[]) {
      this.eventCommit.set(r.v, seq);
      this.lastEvent = r.n;
    }
  }

  async synced(seq: number): Promise<void> {
    await new Promise((r) => setTimeout(r, Math.floor(this.random() * 16)));
    this.syncs++;
    this.syncedUpTo = Math.max(this.syncedUpTo, seq);
  }
}

const violations: string[] = [];
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
  violations.length = 0;
});

function check(watch: SyncWatch, what: string, commit: number | undefined): void {
  if (commit === undefined) violations.push(`${what}: its commit was never seen`);
  else if (commit > watch.syncedUpTo) violations.push(`${what}: arrived with commit ${commit} not yet synced (synced up to ${watch.syncedUpTo})`);
}

describe('acknowledged writes are on disk before anything built on them leaves', () => {
  it(`answers, replays and webhooks wait for the sync of their commit (seed ${SEED})`, async () => {
    const random = seededRandom(SEED);
    const watch = new SyncWatch(random);
    const receiver = await startTestReceiver({
      onRequest: (req: ReceivedRequest) => {
        const body = JSON.parse(req.rawBody.toString('utf8')) as { verificationId: string };
        check(watch, `webhook for ${body.verificationId}`, watch.eventCommit.get(body.verificationId));
      },
    });
    stops.push(() => receiver.close());
    const ts: TestService = await startTestService({
      allowWebhookHosts: [`127.0.0.1:${receiver.port}`],
      durabilityObserver: watch,
    });
    stops.push(() => ts.stop());
    watch.db = ts.service.deps.db!;
    const hook = await api(ts.url, 'POST', '/client/webhooks', {
      key: ts.sandboxKey,
      body: { url: `${receiver.url}/hook`, events: ['verification.completed', 'verification.failed'] },
    });
    expect(hook.status).toBe(201);

    // Sync and async sandbox checks, concurrently, some sent twice with one Idempotency-Key (the second one
    // usually replays the first's stored answer, which must wait for that answer's sync too).
    const sends: Promise<void>[] = [];
    let asyncCount = 0;
    for (let i = 0; i < 60; i++) {
      const asyncMode = random() < 0.4;
      if (asyncMode) asyncCount++;
      const idem = newKey();
      const body = asyncMode ? { ...NG_OK, mode: 'async' } : NG_OK;
      const times = random() < 0.25 ? 2 : 1;
      for (let t = 0; t < times; t++) {
        sends.push(
          api(ts.url, 'POST', '/verify/account', { key: ts.sandboxKey, idem, body }).then((r) => {
            if (r.status === 409) return; // the duplicate arrived while the first was in flight: nothing stored to show
            const id = (r.body as { id?: string }).id;
            check(watch, `answer ${r.status} for ${id ?? r.text}`, id ? watch.verificationCommit.get(id) : undefined);
          }),
        );
      }
    }
    await Promise.all(sends);
    const delivered = await receiver.waitFor(asyncCount, 20_000);
    expect(delivered.length).toBeGreaterThanOrEqual(asyncCount);

    // Not vacuous: the syncs really were instrumented and lagged behind the commits they covered.
    expect(watch.commits).toBeGreaterThan(0);
    expect(watch.syncs).toBeGreaterThan(0);
    expect(violations, `seed ${SEED}`).toEqual([]);
  });
});
