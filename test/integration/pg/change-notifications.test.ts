// PostgreSQL migration 18: the database announces the changes the console shows on `vc_events` and settings changes
// on `vc_settings`, from triggers inside the changing transaction — at its commit, never for a rollback; changes
// only while some session holds the demand lock (an instance that records); a message stays under NOTIFY's
// 8,000-byte limit however many rows a statement changes; a statement of more than 100 rows is announced as one
// event per organization, environment, kind and webhook, without row ids.
//
// "Nothing was sent" is shown without waiting: notifications reach a listener in commit order, so once a marker
// committed after the statement under test has arrived, everything that statement sent has arrived too.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgPort, type PgPort } from '../../../src-main/store/pg/pg-port';
import { migratePostgres } from '../../../src-main/store/pg/migrate';
import { LIVE_DEMAND_LOCK } from '../../../src-main/store/notifications';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';

interface Heard {
  channel: string;
  payload: string;
}

let db: TestDatabase;
let port: PgPort;
let listener: pg.Client;
let heard: Heard[] = [];
let waiters: (() => void)[] = [];
let markers = 0;

beforeAll(async () => {
  db = await freshDatabase();
  port = createPgPort(db.url);
  await migratePostgres(port);
  listener = new pg.Client({ connectionString: db.url });
  await listener.connect();
  listener.on('notification', (n) => {
    heard.push({ channel: n.channel, payload: n.payload ?? '' });
    for (const w of waiters) w();
  });
  await listener.query('LISTEN vc_events; LISTEN vc_settings; LISTEN vc_test_marker');
  // What a recording instance holds (store/notifications.ts LIVE_DEMAND_LOCK): changes are sent only meanwhile.
  await listener.query('SELECT pg_advisory_lock_shared($1, $2)', [...LIVE_DEMAND_LOCK]);
  await port.exec("INSERT INTO organizations (id, name, created_at) VALUES ('org_a', 'A', 'now'), ('org_b', 'B', 'now')");
}, 60_000);

afterAll(async () => {
  await listener?.end();
  await port?.close();
  await db?.drop();
});

/** Everything heard since the last call, up to a marker sent after `fn` committed (the marker itself left out). */
async function heardAfter(fn: () => Promise<unknown>): Promise<Heard[]> {
  await fn().catch(() => undefined);
  const tag = `m${++markers}`;
  await port.run('SELECT pg_notify(?, ?)', ['vc_test_marker', tag]);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`marker ${tag} never arrived`)), 10_000);
    const check = () => {
      if (heard.some((h) => h.channel === 'vc_test_marker' && h.payload === tag)) {
        clearTimeout(timer);
        waiters = waiters.filter((w) => w !== check);
        resolve();
      }
    };
    waiters.push(check);
    check();
  });
  const out = heard.filter((h) => h.channel !== 'vc_test_marker');
  heard = [];
  return out;
}

const events = (hs: Heard[]) => hs.filter((h) => h.channel === 'vc_events').flatMap((h) => JSON.parse(h.payload) as Record<string, string>[]);

const verificationRow = (id: string, org = 'org_a', env = 'sandbox') =>
  `('${id}', '${org}', '${env}', 'account', 'account', 'NG', '123', 'pending', 'async', '{}', 'now')`;
const insertVerifications = (rows: string[]) =>
  port.exec(`INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode, request, created_at) VALUES ${rows.join(', ')}`);

