// Failed logins cannot starve other principals (issue 16, item 3): password hashing runs on a pool of its own
// and JWT verification is synchronous HMAC, so a Bearer request is answered while a pile of failed logins is still
// hashing — on libuv's shared pool the Bearer request's WebCrypto HMAC queued behind them. Ordering, not timing:
// each login costs a full scrypt at N = 2^15 and the pool holds all of them when the Bearer requests are sent.
// The failed logins leave from distinct loopback addresses (127.0.0.x): one address may hold only two places on the
// pool (core/auth/sign-in.ts; test/integration/console/team-sign-in.test.ts), so this is the distributed case.
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_THREADS, passwordPoolLoad } from '../../../src-main/core/auth/passwords';
import { verifyAccessToken } from '../../../src-main/core/auth/tokens';
import { api, login, startTestService, type TestService } from '../../helpers/harness';

let ts: TestService;
beforeAll(async () => {
  ts = await startTestService({ scryptN: 2 ** 15 });
});
afterAll(async () => {
  await ts.stop();
});

/** A failed login sent from a given local address. */
function loginFrom(localAddress: string, email: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ email, password: 'wrong password' });
    const req = httpRequest(
      { host: '127.0.0.1', port: ts.port, method: 'POST', path: '/api/v1/auth/login', localAddress, agent: false, headers: { Host: `127.0.0.1:${ts.port}`, 'Content-Type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('failed logins and other principals', () => {
  it('answers Bearer and API-key requests while failed logins still wait for the hashing pool', async () => {
    const { accessToken } = await login(ts.url, ts.email);
    expect((await verifyAccessToken(ts.service.deps, accessToken)).userId).toBe(ts.org!.owner.id);

    // Unknown emails: each failed login hashes (the dummy hash) and none is throttled.
    const failures = 4 * PASSWORD_THREADS + 4;
    let loginsAnswered = 0;
    const logins = Array.from({ length: failures }, (_, i) =>
      loginFrom(`127.0.0.${10 + i}`, `nobody-${randomUUID()}@example.com`).then((status) => {
        loginsAnswered++;
        return status;
      }),
    );
    // Wait until the pool is full and hashes are queued behind it (a condition, polled).
    while (!(passwordPoolLoad().running === PASSWORD_THREADS && passwordPoolLoad().waiting > 0)) await new Promise((r) => setTimeout(r, 1));

    const bearer = await api(ts.url, 'GET', '/client/api-keys', { token: accessToken });
    const answeredBeforeBearer = loginsAnswered;
    const apiKey = await api(ts.url, 'GET', '/verify?limit=1', { key: ts.sandboxKey });
    expect(bearer.status).toBe(200);
    expect(apiKey.status).toBe(200);
    // At most the hashes already running when the Bearer request was sent can have finished before its answer (on
    // libuv's four shared threads it waited for four whole hashes); the queued logins are still waiting.
    expect(answeredBeforeBearer).toBeLessThanOrEqual(PASSWORD_THREADS);

    expect(new Set(await Promise.all(logins))).toEqual(new Set([401]));
  });
});
