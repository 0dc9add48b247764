// The HTTP door's error mapping and guards over a real socket (interface §7.1/§7.2, decisions §1): body
// parsing errors, unknown routes, the error body shape, the loopback Host check, no CORS, rate limiting, OpenAPI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_ERRORS, type HttpErrorCode } from '../../../src-shared/errors';
import { api, newKey, NG_OK, rawRequest, startTestService, type ApiResponse, type TestService } from '../../helpers/harness';

let ts: TestService;
let base: string;
const seen: ApiResponse[] = [];

async function call(method: string, path: string, o: Parameters<typeof api>[3] = {}) {
  const r = await api(base, method, path, o);
  seen.push(r);
  return r;
}

/** The §7.1 body: message/code/statusCode, action exactly when the catalogue has one, never a stack. */
function expectErrorBody(r: ApiResponse, code: HttpErrorCode) {
  const def = HTTP_ERRORS[code] as { status: number; action?: string };
  expect(r.status).toBe(def.status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.body.code).toBe(code);
  expect(r.body.statusCode).toBe(def.status);
  expect(typeof r.body.message).toBe('string');
  expect(r.body.message.length).toBeGreaterThan(0);
  if (def.action) {
    expect(r.body.action.type).toBe(def.action);
    expect(typeof r.body.action.hint).toBe('string');
  } else {
    expect(r.body.action).toBeUndefined();
  }
  expect(r.text).not.toMatch(/stack|\bat .+\.(ts|js):\d+/);
  const allowed = new Set(['message', 'code', 'statusCode', 'action', 'details']);
  for (const k of Object.keys(r.body)) expect(allowed.has(k), k).toBe(true);
}

beforeAll(async () => {
  ts = await startTestService();
  base = ts.url;
});
afterAll(async () => {
  await ts.stop();
});