describe('change notifications (PostgreSQL migration 18)', () => {
  it('announces an inserted verification, and an update only when its status or result changed', async () => {
    expect(events(await heardAfter(() => insertVerifications([verificationRow('ver_1')])))).toEqual([{ o: 'org_a', e: 'sandbox', k: 'verification.created', v: 'ver_1' }]);
    expect(await heardAfter(() => port.exec("UPDATE verifications SET completed_at = 'later' WHERE id = 'ver_1'"))).toEqual([]);
    expect(events(await heardAfter(() => port.exec("UPDATE verifications SET status = 'success', result = '{}' WHERE id = 'ver_1'")))).toEqual([
      { o: 'org_a', e: 'sandbox', k: 'verification.updated', v: 'ver_1' },
    ]);
  });

  it('sends nothing for a transaction that rolls back', async () => {
    const hs = await heardAfter(() =>
      port.transaction(async (tx) => {
        await tx.exec(`INSERT INTO verifications (id, organization_id, environment, kind, verification_type, country, identifier, status, mode, request, created_at) VALUES ${verificationRow('ver_rolled_back')}`);
        await tx.exec("INSERT INTO settings (key, value) VALUES ('rolled', 'back')");
        throw new Error('roll back');
      }),
    );
    expect(hs).toEqual([]);
  });

  it('announces webhooks, deliveries, attempts (as their delivery) and the wallet, with their ids', async () => {
    const hs = await heardAfter(() =>
      port.transaction(async (tx) => {
        await tx.exec(`INSERT INTO webhooks (id, organization_id, environment, url, events, status, secret, active_since_ms, created_at, updated_at)
                       VALUES ('wh_1', 'org_a', 'live', 'https://x.example', '[]', 'active', 's', 0, 'now', 'now')`);
        await tx.exec(`INSERT INTO webhook_deliveries (id, webhook_id, organization_id, environment, event_id, event_type, verification_id, payload, status, created_at_ms, created_at, updated_at)
                       VALUES ('del_1', 'wh_1', 'org_a', 'live', 'evt_1', 'verification.completed', 'ver_1', '{}', 'pending', 0, 'now', 'now')`);
        await tx.exec("INSERT INTO webhook_attempts (delivery_id, kind, url, started_at, duration_ms) VALUES ('del_1', 'replay', 'https://x.example', 'now', 1)");
        await tx.exec("UPDATE webhook_deliveries SET lease_until_ms = 5 WHERE id = 'del_1'");
        await tx.exec("INSERT INTO wallets (organization_id, balance, currency, status, created_at, updated_at) VALUES ('org_a', 0, 'USD', 'active', 'now', 'now')");
        await tx.exec("UPDATE wallets SET balance = 10 WHERE organization_id = 'org_a'");
        await tx.exec("UPDATE webhooks SET secret = 't' WHERE id = 'wh_1'");
        await tx.exec("UPDATE webhooks SET status = 'inactive' WHERE id = 'wh_1'");
      }),
    );
    const delivery = { o: 'org_a', e: 'live', v: 'ver_1', d: 'del_1', w: 'wh_1' };
    // The lease and the secret are not shown: no event. PostgreSQL delivers identical notifications of one
    // transaction once: the wallet's insert and update are one event, the webhook's insert and status change too.
    expect(events(hs)).toEqual([
      { o: 'org_a', e: 'live', k: 'webhook.updated', w: 'wh_1' },
      { ...delivery, k: 'delivery.created' },
      { ...delivery, k: 'delivery.updated' },
      { o: 'org_a', k: 'wallet.updated' },
    ]);
    // In a transaction of its own, a status change is announced again.
    expect(events(await heardAfter(() => port.exec("UPDATE webhooks SET status = 'active' WHERE id = 'wh_1'")))).toEqual([{ o: 'org_a', e: 'live', k: 'webhook.updated', w: 'wh_1' }]);
  });

  it('cuts a statement of 100 changed rows into messages under 8,000 bytes, every row once', async () => {
    const ids = Array.from({ length: 100 }, (_, i) => `ver_many_${String(i).padStart(3, '0')}_${'x'.repeat(60)}`);
    const hs = await heardAfter(() => insertVerifications(ids.map((id) => verificationRow(id, 'org_b'))));
    expect(hs.length).toBeGreaterThan(1);
    for (const h of hs) expect(Buffer.byteLength(h.payload)).toBeLessThan(8000);
    expect(events(hs).map((e) => e.v)).toEqual(ids);
  });

  it('announces a statement of more than 100 rows once per organization, environment and kind, without row ids', async () => {
    const rows = Array.from({ length: 150 }, (_, i) => verificationRow(`ver_bulk_${i}`, i % 2 ? 'org_a' : 'org_b', i % 3 ? 'sandbox' : 'live'));
    const hs = await heardAfter(() => insertVerifications(rows));
    const got = events(hs).sort((a, b) => `${a.o}${a.e}`.localeCompare(`${b.o}${b.e}`));
    expect(got).toEqual([
      { o: 'org_a', e: 'live', k: 'verification.created' },
      { o: 'org_a', e: 'sandbox', k: 'verification.created' },
      { o: 'org_b', e: 'live', k: 'verification.created' },
      { o: 'org_b', e: 'sandbox', k: 'verification.created' },
    ]);
  });

  it('sends no change while no session holds the demand lock (nobody records), and settings changes always', async () => {
    await listener.query('SELECT pg_advisory_unlock_shared($1, $2)', [...LIVE_DEMAND_LOCK]);
    try {
      const hs = await heardAfter(async () => {
        await insertVerifications([verificationRow('ver_unwatched')]);
        await port.exec("INSERT INTO settings (key, value) VALUES ('unwatched', '1')");
      });
      expect(hs).toEqual([{ channel: 'vc_settings', payload: '' }]);
    } finally {
      await listener.query('SELECT pg_advisory_lock_shared($1, $2)', [...LIVE_DEMAND_LOCK]);
    }
    // Held again (by any session: here the listener's): sent again.
    expect(events(await heardAfter(() => insertVerifications([verificationRow('ver_watched')])))).toEqual([{ o: 'org_a', e: 'sandbox', k: 'verification.created', v: 'ver_watched' }]);
  });

  it('announces every statement that changes the settings table on vc_settings', async () => {
    const hs = await heardAfter(() =>
      port.transaction(async (tx) => {
        await tx.exec("INSERT INTO settings (key, value) VALUES ('service.rate_limit_per_minute', '5')");
        await tx.exec("UPDATE settings SET value = '6' WHERE key = 'service.rate_limit_per_minute'");
      }),
    );
    // Identical notifications of one transaction are delivered once.
    expect(hs).toEqual([{ channel: 'vc_settings', payload: '' }]);
    expect(await heardAfter(() => port.exec("DELETE FROM settings WHERE key = 'service.rate_limit_per_minute'"))).toEqual([{ channel: 'vc_settings', payload: '' }]);
  });
});
