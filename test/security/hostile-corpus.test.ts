// The hostile-input corpus (issue 9 item 3): a table of malformed, oversized and malicious requests, each with
// the status and code it must get. The service runs in this process, so prototype pollution would show here.
import { SignJWT, base64url } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIENCE, ISSUER } from '../../src-main/core/auth/tokens';
import { api, login, newKey, NG_OK, ON_POSTGRES, startTestService, type TestService } from '../helpers/harness';
import { rawExchange, type RawExchange } from './raw-http';

let ts: TestService;
let tried = 0;
let accessToken: string;
let refreshToken: string;
let userId: string;
let orgId: string;
let sessionId: string;
let realSecret: Uint8Array;

const ERROR_KEYS = new Set(['message', 'code', 'statusCode', 'action', 'details']);

function expectErrorBody(r: RawExchange, status: number, code: string) {
  expect(r.status, r.text.slice(0, 300)).toBe(status);
  expect(r.body?.code, r.text.slice(0, 300)).toBe(code);
  expect(r.body.statusCode).toBe(status);
  for (const k of Object.keys(r.body)) expect(ERROR_KEYS.has(k), `unexpected key ${k}`).toBe(true);
  expect(r.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
}

function head(method: string, path: string, headers: Record<string, string> | [string, string][]): string {
  const list = Array.isArray(headers) ? headers : Object.entries(headers);
  return [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${ts.port}`, ...list.map(([k, v]) => `${k}: ${v}`)].join('\r\n');
}

/** POST /api/v1/verify/account with the sandbox key, a fresh Idempotency-Key and `body` as given. */
async function postAccount(body: string | Buffer, extra: Record<string, string> = {}): Promise<RawExchange> {
  tried += 1;
  const h = { 'X-API-Key': ts.sandboxKey, 'Idempotency-Key': newKey(), 'Content-Type': 'application/json', ...extra };
  return rawExchange(ts.port, head('POST', '/api/v1/verify/account', h), body);
}

async function getKeys(token: string): Promise<RawExchange> {
  tried += 1;
  return rawExchange(ts.port, head('GET', '/api/v1/client/api-keys', { Authorization: `Bearer ${token}` }));
}

function nest(depth: number, inner: string): string {
  return '['.repeat(depth) + inner + ']'.repeat(depth);
}

const VALID = JSON.stringify(NG_OK);

beforeAll(async () => {
  ts = await startTestService();
  const l = await login(ts.url, ts.email);
  accessToken = l.accessToken;
  refreshToken = l.refreshToken;
  userId = l.user.id;
  orgId = l.user.organizationId;
  sessionId = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()).sid;
  const row = (await ts.service.deps.sql.get<{ value: string }>("SELECT value FROM settings WHERE key = 'jwt_secret'"))!;
  realSecret = Buffer.from(row.value, 'hex');
});

afterAll(async () => {
  console.log(`hostile corpus: ${tried} requests`);
  await ts?.stop();
});

describe('JSON bodies', () => {
  it('a well-formed control request succeeds (so the failures below are about the hostile part)', async () => {
    const r = await postAccount(VALID);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('success');
  });

  it('duplicate keys: the last one wins, as in JSON.parse, and the result shows which one was used', async () => {
    const r = await postAccount('{"country":"NG","accountNumber":"9999999999","accountNumber":"0123456789","bankCode":"058"}');
    expect(r.status).toBe(200);
    expect(r.body.accountNumber).toBe('0123456789');
    const back = await postAccount('{"country":"NG","accountNumber":"0123456789","bankCode":"058","country":"XX"}');
    expectErrorBody(back, 422, 'UNSUPPORTED_CORRIDOR');
  });

  const pollution: [string, string][] = [
    ['__proto__ at the top', `{"__proto__":{"polluted":"yes"},${VALID.slice(1)}`],
    ['constructor.prototype at the top', `{"constructor":{"prototype":{"polluted":"yes"}},${VALID.slice(1)}`],
    ['__proto__ nested in identifiers', `{"country":"NG","accountNumber":"0123456789","identifiers":[{"type":"a","value":"b","__proto__":{"polluted":"yes"}}]}`],
    ['__proto__ with a unicode escape', `{"\\u005f_proto__":{"polluted":"yes"},${VALID.slice(1)}`],
  ];
  it.each(pollution)('%s → 400 INVALID_JSON, and no object is polluted', async (_name, body) => {
    const r = await postAccount(body);
    expectErrorBody(r, 400, 'INVALID_JSON');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('a "prototype" key is an unknown field (422), not a path into anything', async () => {
    const r = await postAccount(`{"prototype":{"polluted":"yes"},${VALID.slice(1)}`);
    expectErrorBody(r, 422, 'VALIDATION_ERROR');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('deep nesting (10,000 and 100,000 levels) is a 4xx, never a crash or a 5xx', async () => {
    const r1 = await postAccount(`{"country":"NG","accountNumber":${nest(10_000, '1')},"bankCode":"058"}`);
    expectErrorBody(r1, 422, 'VALIDATION_ERROR');
    const r2 = await postAccount(`{"country":"NG","accountNumber":"0123456789","extra":${nest(100_000, '{}')}}`);
    expect(r2.status).toBeGreaterThanOrEqual(400);
    expect(r2.status).toBeLessThan(500);
    // The service still answers.
    expect((await postAccount(VALID)).status).toBe(200);
  });

  const numbers: [string, string][] = [
    ['1e400 (Infinity after parsing)', '1e400'],
    ['2^64', '18446744073709551616'],
    ['-1e400', '-1e400'],
    ['a 400-digit integer', '9'.repeat(400)],
  ];
  it.each(numbers)('huge number %s in a string field → 422', async (_n, num) => {
    expectErrorBody(await postAccount(`{"country":"NG","accountNumber":${num},"bankCode":"058"}`), 422, 'VALIDATION_ERROR');
  });

  it('huge numbers in integer query parameters → 422', async () => {
    for (const q of ['limit=1e400', 'limit=18446744073709551616', 'offset=18446744073709551616', 'limit=Infinity', 'limit=NaN', 'offset=-0.5']) {
      tried += 1;
      const r = await rawExchange(ts.port, head('GET', `/api/v1/verify?${q}`, { 'X-API-Key': ts.sandboxKey }));
      expectErrorBody(r, 422, 'VALIDATION_ERROR');
    }
  });

  it('invalid UTF-8 inside a string: decoded with replacement characters, then judged by the rules (never a 5xx)', async () => {
    const body = Buffer.concat([Buffer.from('{"country":"NG","accountNumber":"012345678'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('","bankCode":"058"}')]);
    const r = await postAccount(body);
    // Not 10 digits after decoding: a recorded layer-2 failure, not a crash.
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('failed');
    expect(r.body.error.code).toBe('INVALID_ACCOUNT_NUMBER');
    // An invalid byte outside any string makes the JSON invalid.
    expectErrorBody(await postAccount(Buffer.concat([Buffer.from('{"country":"NG",'), Buffer.from([0xff]), Buffer.from('}')])), 400, 'INVALID_JSON');
  });

  it('a UTF-8 BOM before the JSON is tolerated; a BOM alone is invalid JSON', async () => {
    const r = await postAccount(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(VALID)]));
    expect(r.status).toBe(200);
    expectErrorBody(await postAccount(Buffer.from([0xef, 0xbb, 0xbf])), 400, 'INVALID_JSON');
  });

  const bodies: [string, string, number, string][] = [
    ['empty body', '', 400, 'INVALID_JSON'],
    ['truncated JSON', VALID.slice(0, -1), 400, 'INVALID_JSON'],
    ['JSON null', 'null', 422, 'VALIDATION_ERROR'],
    ['a JSON array', `[${VALID}]`, 422, 'VALIDATION_ERROR'],
    ['a JSON string', '"NG"', 422, 'VALIDATION_ERROR'],
    ['NaN literal', '{"country":"NG","accountNumber":NaN}', 400, 'INVALID_JSON'],
    ['a trailing comma', `${VALID.slice(0, -1)},}`, 400, 'INVALID_JSON'],
  ];
  it.each(bodies)('%s → %i %s', async (_n, body, status, code) => {
    const r = await postAccount(body);
    if (code) expectErrorBody(r, status, code);
    else expect(r.status).toBe(status);
  });
  // PostgreSQL text cannot hold U+0000 (the identifier column), nor can its JSON functions read a \u0000 escape (the
  // search index): there it is refused as invalid input, never a server error (docs/team-server.md, dialect table).
  it(`a NUL byte in a string → ${ON_POSTGRES ? '422 VALIDATION_ERROR (PostgreSQL cannot store it)' : '200'}`, async () => {
    const r = await postAccount('{"country":"NG","accountNumber":"0123\\u0000456789","bankCode":"058"}');
    if (ON_POSTGRES) expectErrorBody(r, 422, 'VALIDATION_ERROR');
    else expect(r.status).toBe(200);
  });

  // Found by the soak's schema fuzz on PostgreSQL (seed 1752069974): the format failure quoted the first non-digit as
  // one UTF-16 unit, half of an astral character, and PostgreSQL's JSON functions refuse a lone surrogate → 500.
  it.each(['sync', 'async'])('an astral character in a digits-only field: the failure names the whole character (%s, never a 5xx)', async (mode) => {
    const r = await postAccount(JSON.stringify({ country: 'ET', accountNumber: '\u{1b2c2}\u{16e8d}9', bankCode: 'SBIN0000691', ...(mode === 'async' ? { mode } : {}) }));
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.status).toBe('failed');
    expect(r.body.error.message).toContain('“\u{1b2c2}”');
    expect(r.text).not.toMatch(/\\ud[89a-f]/i);
  });
  it(`an unpaired surrogate escape in a string → ${ON_POSTGRES ? '422 VALIDATION_ERROR (PostgreSQL cannot store it)' : '200'}`, async () => {
    const r = await postAccount('{"country":"NG","accountNumber":"0123\\ud800456789","bankCode":"058"}');
    if (ON_POSTGRES) expectErrorBody(r, 422, 'VALIDATION_ERROR');
    else expect(r.status).toBe(200);
  });
});

describe('sizes and media types', () => {
  it('headers beyond Node’s limit → 431 with the §7.1 body', async () => {
    tried += 1;
    const r = await rawExchange(ts.port, head('GET', '/api/v1/verify', { 'X-API-Key': ts.sandboxKey, 'X-Padding': 'a'.repeat(64 * 1024) }));
    expectErrorBody(r, 431, 'HEADERS_TOO_LARGE');
    tried += 1;
    const long = await rawExchange(ts.port, head('GET', `/api/v1/verify?type=${'a'.repeat(64 * 1024)}`, { 'X-API-Key': ts.sandboxKey }));
    expectErrorBody(long, 431, 'HEADERS_TOO_LARGE');
  });

  it('a body over 1 MiB → 413 PAYLOAD_TOO_LARGE, by Content-Length and by chunked transfer', async () => {
    const big = JSON.stringify({ ...NG_OK, accountName: 'x'.repeat(1024 * 1024 + 10) });
    expectErrorBody(await postAccount(big), 413, 'PAYLOAD_TOO_LARGE');
    tried += 1;
    const h = head('POST', '/api/v1/verify/account', { 'X-API-Key': ts.sandboxKey, 'Idempotency-Key': newKey(), 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    const chunk = Buffer.from(big);
    const chunked = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n0\r\n\r\n')]);
    expectErrorBody(await rawExchange(ts.port, h, chunked), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('a path parameter beyond the router’s limit → 422 with the §7.1 body; a malformed URL → 400', async () => {
    tried += 2;
    expectErrorBody(await rawExchange(ts.port, head('GET', `/api/v1/verify/${'a'.repeat(300)}`, { 'X-API-Key': ts.sandboxKey })), 422, 'VALIDATION_ERROR');
    expectErrorBody(await rawExchange(ts.port, head('GET', '/api/v1/verify/%E0%A4%A', { 'X-API-Key': ts.sandboxKey })), 400, 'INVALID_JSON');
  });

  const types: [string, number, string][] = [
    ['text/plain', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['application/x-www-form-urlencoded', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['multipart/form-data; boundary=x', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['application/xml', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['application/jsonx', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['application/json; charset=utf-8', 200, ''],
    ['APPLICATION/JSON', 200, ''],
  ];
  it.each(types)('Content-Type %s → %i', async (type, status, code) => {
    const r = await postAccount(VALID, { 'Content-Type': type });
    if (code) expectErrorBody(r, status, code);
    else expect(r.status).toBe(status);
  });

  it('a body without any Content-Type → 415', async () => {
    tried += 1;
    const r = await rawExchange(ts.port, head('POST', '/api/v1/verify/account', { 'X-API-Key': ts.sandboxKey, 'Idempotency-Key': newKey() }), VALID);
    expectErrorBody(r, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('Idempotency-Key values (interface §7.4: 1 to 255 printable ASCII characters)', () => {
  const bad: [string, string][] = [
    ['a tab inside', 'abc\tdef'],
    ['non-ASCII (latin-1 bytes)', 'caf\u00e9-key'],
    ['256 characters', 'k'.repeat(256)],
    ['only spaces', '   '],
  ];
  it.each(bad)('%s → 422 IDEMPOTENCY_KEY_INVALID', async (_n, value) => {
    expectErrorBody(await postAccount(VALID, { 'Idempotency-Key': value }), 422, 'IDEMPOTENCY_KEY_INVALID');
  });

  it('a DEL or NUL character → 400 from Node’s header parser (§7.1 body), never executed', async () => {
    expectErrorBody(await postAccount(VALID, { 'Idempotency-Key': 'abc\u007fdef' }), 400, 'INVALID_JSON');
    expectErrorBody(await postAccount(VALID, { 'Idempotency-Key': 'abc\u0000def' }), 400, 'INVALID_JSON');
  });

  it('an empty header → 422 (required or invalid), never executed', async () => {
    const r = await postAccount(VALID, { 'Idempotency-Key': '' });
    expect(r.status).toBe(422);
    expect(['IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_INVALID']).toContain(r.body.code);
  });

  it('two Idempotency-Key headers → 422 IDEMPOTENCY_KEY_INVALID', async () => {
    tried += 1;
    const h = head('POST', '/api/v1/verify/account', [
      ['X-API-Key', ts.sandboxKey],
      ['Idempotency-Key', newKey()],
      ['Idempotency-Key', newKey()],
      ['Content-Type', 'application/json'],
    ]);
    expectErrorBody(await rawExchange(ts.port, h, VALID), 422, 'IDEMPOTENCY_KEY_INVALID');
  });

  it('255 printable characters, including spaces and symbols, are accepted', async () => {
    const key = `${newKey()} ~!@#$%^&*()`.padEnd(255, 'z');
    expect((await postAccount(VALID, { 'Idempotency-Key': key })).status).toBe(200);
  });
});

describe('malformed API keys → 401 with CHECK_API_KEY', () => {
  const hex = 'a'.repeat(64);
  const cases: [string, string, string][] = [
    ['wrong prefix', `sk_live_${hex}`, 'API_KEY_INVALID'],
    ['too short', 'svc_sandbox_abc', 'API_KEY_INVALID'],
    ['other environment name', `svc_staging_${hex}`, 'API_KEY_INVALID'],
    ['upper-case hex', `svc_sandbox_${'A'.repeat(64)}`, 'API_KEY_INVALID'],
    ['well-formed but unknown', `svc_sandbox_${hex}`, 'API_KEY_INVALID'],
    ['with trailing text', `svc_sandbox_${hex}x`, 'API_KEY_INVALID'],
    ['a Bearer token in the key header', 'Bearer abc', 'API_KEY_INVALID'],
  ];
  it.each(cases)('%s → %s', async (_n, key, code) => {
    const r = await postAccount(VALID, { 'X-API-Key': key });
    expectErrorBody(r, 401, code);
    expect(r.body.action.type).toBe('CHECK_API_KEY');
  });

  it('a real key with a different case or surrounding spaces is still refused (exact match only)', async () => {
    expectErrorBody(await postAccount(VALID, { 'X-API-Key': ts.sandboxKey.toUpperCase() }), 401, 'API_KEY_INVALID');
  });

  it('two X-API-Key headers → 401 API_KEY_INVALID', async () => {
    tried += 1;
    const h = head('POST', '/api/v1/verify/account', [
      ['X-API-Key', ts.sandboxKey],
      ['X-API-Key', ts.liveKey],
      ['Idempotency-Key', newKey()],
      ['Content-Type', 'application/json'],
    ]);
    expectErrorBody(await rawExchange(ts.port, h, VALID), 401, 'API_KEY_INVALID');
  });

  it('no key at all → 401 API_KEY_MISSING', async () => {
    tried += 1;
    const r = await rawExchange(ts.port, head('GET', '/api/v1/verify', {}));
    expectErrorBody(r, 401, 'API_KEY_MISSING');
  });
});

describe('hostile JWTs on a Bearer route', () => {
  const now = () => Math.floor(Date.now() / 1000);
  function claims() {
    return { sid: sessionId, org: orgId, role: 'OWNER' };
  }
  async function sign(key: Uint8Array, o: { alg?: string; iss?: string; aud?: string; exp?: number; nbf?: number; iat?: number } = {}) {
    return new SignJWT(claims())
      .setProtectedHeader({ alg: o.alg ?? 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(o.iss ?? ISSUER)
      .setAudience(o.aud ?? AUDIENCE)
      .setIssuedAt(o.iat ?? now())
      .setNotBefore(o.nbf ?? now() - 5)
      .setExpirationTime(o.exp ?? now() + 600)
      .sign(key);
  }

  it('a token forged with the real secret and every claim right is accepted (the control)', async () => {
    expect((await getKeys(await sign(realSecret))).status).toBe(200);
    expect((await getKeys(accessToken)).status).toBe(200);
  });

  it('alg "none" (unsigned) → 401 TOKEN_INVALID', async () => {
    const enc = (o: object) => base64url.encode(JSON.stringify(o));
    const payload = { ...claims(), sub: userId, iss: ISSUER, aud: AUDIENCE, iat: now(), nbf: now() - 5, exp: now() + 600 };
    for (const alg of ['none', 'None', 'NONE']) {
      const token = `${enc({ alg, typ: 'JWT' })}.${enc(payload)}.`;
      expectErrorBody(await getKeys(token), 401, 'TOKEN_INVALID');
      // With the real token's signature pasted on.
      expectErrorBody(await getKeys(`${enc({ alg, typ: 'JWT' })}.${enc(payload)}.${accessToken.split('.')[2]}`), 401, 'TOKEN_INVALID');
    }
  });

  it('signed with another secret → 401 TOKEN_INVALID', async () => {
    expectErrorBody(await getKeys(await sign(new TextEncoder().encode('not the installation secret, 32+ bytes long'))), 401, 'TOKEN_INVALID');
  });

  it('another HMAC algorithm with the real secret (HS512) → 401 TOKEN_INVALID (the algorithm is pinned)', async () => {
    expectErrorBody(await getKeys(await sign(realSecret, { alg: 'HS512' })), 401, 'TOKEN_INVALID');
  });

  it('expired → 401 TOKEN_EXPIRED', async () => {
    expectErrorBody(await getKeys(await sign(realSecret, { iat: now() - 3600, nbf: now() - 3600, exp: now() - 60 })), 401, 'TOKEN_EXPIRED');
  });

  it('not valid before a future time → 401 TOKEN_INVALID', async () => {
    expectErrorBody(await getKeys(await sign(realSecret, { nbf: now() + 3600, exp: now() + 7200 })), 401, 'TOKEN_INVALID');
  });

  it('wrong issuer or audience → 401 TOKEN_INVALID', async () => {
    expectErrorBody(await getKeys(await sign(realSecret, { iss: 'someone-else' })), 401, 'TOKEN_INVALID');
    expectErrorBody(await getKeys(await sign(realSecret, { aud: 'another-api' })), 401, 'TOKEN_INVALID');
  });

  it('a claims edit on the real token (role raised, signature kept) → 401 TOKEN_INVALID', async () => {
    const [h, p, s] = accessToken.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const edited = base64url.encode(JSON.stringify({ ...payload, org: 'org_someone_else' }));
    expectErrorBody(await getKeys(`${h}.${edited}.${s}`), 401, 'TOKEN_INVALID');
  });

  it('a refresh token used as an access token → 401 TOKEN_INVALID; garbage and empty → 401', async () => {
    expectErrorBody(await getKeys(refreshToken), 401, 'TOKEN_INVALID');
    expectErrorBody(await getKeys('a.b.c'), 401, 'TOKEN_INVALID');
    tried += 1;
    expectErrorBody(await rawExchange(ts.port, head('GET', '/api/v1/client/api-keys', { Authorization: 'Bearer' })), 401, 'TOKEN_INVALID');
    tried += 1;
    expectErrorBody(await rawExchange(ts.port, head('GET', '/api/v1/client/api-keys', { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })), 401, 'TOKEN_INVALID');
  });

  it('an API key is not a Bearer token, and a Bearer token is not an API key', async () => {
    expectErrorBody(await getKeys(ts.sandboxKey), 401, 'TOKEN_INVALID');
    expectErrorBody(await postAccount(VALID, { 'X-API-Key': accessToken }), 401, 'API_KEY_INVALID');
    const viaApi = await api(ts.url, 'GET', '/verify', { token: accessToken });
    expect(viaApi.status).toBe(401);
  });
});