describe('request body errors', () => {
  it('invalid JSON → 400 INVALID_JSON', async () => {
    const r = await call('POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: '{"country": "NG",' });
    expectErrorBody(r, 'INVALID_JSON');
  });

  it('a text/plain body → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const r = await call('POST', '/verify/account', {
      key: ts.sandboxKey,
      idem: newKey(),
      body: JSON.stringify(NG_OK),
      headers: { 'content-type': 'text/plain' },
    });
    expectErrorBody(r, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('a body over 1 MB → 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ ...NG_OK, accountName: 'x'.repeat(1024 * 1024 + 10) });
    const r = await call('POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: big });
    expectErrorBody(r, 'PAYLOAD_TOO_LARGE');
  });

  it('an unknown field → 422 VALIDATION_ERROR naming the field', async () => {
    const r = await call('POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: { ...NG_OK, nickname: 'x' } });
    expectErrorBody(r, 'VALIDATION_ERROR');
    expect(Array.isArray(r.body.details)).toBe(true);
    expect(r.body.details.length).toBeGreaterThan(0);
    for (const d of r.body.details) {
      expect(typeof d.field).toBe('string');
      expect(typeof d.message).toBe('string');
    }
    expect(JSON.stringify(r.body.details)).toContain('nickname');
    // Named itself, as `field`: not the object holding it ("(body)").
    expect(r.body.details).toContainEqual({ field: 'nickname', message: 'is not a field of this request' });
  });

  it('unknown fields inside an object are each named by their path', async () => {
    const body = { country: 'KE', idType: 'drivers_license', idNumber: 'DL1234567', validation: { firstName: 'A', lastName: 'B', nick: 'x', age: 3 } };
    const r = await call('POST', '/verify/identity', { key: ts.sandboxKey, idem: newKey(), body });
    expectErrorBody(r, 'VALIDATION_ERROR');
    expect(r.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['validation.age', 'validation.nick']);
  });

  it('a missing field → 422 with the field in details', async () => {
    const r = await call('POST', '/verify/account', { key: ts.sandboxKey, idem: newKey(), body: { country: 'NG', bankCode: '058' } });
    expectErrorBody(r, 'VALIDATION_ERROR');
    expect(r.body.details.map((d: { field: string }) => d.field)).toContain('accountNumber');
  });
});

describe('routes and error shape', () => {
  it('an unknown route → 404 NOT_FOUND in the §7.1 shape', async () => {
    expectErrorBody(await call('GET', '/no/such/route'), 'NOT_FOUND');
    expectErrorBody(await call('POST', '/verify/nothing', { key: ts.sandboxKey, body: {} }), 'NOT_FOUND');
  });

  it('credential errors carry their catalogue action', async () => {
    expectErrorBody(await call('GET', '/verify'), 'API_KEY_MISSING');
    expectErrorBody(await call('GET', '/verify', { key: 'svc_sandbox_nothex' }), 'API_KEY_INVALID');
    expectErrorBody(await call('GET', '/client/api-keys', { token: 'a.b.c' }), 'TOKEN_INVALID');
    expectErrorBody(await call('POST', '/auth/login', { body: { email: 'x@example.com', password: 'wrong password' } }), 'INVALID_CREDENTIALS');
    expectErrorBody(await call('POST', '/verify/account', { key: ts.sandboxKey, body: NG_OK }), 'IDEMPOTENCY_KEY_REQUIRED');
    expectErrorBody(await call('GET', '/verify?limit=0', { key: ts.sandboxKey }), 'VALIDATION_ERROR');
  });

  it('no response carries Access-Control-Allow-Origin, preflight included', async () => {
    const origin = 'https://evil.example';
    const pre = await fetch(`${base}/api/v1/verify/account`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key,content-type' },
    });
    await pre.text();
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    expect(pre.headers.get('access-control-allow-headers')).toBeNull();
    const withOrigin = await call('GET', '/verify', { key: ts.sandboxKey, headers: { origin } });
    expect(withOrigin.status).toBe(200);
    expect(seen.length).toBeGreaterThan(10);
    for (const r of seen) expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('loopback Host guard', () => {
  it('answers a foreign Host with 403, and 127.0.0.1/localhost with the port normally', async () => {
    const foreign = await rawRequest(ts.port, 'GET', '/api/v1/health', { host: `evil.example:${ts.port}` });
    expect(foreign.status).toBe(403);
    expect(foreign.body.statusCode).toBe(403);
    // Decisions §1 lists FORBIDDEN among the 403 codes; the catalogue also has HOST_NOT_ALLOWED.
    expect(['FORBIDDEN', 'HOST_NOT_ALLOWED']).toContain(foreign.body.code);
    expect(typeof foreign.body.message).toBe('string');
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const withKey = await rawRequest(ts.port, 'GET', '/api/v1/verify', { host: `evil.example:${ts.port}`, 'x-api-key': ts.sandboxKey });
    expect(withKey.status).toBe(403);
    const otherPort = await rawRequest(ts.port, 'GET', '/api/v1/health', { host: `127.0.0.1:${ts.port + 1}` });
    expect(otherPort.status).toBe(403);
    for (const host of [`127.0.0.1:${ts.port}`, `localhost:${ts.port}`]) {
      const ok = await rawRequest(ts.port, 'GET', '/api/v1/health', { host });
      expect(ok.status, host).toBe(200);
    }
  });
});

describe('OpenAPI', () => {
  it('publishes an OpenAPI 3.1.0 document with the verification paths', async () => {
    const r = await call('GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    expect(r.body.info.version).toBe('1.0.0');
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(['/api/v1/verify/account', '/api/v1/verify', '/api/v1/client/api-keys', '/api/v1/auth/login']));
    expect(r.body.paths['/api/v1/verify/account'].post).toBeDefined();
  });
});

describe('rate limit', () => {
  it('answers the 6th request in a minute with 429 RATE_LIMITED and Retry-After', async () => {
    const limited = await startTestService({ rateLimitPerMinute: 5 });
    try {
      for (let i = 0; i < 5; i++) expect((await api(limited.url, 'GET', '/verify', { key: limited.sandboxKey })).status).toBe(200);
      const r = await api(limited.url, 'GET', '/verify', { key: limited.sandboxKey });
      expectErrorBody(r, 'RATE_LIMITED');
      const wait = Number(r.headers.get('retry-after'));
      expect(Number.isInteger(wait)).toBe(true);
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      // The budget is per credential: the live key still has its own.
      expect((await api(limited.url, 'GET', '/verify', { key: limited.liveKey })).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});
