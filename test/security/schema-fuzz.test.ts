// Schema-driven fuzzing (issue 9 item 3): every route and verb of the served OpenAPI document gets requests
// generated from its own schemas, valid and invalid. Never a 5xx; every status is documented for the route and
// its body matches the documented schema; invalid input is always a 4xx. That every route can answer a 2xx is proven by
// one known-good request per route (KNOWN_GOOD), never left to the seed; a failure prints the seed (VC_FUZZ_SEED replays it). `npm run test:soak` (or VC_SOAK=1) multiplies the runs.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src-main/core/orgs/organizations';
import { login, TEST_PASSWORD } from '../helpers/harness';
import { SchemaSet, type Generators, type JsonSchema } from './json-schema';
import { PUBLIC_HOOK_URL, startTwoOrgs, type TwoOrgs } from './two-orgs';

const SOAK = process.env['VC_SOAK'] === '1' || process.env['npm_lifecycle_event'] === 'test:soak';
const RUNS = SOAK ? 400 : 40;
const SEED = Number(process.env['VC_FUZZ_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

interface Operation {
  method: string;
  path: string;
  op: {
    security?: Record<string, string[]>[];
    parameters?: { in: string; name: string; required?: boolean; schema: JsonSchema }[];
    requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
    responses: Record<string, { content?: { 'application/json'?: { schema: JsonSchema } } }>;
  };
}

interface Req {
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  how: string;
}

let f: TwoOrgs;
let doc: { paths: Record<string, Record<string, Operation['op']>>; components: { schemas: Record<string, JsonSchema> } };
let set: SchemaSet;
let fuzzEmail: string;
let logoutEmail: string;
const logoutTokens: string[] = [];
const fuzzRefreshTokens: string[] = [];
const throwawayKeyIds: string[] = [];
const throwawayWebhookIds: string[] = [];
const counts = new Map<string, { valid: number; invalid: number }>();
const failures: string[] = [];
/** Status classes answered to valid requests, per route: the generator must get past the schema checks. */
const validOutcomes = new Map<string, Map<string, number>>();
let idem = 0;

/** One line per distinct kind of failure (route, case, status, reason), with a count and the first example. */
function summary(): string {
  const by = new Map<string, { n: number; first: string }>();
  for (const x of failures) {
    const k = x.replace(/ · request .*/, '').replace(/\[([^\]:]*)[^\]]*\]/, '[$1]');
    const e = by.get(k);
    if (e) e.n += 1;
    else by.set(k, { n: 1, first: x });
  }
  return [...by.entries()].map(([k, e]) => `${e.n}× ${k}\n    e.g. ${e.first.slice(k.length, k.length + 500)}`).join('\n');
}

function routeClass(path: string): string {
  const p = path.replace('/api/v1', '');
  if (p.startsWith('/verify')) return 'verify';
  if (p.startsWith('/verifications')) return 'routing';
  if (p.startsWith('/client/webhooks')) return 'webhooks';
  if (p.startsWith('/client/api-keys')) return 'keys';
  if (p.startsWith('/auth')) return 'auth';
  if (p.startsWith('/client/wallet') || p.startsWith('/client/usage')) return 'billing';
  return 'meta';
}

function count(o: Operation, kind: 'valid' | 'invalid') {
  const k = routeClass(o.path);
  const c = counts.get(k) ?? { valid: 0, invalid: 0 };
  c[kind] += 1;
  counts.set(k, c);
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, verbs] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(verbs)) out.push({ method: method.toUpperCase(), path, op });
  return out;
}

