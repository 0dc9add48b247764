// Fault injection, idempotent replay and the /_sim control endpoints of the upstream simulator, over real sockets.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { startSimulator, type SimulatorHandle } from '../../../src-main/simulator';
import { cop, generic, post, vop } from './sim-client';

const ACCOUNT = '/v1/checks/account';
const body = (reference = 'vrf_f') => generic('account', { accountNumber: '0123456789', accountName: 'Adaeze Nwosu' }, reference);

/** The error a fetch failed with, following `cause` (undici puts the socket error there). */
async function failure(p: Promise<unknown>): Promise<{ name: string; code: string | undefined }> {
  try {
    await p;
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    return { name: err.name, code: err.cause?.code };
  }
  throw new Error('expected the request to fail');
}

let sim: SimulatorHandle;
beforeEach(async () => {
  sim = await startSimulator();
});
afterEach(async () => {
  await sim.stop();
});

describe('faults', () => {
  it('latency=MS answers normally, not before MS', async () => {
    const started = performance.now();
    const r = await post(sim, ACCOUNT, body(), { 'x-sim-fault': 'latency=150' });
    // A lower bound only: a busy machine can make it later, never earlier (5 ms for timer rounding).
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ result: 'MATCH' });
    expect(sim.requests()[0]).toMatchObject({ fault: 'latency=150', status: 200, outcome: 'MATCH' });
  });

  it('timeout never answers: the client gives up, and stop() does not wait for the hung request', async () => {
    const ctrl = new AbortController();
    const pending = post(sim, ACCOUNT, body('vrf_timeout'), { 'x-sim-fault': 'timeout', 'idempotency-key': 'vrf_timeout' }, ctrl.signal);
    // Wait until the simulator has the request, then abort as a client deadline would.
    await expect.poll(() => sim.requests().length).toBe(1);
    ctrl.abort();
    expect((await failure(pending)).name).toBe('AbortError');
    expect(sim.requests()[0]).toMatchObject({ fault: 'timeout', status: null });
    // The check ran upstream: a retry with the same key gets that answer, not a second run.
    const retry = await post(sim, ACCOUNT, body('vrf_timeout'), { 'idempotency-key': 'vrf_timeout' });
    expect(retry.json).toMatchObject({ result: 'MATCH' });
    expect(sim.executions('vrf_timeout')).toBe(1);
  });

  it('stop() ends a request that is still hanging', async () => {
    const pending = post(sim, ACCOUNT, body(), { 'x-sim-fault': 'timeout' });
    await expect.poll(() => sim.requests().length).toBe(1);
    await sim.stop();
    const f = await failure(pending);
    expect(f.name).toBe('TypeError'); // fetch failed: the socket was destroyed
  });

  it.each([500, 502, 503])('status=%i answers that status and does not run the check', async (status) => {
    const r = await post(sim, ACCOUNT, body(), { 'x-sim-fault': `status=${status}`, 'idempotency-key': `k${status}` });
    expect(r.status).toBe(status);
    expect(sim.executions(`k${status}`)).toBe(0);
  });

  it('429 and rate-limit=S answer 429 with Retry-After', async () => {
    const plain = await post(sim, ACCOUNT, body(), { 'x-sim-fault': '429' });
    expect(plain.status).toBe(429);
    expect(plain.headers.get('retry-after')).toBe('1');
    const r = await post(sim, ACCOUNT, body(), { 'x-sim-fault': 'rate-limit=7' });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('7');
    // rate-limit-date=S: the same delay as an HTTP-date (IMF-fixdate), the other form RFC 9110 allows.
    const d = await post(sim, ACCOUNT, body(), { 'x-sim-fault': 'rate-limit-date=600' });
    expect(d.status).toBe(429);
    expect(d.headers.get('retry-after')).toMatch(/^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
    const inS = (Date.parse(d.headers.get('retry-after')!) - Date.now()) / 1000;
    expect(inS).toBeGreaterThan(500);
    expect(inS).toBeLessThanOrEqual(600);
  });

  it('malformed answers 200 with a body that is not JSON; malformed=shape with JSON of the wrong shape', async () => {
    const bad = await post(sim, ACCOUNT, body(), { 'x-sim-fault': 'malformed' });
    expect(bad.status).toBe(200);
    expect(bad.headers.get('content-type')).toContain('application/json');
    expect(bad.json).toBeNull();
    const shape = await post(sim, ACCOUNT, body(), { 'x-sim-fault': 'malformed=shape' });
    expect(shape.status).toBe(200);
    expect(shape.json).not.toBeNull();
    expect(shape.json).not.toHaveProperty('result');
    // malformed=large: the check's own answer, over the 1 MB a client reads.
    const large = await post(sim, ACCOUNT, body(), { 'x-sim-fault': 'malformed=large' });
    expect(large.status).toBe(200);
    expect(large.text.length).toBeGreaterThan(1024 * 1024);
    expect(large.json).toMatchObject({ result: 'MATCH' });
  });

  it('reset destroys the connection without an answer', async () => {
    const f = await failure(post(sim, ACCOUNT, body(), { 'x-sim-fault': 'reset', 'idempotency-key': 'vrf_reset' }));
    expect(f.name).toBe('TypeError');
    expect(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']).toContain(f.code);
    expect(sim.executions('vrf_reset')).toBe(0);
  });

  it('late=MS answers after the client deadline; the retry replays without running the check again', async () => {
    const ctrl = new AbortController();
    const pending = post(sim, ACCOUNT, body('vrf_late'), { 'x-sim-fault': 'late=5000', 'idempotency-key': 'vrf_late' }, ctrl.signal);
    await expect.poll(() => sim.requests().length).toBe(1);
    ctrl.abort();
    expect((await failure(pending)).name).toBe('AbortError');
    const retry = await post(sim, ACCOUNT, body('vrf_late'), { 'idempotency-key': 'vrf_late' });
    expect(retry.json).toMatchObject({ result: 'MATCH' });
    expect(sim.requests()[1]).toMatchObject({ replayed: true });
    expect(sim.executions('vrf_late')).toBe(1);
  });

  it('a configured fault with a count hits the next N requests only; the header fault wins over it', async () => {
    sim.setFault('status=503', 2);
    expect((await post(sim, ACCOUNT, body())).status).toBe(503);
    expect((await post(sim, ACCOUNT, body(), { 'x-sim-fault': 'rate-limit=3' })).status).toBe(429);
    expect((await post(sim, ACCOUNT, body())).status).toBe(503);
    expect((await post(sim, ACCOUNT, body())).status).toBe(200);
  });

  it('a configured fault without a count stays until cleared; the fault option sets one at start', async () => {
    sim.setFault({ type: 'status', status: 502 });
    for (let i = 0; i < 3; i++) expect((await post(sim, ACCOUNT, body())).status).toBe(502);
    sim.setFault(null);
    expect((await post(sim, ACCOUNT, body())).status).toBe(200);
    const faulty = await startSimulator({ fault: 'status=500', faultCount: 1 });
    try {
      expect((await post(faulty, ACCOUNT, body())).status).toBe(500);
      expect((await post(faulty, ACCOUNT, body())).status).toBe(200);
    } finally {
      await faulty.stop();
    }
  });

  it('an unknown fault is refused with 400 and setFault throws', async () => {
    const r = await post(sim, ACCOUNT, body(), { 'x-sim-fault': 'explode' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: 'invalid_fault' });
    expect(() => sim.setFault('status=404')).toThrow(/500, 502 or 503/);
    expect(() => sim.setFault('latency=-1')).toThrow();
  });

  it('faults apply to the EPC and CoP APIs too', async () => {
    expect((await post(sim, '/payee-verifications', vop('DE89370400440532013000', 'Max Mustermann'), { 'x-sim-fault': 'status=503' })).status).toBe(503);
    const r = await post(sim, '/open-banking/v3.1/pisp/account-name-check', cop('20000055779911', 'Jane Smith'), { 'x-sim-fault': 'rate-limit=2' });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('2');
  });
});

