// Keys and sessions on a team server (issue 17, "Many instances, one truth"): three `serve` instances on one
// PostgreSQL database. A key revoked through one instance is refused by the others on their next request; a
// refresh token rotated on one instance and presented again on another is detected as reused there, and the whole
// session ends on every instance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, login, type TestService } from '../../helpers/harness';
import { freshDatabase, type TestDatabase } from '../../helpers/pg';
import { startInstances } from '../../helpers/team-instances';

let db: TestDatabase;
const instances: TestService[] = [];
const [a, b, c] = [() => instances[0]!, () => instances[1]!, () => instances[2]!];

beforeAll(async () => {
  db = await freshDatabase();
  instances.push(...(await startInstances(db.url, 3)));
}, 60_000);

afterAll(async () => {
  for (const t of instances) await t.stop();
  await db?.drop();
});

describe('keys and sessions across instances', () => {
  it('a key revoked through one instance is refused by every other on its next request', async () => {
    const t = await login(a().url, a().email);
    const created = (await api(a().url, 'POST', '/client/api-keys', { token: t.accessToken, body: { name: 'shared', environment: 'sandbox' } })).body;
    // Used (and so looked up) on every instance first.
    for (const s of instances) expect((await api(s.url, 'GET', '/verify', { key: created.key })).status).toBe(200);
    expect((await api(b().url, 'DELETE', `/client/api-keys/${created.id}`, { token: t.accessToken })).status).toBe(200);
    for (const s of instances) {
      const r = await api(s.url, 'GET', '/verify', { key: created.key });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('API_KEY_REVOKED');
    }
  });

  it('a refresh token reused on another instance ends the session everywhere', async () => {
    const first = await login(a().url, a().email);
    const rotated = await api(a().url, 'POST', '/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(rotated.status).toBe(200);
    for (const s of instances) expect((await api(s.url, 'GET', '/client/api-keys', { token: rotated.body.accessToken })).status).toBe(200);
    // The old one again, through another instance: reuse.
    expect((await api(b().url, 'POST', '/auth/refresh', { body: { refreshToken: first.refreshToken } })).status).toBe(401);
    for (const s of instances) expect((await api(s.url, 'GET', '/client/api-keys', { token: rotated.body.accessToken })).status).toBe(401);
    expect((await api(c().url, 'POST', '/auth/refresh', { body: { refreshToken: rotated.body.refreshToken } })).status).toBe(401);
  });
});