/** Real ids of organization A per path parameter, mixed with generated ones. */
function realIds(o: Operation, name: string): string[] {
  const a = f.a;
  if (o.path.includes('/api-keys/')) return o.method === 'DELETE' ? throwawayKeyIds : [];
  if (o.path.startsWith('/api/v1/verify/')) return [a.verifications.sandbox, a.verifications.live];
  if (name === 'deliveryId') return [a.deliveries.sandbox, a.deliveries.live].filter((x): x is string => !!x);
  // Deleting the seeded webhooks would leave the delivery routes nothing to find.
  if (o.path.startsWith('/api/v1/client/webhooks/') && o.method === 'DELETE') return throwawayWebhookIds;
  if (o.path.startsWith('/api/v1/client/webhooks/')) return [a.webhooks.sandbox, a.webhooks.live];
  return [];
}

async function credentials(o: Operation): Promise<fc.Arbitrary<Record<string, string>>> {
  const schemes = (o.op.security ?? []).map((s) => Object.keys(s)[0]);
  if (o.path.endsWith('/auth/logout')) {
    // Logging out ends the session, so every request gets its own, signed in before any fuzzing: the fuzzed
    // POST /auth/login fails often enough (400 runs in the soak) to throttle this client address (50 failures).
    const t = logoutTokens.pop();
    if (!t) throw new Error('no signed-in session left for POST /auth/logout: mint more in beforeAll');
    return fc.constant({ authorization: `Bearer ${t}` });
  }
  const options: Record<string, string>[] = [];
  if (schemes.includes('apiKey')) options.push({ 'x-api-key': f.a.sandboxKey }, { 'x-api-key': f.a.liveKey });
  if (schemes.includes('bearer')) options.push({ authorization: `Bearer ${f.a.ownerToken}` }, { authorization: `Bearer ${f.a.ownerToken}`, 'x-environment': 'live' });
  return options.length > 0 ? fc.constantFrom(...options) : fc.constant({});
}

function hints(fixtures: { request: Record<string, unknown> }[], refreshTokens: string[]): Generators {
  const h: Record<string, unknown[]> = {};
  for (const fx of fixtures) for (const [k, v] of Object.entries(fx.request)) (h[k] ??= []).push(v);
  for (const k of Object.keys(h)) h[k] = [...new Set(h[k]!.map((v) => JSON.stringify(v)))].map((v) => JSON.parse(v) as unknown);
  Object.assign(h, {
    url: [PUBLIC_HOOK_URL, 'https://8.8.8.8/hook', 'http://127.0.0.1/hook', 'https://[::1]/x', 'https://10.0.0.1/'],
    email: [fuzzEmail, `nobody-${randomUUID().slice(0, 6)}@example.com`],
    password: [TEST_PASSWORD, 'wrong password'],
    refreshToken: refreshTokens,
    bic: [...(h['bic'] ?? []), 'DEUTDEFF', 'NWBKGB2L', 'BOFAUS3N'],
    routingNumber: [...(h['routingNumber'] ?? []), '021000021', '011000015'],
    name: ['fuzz key'],
  });
  return { hints: h };
}

function paramArb(o: Operation, where: 'path' | 'query', gen: Generators): fc.Arbitrary<Record<string, string>> {
  const model: Record<string, fc.Arbitrary<string>> = {};
  const required: string[] = [];
  for (const p of o.op.parameters ?? []) {
    if (p.in !== where) continue;
    const base = set.arbitrary(p.schema, gen, p.name).map(String);
    const ids = where === 'path' ? realIds(o, p.name) : [];
    model[p.name] = ids.length > 0 ? fc.oneof(fc.constantFrom(...ids), base) : base;
    if (p.required || where === 'path') required.push(p.name);
  }
  return fc.record(model, { requiredKeys: required });
}

/** Generated bodies, mixed with the documented sandbox fixtures' requests that fit this schema (they reach 2xx). */
function bodyArb(schema: JsonSchema, fixtures: { request: Record<string, unknown> }[], gen: Generators): fc.Arbitrary<unknown> {
  const fitting = fixtures.map((x) => x.request).filter((r) => set.valid(schema, r));
  const generated = set.arbitrary(schema, gen);
  return fitting.length > 0 ? fc.oneof(fc.constantFrom(...fitting), generated) : generated;
}

function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_m, n: string) => encodeURIComponent(params[n] ?? ''));
}