describe('idempotency', () => {
  it('replays the first answer for a repeated Idempotency-Key without running the check again', async () => {
    const first = await post(sim, ACCOUNT, body('vrf_idem'), { 'idempotency-key': 'vrf_idem' });
    // Even a different query under the same key gets the first answer: the key decides.
    const second = await post(sim, ACCOUNT, generic('account', { accountNumber: '1111110000' }, 'vrf_idem'), { 'idempotency-key': 'vrf_idem' });
    expect(second.text).toBe(first.text);
    expect(sim.executions('vrf_idem')).toBe(1);
    expect(sim.requests().map((r) => r.replayed)).toEqual([false, true]);
  });

  it('runs every request without a key', async () => {
    await post(sim, ACCOUNT, body());
    await post(sim, ACCOUNT, body());
    expect(sim.requests().map((r) => r.replayed)).toEqual([false, false]);
  });

  it('uses X-Request-ID for EPC VoP and x-idempotency-key for CoP', async () => {
    const id = 'a2b7c9d1-0000-4000-8000-00000000abcd';
    await post(sim, '/payee-verifications', vop('DE89370400440532013000', 'Max Mustermann', id), { 'x-request-id': id });
    const again = await post(sim, '/payee-verifications', vop('DE89370400440532013000', 'Someone Else', id), { 'x-request-id': id });
    expect(again.json).toMatchObject({ verificationResult: 'MTCH' });
    expect(sim.executions(id)).toBe(1);
    await post(sim, '/open-banking/v3.1/pisp/account-name-check', cop('20000055779911', 'Jane Smith'), { 'x-idempotency-key': 'cop-1' });
    const copAgain = await post(sim, '/open-banking/v3.1/pisp/account-name-check', cop('20000055779911', 'Nobody'), { 'x-idempotency-key': 'cop-1' });
    expect(copAgain.json).toMatchObject({ Data: { VerificationReport: { Matched: true } } });
    expect(sim.executions('cop-1')).toBe(1);
  });

  it('does not store rejections: a retry after a 503 runs the check once', async () => {
    expect((await post(sim, ACCOUNT, body('vrf_r'), { 'idempotency-key': 'vrf_r', 'x-sim-fault': 'status=503' })).status).toBe(503);
    expect((await post(sim, ACCOUNT, body('vrf_r'), { 'idempotency-key': 'vrf_r' })).status).toBe(200);
    expect((await post(sim, ACCOUNT, body('vrf_r'), { 'idempotency-key': 'vrf_r' })).status).toBe(200);
    expect(sim.executions('vrf_r')).toBe(1);
    expect(sim.requests().map((r) => r.replayed)).toEqual([false, false, true]);
  });

  it('a malformed delivery stores the real answer, which a retry then gets', async () => {
    const bad = await post(sim, ACCOUNT, body('vrf_m'), { 'idempotency-key': 'vrf_m', 'x-sim-fault': 'malformed' });
    expect(bad.json).toBeNull();
    const retry = await post(sim, ACCOUNT, body('vrf_m'), { 'idempotency-key': 'vrf_m' });
    expect(retry.json).toMatchObject({ result: 'MATCH' });
    expect(sim.executions('vrf_m')).toBe(1);
  });
});

