// Idempotency-Key handling over real HTTP (interface §7.4, decisions §8): validation of the header, replay,
// conflict, concurrent duplicates, no storage of 422s, recovery after a crash, and 24-hour retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src-main/core/clock';
import { fingerprint } from '../../../src-main/core/idempotency/idempotency';
import { api, enableLive, newKey, NG_OK, rawRequest, sqliteOnly, startTestService, type TestService } from '../../helpers/harness';

let ts: TestService;
let clock: ManualClock;
let base: string;

beforeAll(async () => {
  clock = new ManualClock();
  ts = await startTestService({ clock });
  base = ts.url;
});
afterAll(async () => {
  await ts.stop();
});

async function verificationCount(t: TestService = ts): Promise<number> {
  return (await t.service.deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM verifications'))!.n;
}

function rawPost(port: number, key: string, idem: string | undefined, body: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': key, host: `127.0.0.1:${port}` };
  if (idem !== undefined) headers['idempotency-key'] = idem;
  return rawRequest(port, 'POST', '/api/v1/verify/account', headers, JSON.stringify(body));
}

describe('the Idempotency-Key header', () => {
  it('is required: 422 IDEMPOTENCY_KEY_REQUIRED, nothing recorded', async () => {
    const before = await verificationCount();
    const r = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, body: NG_OK });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    expect(r.body.action.type).toBe('FIX_INPUT');
    expect(await verificationCount()).toBe(before);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['latin-1 byte', 'clé-1'],
    ['UTF-8 bytes', Buffer.from('ключ-1', 'utf8').toString('latin1')],
    ['a tab inside', 'abc\tdef'],
    ['only spaces', '   '],
  ])('refuses %s with 422 IDEMPOTENCY_KEY_INVALID', async (_name, value) => {
    const before = await verificationCount();
    const r = await rawPost(ts.port, ts.sandboxKey, value, NG_OK);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('IDEMPOTENCY_KEY_INVALID');
    expect(await verificationCount()).toBe(before);
  });

  it('accepts 255 printable ASCII characters (boundary)', async () => {
    const key = ('~ !' + newKey()).padEnd(255, 'x');
    const r = await rawPost(ts.port, ts.sandboxKey, key, NG_OK);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('success');
  });
});