function extraHeaders(o: Operation): Record<string, string> {
  const wantsIdem = (o.op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'idempotency-key');
  return wantsIdem ? { 'idempotency-key': `fuzz-${process.pid}-${++idem}` } : {};
}

async function send(o: Operation, r: Req): Promise<{ status: number; body: unknown; text: string }> {
  const qs = new URLSearchParams(r.query).toString();
  const headers: Record<string, string> = { ...r.headers };
  let body: string | undefined = r.rawBody;
  if (body === undefined && r.body !== undefined) body = JSON.stringify(r.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${f.ts.url}${r.path}${qs ? `?${qs}` : ''}`, { method: o.method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = Symbol('not JSON');
    }
  }
  return { status: res.status, body: parsed, text };
}

function check(o: Operation, r: Req, res: { status: number; body: unknown; text: string }, expect4xx: boolean) {
  const where = `${o.method} ${o.path} [${r.how}] → ${res.status}`;
  const fail = (why: string) => failures.push(`${where}: ${why} · request ${JSON.stringify({ path: r.path, query: r.query, body: r.body ?? r.rawBody }).slice(0, 300)} · response ${res.text.slice(0, 300)}`);
  if (res.status >= 500) return fail('server error');
  if (expect4xx && (res.status < 400 || res.status >= 500)) return fail('invalid input was not refused with a 4xx');
  const documented = o.op.responses[String(res.status)];
  if (!documented) return fail('status not documented for this route');
  const schema = documented.content?.['application/json']?.schema;
  if (res.status === 204) {
    if (res.text !== '') fail('a 204 with a body');
    return;
  }
  if (!schema) return fail('no documented body schema');
  if (typeof res.body === 'symbol' || res.body === undefined) return fail('body is not JSON');
  const errs = set.errors(schema, res.body);
  if (errs.length > 0) fail(`body does not match its schema: ${errs.slice(0, 3).join('; ')}`);
}

interface Fixture {
  kind: string;
  request: Record<string, unknown>;
  expected: { status: string };
}

interface KnownGood {
  params?: Record<string, string>;
  query?: Record<string, string>;
  headers: Record<string, string>;
  body?: unknown;
}

const owner = (): Record<string, string> => ({ authorization: `Bearer ${f.a.ownerToken}` });
const sandbox = (): Record<string, string> => ({ 'x-api-key': f.a.sandboxKey });

/** A documented sandbox fixture for the route's kind (the last path segment) whose request fits the route's schema. */
function fixtureBody(o: Operation, fixtures: Fixture[]): unknown {
  const kind = o.path.split('/').pop()!;
  const schema = o.op.requestBody!.content['application/json'].schema;
  const fx = fixtures.find((x) => x.kind === kind && x.expected.status === 'success' && set.valid(schema, x.request)) ?? fixtures.find((x) => x.kind === kind && set.valid(schema, x.request));
  if (!fx) throw new Error(`no sandbox fixture fits ${o.method} ${o.path}`);
  return fx.request;
}

async function created(path: string, headers: Record<string, string>, body: unknown): Promise<string> {
  const res = await fetch(`${f.ts.url}/api/v1${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`setting up a known-good request: POST ${path} → ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/**
 * One request per documented route that must succeed: the proof that every route is reachable, independent of the
 * fuzzer's seed (issue 18 item 5). Organization A's seeded resources (two-orgs.ts) give the ids.
 */
const KNOWN_GOOD: Record<string, (o: Operation, fixtures: Fixture[]) => Promise<KnownGood> | KnownGood> = {
  'GET /api/v1/sandbox/fixtures': () => ({ headers: sandbox() }),
  'POST /api/v1/auth/login': () => ({ headers: {}, body: { email: fuzzEmail, password: TEST_PASSWORD } }),
  'POST /api/v1/auth/refresh': async () => ({ headers: {}, body: { refreshToken: (await login(f.ts.url, fuzzEmail)).refreshToken } }),
  'POST /api/v1/auth/logout': async () => ({ headers: { authorization: `Bearer ${(await login(f.ts.url, logoutEmail)).accessToken}` } }),
  'POST /api/v1/client/api-keys': () => ({ headers: owner(), body: { name: 'known good', environment: 'sandbox' } }),
  'GET /api/v1/client/api-keys': () => ({ headers: owner() }),
  'DELETE /api/v1/client/api-keys/{id}': async () => ({ headers: owner(), params: { id: await created('/client/api-keys', owner(), { name: 'to revoke', environment: 'sandbox' }) } }),
  'POST /api/v1/verify/account': (o, fx) => ({ headers: sandbox(), body: fixtureBody(o, fx) }),
  'POST /api/v1/verify/phone': (o, fx) => ({ headers: sandbox(), body: fixtureBody(o, fx) }),
  'POST /api/v1/verify/identity': (o, fx) => ({ headers: sandbox(), body: fixtureBody(o, fx) }),
  'POST /api/v1/verify/address': (o, fx) => ({ headers: sandbox(), body: fixtureBody(o, fx) }),
  'POST /api/v1/verify/face': (o, fx) => ({ headers: sandbox(), body: fixtureBody(o, fx) }),
  'GET /api/v1/verify': () => ({ headers: sandbox() }),
  'GET /api/v1/verify/{id}': () => ({ headers: sandbox(), params: { id: f.a.verifications.sandbox } }),
  'GET /api/v1/client/wallet': () => ({ headers: owner() }),
  'GET /api/v1/client/usage': () => ({ headers: owner() }),
  'POST /api/v1/client/webhooks': () => ({ headers: sandbox(), body: { url: PUBLIC_HOOK_URL, events: ['verification.completed'] } }),
  'GET /api/v1/client/webhooks': () => ({ headers: sandbox() }),
  'GET /api/v1/client/webhooks/{id}': () => ({ headers: sandbox(), params: { id: f.a.webhooks.sandbox } }),
  'PATCH /api/v1/client/webhooks/{id}': () => ({ headers: sandbox(), params: { id: f.a.webhooks.sandbox }, body: { description: 'known good' } }),
  'DELETE /api/v1/client/webhooks/{id}': async () => ({
    headers: sandbox(),
    params: { id: await created('/client/webhooks', sandbox(), { url: PUBLIC_HOOK_URL, events: ['verification.failed'] }) },
  }),
  'GET /api/v1/client/webhooks/{id}/deliveries': () => ({ headers: sandbox(), params: { id: f.a.webhooks.sandbox } }),
  'GET /api/v1/client/webhooks/{id}/deliveries/{deliveryId}': () => {
    if (!f.a.deliveries.sandbox) throw new Error('the two-organization fixture has no sandbox delivery');
    return { headers: sandbox(), params: { id: f.a.webhooks.sandbox, deliveryId: f.a.deliveries.sandbox } };
  },
  'POST /api/v1/verifications/bic': (o, fx) => ({ headers: sandbox(), body: fixtureBody(o, fx) }),
  'POST /api/v1/verifications/routing-codes': (o, fx) => ({ headers: sandbox(), body: fixtureBody(o, fx) }),
  'POST /api/v1/verifications/correspondents': (o, fx) => ({ headers: sandbox(), body: fixtureBody(o, fx) }),
  'POST /api/v1/verifications/batch': (o, fx) => ({ headers: sandbox(), body: fixtureBody(o, fx) }),
  'GET /api/v1/client/audit-events': () => ({ headers: owner() }),
  'GET /api/v1/client/webhooks/{id}/recoveries/preview': () => ({ headers: owner(), params: { id: f.a.webhooks.sandbox }, query: { since: '2020-01-01T00:00:00Z' } }),
  // A recovery of nothing is refused (422): a webhook created now has the organization's earlier events to redeliver.
  'POST /api/v1/client/webhooks/{id}/recoveries': async () => ({
    headers: owner(),
    params: { id: await created('/client/webhooks', sandbox(), { url: PUBLIC_HOOK_URL, events: ['verification.completed', 'verification.failed'] }) },
    body: { since: '2020-01-01T00:00:00Z' },
  }),
};

beforeAll(async () => {
  f = await startTwoOrgs(SOAK ? { rateLimitPerMinute: 0 } : {});
  const res = await fetch(`${f.ts.url}/api/v1/openapi.json`);
  doc = (await res.json()) as typeof doc;
  set = new SchemaSet(doc);
  fuzzEmail = `fuzz-${randomUUID().slice(0, 8)}@example.com`;
  logoutEmail = `logout-${randomUUID().slice(0, 8)}@example.com`;
  for (const email of [fuzzEmail, logoutEmail]) await createUser(f.ts.service.deps, f.a.organizationId, { email, password: TEST_PASSWORD, role: 'DEVELOPER' });
  // One session per logout request of both tests (at most 10 each), and the refresh tokens of the valid test.
  for (let i = 0; i < 2 * Math.min(RUNS, 10); i++) logoutTokens.push((await login(f.ts.url, logoutEmail)).accessToken);
  for (let i = 0; i < 2; i++) fuzzRefreshTokens.push((await login(f.ts.url, fuzzEmail)).refreshToken);
  for (let i = 0; i < 3; i++) {
    const k = await fetch(`${f.ts.url}/api/v1/client/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.a.ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `throwaway ${i}`, environment: 'sandbox' }),
    });
    throwawayKeyIds.push(((await k.json()) as { id: string }).id);
    const w = await fetch(`${f.ts.url}/api/v1/client/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': i % 2 ? f.a.liveKey : f.a.sandboxKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: PUBLIC_HOOK_URL, events: ['verification.failed'] }),
    });
    throwawayWebhookIds.push(((await w.json()) as { id: string }).id);
  }
}, 120_000);

afterAll(async () => {
  const rows = [...counts.entries()].sort().map(([k, c]) => `  ${k.padEnd(9)} valid ${String(c.valid).padStart(5)}  invalid ${String(c.invalid).padStart(5)}`);
  const total = [...counts.values()].reduce((n, c) => n + c.valid + c.invalid, 0);
  console.log(`schema fuzz (seed ${SEED}${SOAK ? ', soak' : ''}): ${total} requests\n${rows.join('\n')}`);
  await f?.ts.stop();
});

describe('the JSON-schema subset used by the fuzzer', () => {
  it('rejects what the document forbids and accepts what it allows', () => {
    const s = new SchemaSet({ components: { schemas: {} } });
    const schema: JsonSchema = {
      type: 'object',
      properties: { a: { type: 'string', maxLength: 2, pattern: '^[a-z]+$' }, n: { type: 'integer', minimum: 1 }, e: { anyOf: [{ type: 'null' }, { type: 'string', format: 'date-time' }] } },
      required: ['a'],
      additionalProperties: false,
    };
    expect(s.errors(schema, { a: 'ab', n: 1, e: null })).toEqual([]);
    expect(s.valid(schema, { a: 'ab', e: '2026-11-21T10:00:00.000Z' })).toBe(true);
    expect(s.valid(schema, { a: 'abc' })).toBe(false);
    expect(s.valid(schema, { a: 'A1' })).toBe(false);
    expect(s.valid(schema, { a: 'a', n: 0 })).toBe(false);
    expect(s.valid(schema, { a: 'a', n: 1.5 })).toBe(false);
    expect(s.valid(schema, { a: 'a', x: 1 })).toBe(false);
    expect(s.valid(schema, { n: 2 })).toBe(false);
    expect(s.valid(schema, { a: 'a', e: 'yesterday' })).toBe(false);
    expect(() => s.errors({ type: 'string', if: {} }, 'x')).toThrow(/unsupported/);
    // Generated values match; mutated ones do not.
    const arb = s.arbitrary(schema, { hints: {} });
    for (const v of fc.sample(arb, { numRuns: 200, seed: SEED })) expect(s.errors(schema, v)).toEqual([]);
    for (const m of fc.sample(s.invalidArbitrary(schema, arb), { numRuns: 200, seed: SEED })) expect(s.valid(schema, m.value)).toBe(false);
  });
});

describe('schema-driven fuzzing of every route (issue 9 item 3)', () => {
  it('covers every documented route and verb', () => {
    const ops = operations().map((o) => `${o.method} ${o.path}`);
    expect(ops.length).toBeGreaterThanOrEqual(20);
    for (const o of operations()) expect(Object.keys(o.op.responses).length, `${o.method} ${o.path}`).toBeGreaterThan(0);
  });

  it('every route answers its known-good request with a documented 2xx (deterministic, no seed involved)', { timeout: 120_000 }, async () => {
    const fixtures = (await (await fetch(`${f.ts.url}/api/v1/sandbox/fixtures`, { headers: { 'x-api-key': f.a.sandboxKey } })).json()) as { data: Fixture[] };
    const missing: string[] = [];
    const refused: string[] = [];
    for (const o of operations()) {
      const make = KNOWN_GOOD[`${o.method} ${o.path}`];
      if (!make) {
        missing.push(`${o.method} ${o.path}`);
        continue;
      }
      const k = await make(o, fixtures.data);
      const r: Req = { path: fillPath(o.path, k.params ?? {}), query: k.query ?? {}, headers: { ...k.headers, ...extraHeaders(o) }, body: k.body, how: 'known good' };
      const before = failures.length;
      const res = await send(o, r);
      check(o, r, res, false);
      if (res.status < 200 || res.status >= 300 || failures.length > before) refused.push(`${o.method} ${o.path} → ${res.status} ${res.text.slice(0, 300)} ${failures.slice(before).join(' ')}`);
    }
    failures.length = 0;
    // A new route needs its known-good request here, so that it is proven reachable whatever the seed.
    expect(missing, 'routes without a known-good request in KNOWN_GOOD').toEqual([]);
    expect(refused).toEqual([]);
  });

  it('valid requests: never a 5xx, a documented status, a body that matches its schema', { timeout: SOAK ? 1_800_000 : 180_000 }, async () => {
    const fixtures = (await (await fetch(`${f.ts.url}/api/v1/sandbox/fixtures`, { headers: { 'x-api-key': f.a.sandboxKey } })).json()) as { data: { request: Record<string, unknown> }[] };
    const refreshTokens = fuzzRefreshTokens;
    const gen = hints(fixtures.data, refreshTokens);
    let i = 0;
    for (const o of operations()) {
      const bodySchema = o.op.requestBody?.content['application/json'].schema;
      const arb = fc.record({
        path: paramArb(o, 'path', gen),
        query: paramArb(o, 'query', gen),
        body: bodySchema ? bodyArb(bodySchema, fixtures.data, gen) : fc.constant(undefined),
      });
      const runs = o.path.endsWith('/auth/logout') ? Math.min(RUNS, 10) : RUNS;
      for (const v of fc.sample(arb, { numRuns: runs, seed: SEED + i++ })) {
        const creds = fc.sample(await credentials(o), { numRuns: 1, seed: SEED + i++ })[0]!;
        const r: Req = { path: fillPath(o.path, v.path), query: v.query, headers: { ...creds, ...extraHeaders(o) }, body: v.body, how: 'valid' };
        const res = await send(o, r);
        check(o, r, res, false);
        count(o, 'valid');
        const m = validOutcomes.get(`${o.method} ${o.path}`) ?? new Map<string, number>();
        m.set(String(res.status), (m.get(String(res.status)) ?? 0) + 1);
        validOutcomes.set(`${o.method} ${o.path}`, m);
      }
    }
    expect(failures.length, `seed ${SEED} (VC_FUZZ_SEED=${SEED} replays it)\n${summary()}`).toBe(0);
    // Which routes this seed's sample never got past the handlers' checks is worth knowing (a generator that drifted
    // from the schemas), but it depends on the seed, so it is reported, not asserted: that every route can answer a
    // 2xx is the deterministic known-good test above.
    const never2xx = [...validOutcomes.entries()].filter(([, m]) => ![...m.keys()].some((st) => st.startsWith('2')));
    if (never2xx.length > 0) console.log(`schema fuzz (seed ${SEED}): no 2xx in this sample for ${never2xx.map(([k, m]) => `${k} ${JSON.stringify(Object.fromEntries(m))}`).join('; ')}`);
  });

  it('invalid requests: always a 4xx with the error body, never a 5xx', { timeout: SOAK ? 1_800_000 : 180_000 }, async () => {
    failures.length = 0;
    const gen: Generators = { hints: { url: [PUBLIC_HOOK_URL] } };
    let i = 1_000_000;
    for (const o of operations()) {
      const bodySchema = o.op.requestBody?.content['application/json'].schema;
      const cases: fc.Arbitrary<Req>[] = [];
      const path = paramArb(o, 'path', gen).map((p) => fillPath(o.path, p));
      const query = paramArb(o, 'query', gen);
      if (bodySchema) {
        cases.push(
          fc.record({ path, query, bad: set.invalidArbitrary(bodySchema, set.arbitrary(bodySchema, gen)) }).map((x) => ({ path: x.path, query: x.query, headers: {}, body: x.bad.value, how: x.bad.how })),
          // No body at all, and an empty JSON body.
          fc.record({ path, query }).map((x) => ({ ...x, headers: {}, how: 'no body' })),
          fc.record({ path, query }).map((x) => ({ ...x, headers: {}, rawBody: '', how: 'empty JSON body' })),
        );
      }
      for (const p of o.op.parameters ?? []) {
        if (p.in !== 'query' && p.in !== 'path') continue;
        const bad = set.invalidArbitrary(p.schema, set.arbitrary(p.schema, gen)).filter((m) => typeof m.value === 'string' || typeof m.value === 'number');
        const badText = fc.oneof(bad.map((m) => ({ value: String(m.value), how: m.how })), fc.constantFrom(...['abc', '-1', '1.5', '', '9'.repeat(30)].map((value) => ({ value, how: 'odd text' }))))
          .filter((m) => !set.valid(p.schema, p.schema['type'] === 'integer' && /^-?\d+$/.test(m.value) ? Number(m.value) : m.value))
          // An empty path segment routes elsewhere; a query parameter's empty value is invalid only if the schema says so.
          .filter((m) => m.value !== '');
        cases.push(
          fc.record({ pathParams: paramArb(o, 'path', gen), query, bad: badText, body: bodySchema ? set.arbitrary(bodySchema, gen) : fc.constant(undefined) }).map((x) => {
            const pp = p.in === 'path' ? { ...x.pathParams, [p.name]: x.bad.value } : x.pathParams;
            const q = p.in === 'query' ? { ...x.query, [p.name]: x.bad.value } : x.query;
            return { path: fillPath(o.path, pp), query: q, headers: {}, body: x.body, how: `${p.in} ${p.name} ${x.bad.how}` };
          }),
        );
      }
      if (cases.length === 0) continue;
      const runs = o.path.endsWith('/auth/logout') ? Math.min(RUNS, 10) : RUNS;
      for (const r of fc.sample(fc.oneof(...cases), { numRuns: runs, seed: SEED + i++ })) {
        const creds = fc.sample(await credentials(o), { numRuns: 1, seed: SEED + i++ })[0]!;
        r.headers = { ...creds, ...extraHeaders(o) };
        check(o, r, await send(o, r), true);
        count(o, 'invalid');
      }
    }
    expect(failures.length, `seed ${SEED} (VC_FUZZ_SEED=${SEED} replays it)\n${summary()}`).toBe(0);
  });
});