describe('control endpoints', () => {
  const ctl = async (method: string, path: string, json?: unknown) => {
    const res = await fetch(sim.url + path, { method, ...(json !== undefined ? { body: JSON.stringify(json), headers: { 'content-type': 'application/json' } } : {}) });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
  };

  it('sets, shows and clears a fault over HTTP', async () => {
    expect(await ctl('GET', '/_sim/faults')).toEqual({ status: 200, json: { fault: null, remaining: null } });
    expect(await ctl('POST', '/_sim/faults', { fault: '429', count: 1 })).toEqual({ status: 200, json: { fault: 'rate-limit=1', remaining: 1 } });
    expect((await post(sim, ACCOUNT, body())).status).toBe(429);
    expect((await post(sim, ACCOUNT, body())).status).toBe(200);
    await ctl('POST', '/_sim/faults', { fault: 'status=500' });
    expect((await ctl('GET', '/_sim/faults')).json).toEqual({ fault: 'status=500', remaining: null });
    expect((await ctl('DELETE', '/_sim/faults')).status).toBe(204);
    expect((await post(sim, ACCOUNT, body())).status).toBe(200);
    expect((await ctl('POST', '/_sim/faults', { fault: 'bogus' })).status).toBe(400);
    expect((await ctl('POST', '/_sim/faults', { count: 2 })).status).toBe(400);
  });

  it('lists the requests with their keys and executions, hides the bearer token, and can be cleared', async () => {
    await post(sim, ACCOUNT, body('vrf_l'), { 'idempotency-key': 'vrf_l' });
    await post(sim, ACCOUNT, body('vrf_l'), { 'idempotency-key': 'vrf_l' });
    await ctl('GET', '/_sim/health');
    const listed = (await ctl('GET', '/_sim/requests')).json as { requests: Record<string, unknown>[] };
    expect(listed.requests).toHaveLength(2); // control calls are not listed
    expect(listed.requests[1]).toMatchObject({ idempotencyKey: 'vrf_l', replayed: true, executions: 1, api: 'generic', kind: 'account', status: 200 });
    expect((listed.requests[0]!['headers'] as Record<string, string>)['authorization']).toBe('Bearer ***');
    expect(sim.requests()[0]!.headers['authorization']).toBe('Bearer test-key');
    expect((await ctl('DELETE', '/_sim/requests')).status).toBe(204);
    expect(((await ctl('GET', '/_sim/requests')).json as { requests: unknown[] }).requests).toEqual([]);
    expect(sim.executions('vrf_l')).toBe(0);
  });

  it('hides every credential header in the request log: X-API-Key, Basic and other schemes, proxy credentials, cookies', async () => {
    await post(sim, ACCOUNT, body('vrf_k'), { authorization: '', 'x-api-key': 'sk_live_apikey_secret' });
    await post(sim, ACCOUNT, body('vrf_b'), {
      authorization: 'Basic dXNlcjpwYXNzd29yZC1zZWNyZXQ=',
      'proxy-authorization': 'Basic cHJveHk6cHJveHktc2VjcmV0',
      cookie: 'session=cookie-secret',
    });
    const res = await fetch(`${sim.url}/_sim/requests`);
    const text = await res.text();
    for (const secret of ['sk_live_apikey_secret', 'dXNlcjpwYXNzd29yZC1zZWNyZXQ=', 'cHJveHk6cHJveHktc2VjcmV0', 'cookie-secret']) expect(text).not.toContain(secret);
    const [k, b] = (JSON.parse(text) as { requests: { headers: Record<string, string> }[] }).requests;
    expect(k!.headers['x-api-key']).toBe('***');
    expect(b!.headers).toMatchObject({ authorization: 'Basic ***', 'proxy-authorization': 'Basic ***', cookie: '***' });
  });

  it('answers health and 404s unknown control paths', async () => {
    expect(await ctl('GET', '/_sim/health')).toEqual({ status: 200, json: { ok: true } });
    expect((await ctl('GET', '/_sim/nothing')).status).toBe(404);
  });
});

describe('TLS mode', () => {
  it('serves HTTPS with a certificate the handle exposes as ca', async () => {
    const tls = await startSimulator({ tls: true });
    const agent = new Agent({ connect: { ca: tls.ca! } });
    try {
      expect(tls.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(tls.ca).toContain('BEGIN CERTIFICATE');
      const res = await request(`${tls.url}/v1/checks/account`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
        body: JSON.stringify(body()),
      });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toMatchObject({ result: 'MATCH' });
      // Without the CA the self-signed certificate is refused.
      await expect(request(`${tls.url}/_sim/health`, { dispatcher: new Agent() })).rejects.toThrow();
    } finally {
      await agent.close();
      await tls.stop();
    }
  });
});