describe('replay and conflict', () => {
  it('replays the stored response with Idempotent-Replayed: true and records once', async () => {
    const key = newKey();
    const before = await verificationCount();
    const first = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: NG_OK });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Same body with another key order and letter case normalised by the schema: the same request.
    const second = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: { bankCode: '058', accountNumber: '0123456789', country: 'NG' } });
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(await verificationCount()).toBe(before + 1);
  });

  it('replays a failed (HTTP 200) outcome too', async () => {
    const key = newKey();
    const body = { country: 'NG', accountNumber: '0000000000', bankCode: '058' };
    const first = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body });
    const second = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body });
    expect(first.body.status).toBe('failed');
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('answers the same key with another body with 409 IDEMPOTENCY_KEY_CONFLICT', async () => {
    const key = newKey();
    expect((await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: NG_OK })).status).toBe(200);
    const before = await verificationCount();
    const r = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: { ...NG_OK, accountNumber: '0690000031', bankCode: '044' } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('IDEMPOTENCY_KEY_CONFLICT');
    expect(r.body.action.type).toBe('USE_NEW_KEY');
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    expect(await verificationCount()).toBe(before);
  });

  it('scopes keys by environment: the same key under the live key executes separately', async () => {
    await enableLive(ts);
    const key = newKey();
    const s = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: NG_OK });
    const l = await api(base, 'POST', '/verify/account', { key: ts.liveKey, idem: key, body: NG_OK });
    expect(l.status).toBe(200);
    expect(l.headers.get('idempotent-replayed')).toBeNull();
    expect(l.body.id).not.toBe(s.body.id);
    expect(l.body.environment).toBe('live');
  });

  it('runs 20 concurrent duplicates exactly once', async () => {
    const key = newKey();
    const before = await verificationCount();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: NG_OK })),
    );
    expect(await verificationCount()).toBe(before + 1);
    const executed = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    expect(executed).toHaveLength(1);
    const id = executed[0]!.body.id;
    for (const r of results) {
      if (r.status === 200) {
        expect(r.body.id).toBe(id);
      } else {
        expect(r.status).toBe(409);
        expect(r.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
        expect(r.body.action.type).toBe('RETRY_LATER');
      }
    }
    // Once finished, every retry replays.
    const later = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: NG_OK });
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.body.id).toBe(id);
  });

  it('does not store a 422: the corrected body with the same key executes', async () => {
    const key = newKey();
    const bad = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: { country: 'NG', bankCode: '058' } });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    const again = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: { country: 'NG', bankCode: '058' } });
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    const before = await verificationCount();
    const good = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: NG_OK });
    expect(good.status).toBe(200);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
    expect(await verificationCount()).toBe(before + 1);
  });

  it('lets a key be reused with another body after 24 hours', async () => {
    const key = newKey();
    expect((await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: NG_OK })).status).toBe(200);
    const other = { ...NG_OK, accountNumber: '0690000031', bankCode: '044' };
    clock.advance(23 * 3600_000);
    expect((await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: other })).status).toBe(409);
    clock.advance(3600_000 + 1000);
    const before = await verificationCount();
    const r = await api(base, 'POST', '/verify/account', { key: ts.sandboxKey, idem: key, body: other });
    expect(r.status).toBe(200);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    expect(r.body.accountName).toBe('CHIDI NWOSU');
    expect(await verificationCount()).toBe(before + 1);
  });
});

describe('a key left in progress by a crashed process', () => {
  // SQLite: the one process of a data folder releases a predecessor's holds at start. On PostgreSQL other instances
  // may be alive, so a start releases nothing and a hold ends with its lease (docs/team-server.md).
  sqliteOnly.it('does not block the retry after a restart on the same data', async () => {
    const clock2 = new ManualClock();
    let first: TestService | null = await startTestService({ clock: clock2 });
    const { dataDir, sandboxKey } = first;
    const orgId = first.org!.organizationId;
    const key = newKey();
    const now = clock2.now();
    // What a process that died mid-request leaves behind: the key held, no response stored.
    await first.service.deps.sql.transaction((tx) =>
      tx.run(
        `INSERT INTO idempotency_keys (scope, idem_key, fingerprint, state, owner, created_at_ms, expires_at_ms)
         VALUES (?, ?, ?, 'in_progress', 'crashed-process', ?, ?)`,
        [`${orgId}:sandbox`, key, fingerprint('POST', '/verify/account', NG_OK), now, now + 24 * 3600_000],
      ),
    );
    // While that row stands, the same request is told to wait (the row is really consulted).
    const blocked = await api(first.url, 'POST', '/verify/account', { key: sandboxKey, idem: key, body: NG_OK });
    expect(blocked.status).toBe(409);
    expect(blocked.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    await first.stop({ keepDir: true });
    first = null; // eslint-disable-line no-useless-assignment -- read by the finally block when a step above throws

    const second = await startTestService({ clock: clock2, dataDir, bootstrap: false });
    try {
      const before = await verificationCount(second);
      const r = await api(second.url, 'POST', '/verify/account', { key: sandboxKey, idem: key, body: NG_OK });
      expect(r.status).toBe(200);
      expect(r.headers.get('idempotent-replayed')).toBeNull();
      expect(r.body.status).toBe('success');
      expect(await verificationCount(second)).toBe(before + 1);
      const replay = await api(second.url, 'POST', '/verify/account', { key: sandboxKey, idem: key, body: NG_OK });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.id).toBe(r.body.id);
    } finally {
      await second.stop();
    }
  });
});
