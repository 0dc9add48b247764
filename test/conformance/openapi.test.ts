// The OpenAPI document as outside tools see it (issue 18 item 1): the served document passes redocly's recommended
// ruleset with no problem (redocly.yaml), swagger-parser validates it, every operation and response is described,
// every request body has an example, the Idempotency-Key header is required exactly where the server requires it,
// and a client generated from it (openapi-typescript types, checked in as generated/api.d.ts, + openapi-fetch)
// drives the main flows against the real service.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import SwaggerParser from '@apidevtools/swagger-parser';
import createClient from 'openapi-fetch';
import type { paths } from './generated/api';
import { generateApiTypes } from './api-types';
import { fallbackSuccessDescription } from '../../src-main/http/openapi';
import { login, NG_OK, startTestService, type TestService } from '../helpers/harness';

const root = join(import.meta.dirname, '..', '..');
type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

let ts: TestService;
let doc: Json;
let text: string;

beforeAll(async () => {
  ts = await startTestService();
  const res = await fetch(`${ts.url}/api/v1/openapi.json`);
  expect(res.status).toBe(200);
  text = await res.text();
  doc = JSON.parse(text) as Json;
});
afterAll(async () => ts?.stop());

function operations(): { path: string; method: string; op: Json }[] {
  const out: { path: string; method: string; op: Json }[] = [];
  for (const [path, item] of Object.entries(doc['paths'] as Record<string, Json>)) {
    for (const method of METHODS) if (item[method]) out.push({ path, method, op: item[method] as Json });
  }
  return out;
}

describe('the served OpenAPI document', () => {
  it("passes redocly's recommended ruleset with 0 errors and 0 warnings", async () => {
    const config = await loadConfig({ configPath: join(root, 'redocly.yaml') });
    const problems = await lintFromString({ source: text, absoluteRef: join(root, 'openapi.json'), config });
    const report = problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
    expect(report).toEqual([]);
  });

  it('is valid for swagger-parser', async () => {
    const api = await SwaggerParser.validate(structuredClone(doc) as never);
    expect((api as Json)['openapi']).toBe('3.1.0');
  });

  it('has a unique operationId, a summary and a description on every operation, and a real description on every response', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThanOrEqual(27);
    const ids = ops.map((o) => o.op['operationId']);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)), JSON.stringify(ids)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of ops) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(String(op['summary'] ?? '').length, where).toBeGreaterThan(5);
      expect(String(op['description'] ?? '').length, where).toBeGreaterThan(20);
      for (const [status, response] of Object.entries(op['responses'] as Record<string, Json>)) {
        expect(response['description'], `${where} ${status}`).not.toBe('Default Response');
        expect(response['description'], `${where} ${status}: give schema.responseDescriptions`).not.toBe(fallbackSuccessDescription(Number(status), String(op['summary'])));
        expect(String(response['description'] ?? '').length, `${where} ${status}`).toBeGreaterThan(5);
      }
    }
  });

  it('gives every request body at least one example, and those of verification and routing come from the sandbox catalogue', async () => {
    const catalogue = (await fetch(`${ts.url}/api/v1/sandbox/fixtures`, { headers: { 'x-api-key': ts.sandboxKey } }).then((r) => r.json())) as Json;
    const requests = new Set((catalogue.data as Json[]).map((f) => JSON.stringify(f['request'])));
    for (const { path, method, op } of operations()) {
      const media = op['requestBody']?.content?.['application/json'];
      if (!media) continue;
      const examples = Object.values((media['examples'] ?? {}) as Record<string, Json>);
      expect(examples.length, `${method} ${path}`).toBeGreaterThan(0);
      if (/\/(verify|verifications)\//.test(path)) {
        for (const e of examples) expect(requests.has(JSON.stringify(e['value'])), `${path}: ${JSON.stringify(e['value'])}`).toBe(true);
      }
    }
  });

  it('declares Idempotency-Key required on exactly the POSTs whose server requires it', async () => {
    const token = (await login(ts.url, ts.email)).accessToken;
    const checked: string[] = [];
    for (const { path, method, op } of operations()) {
      if (method !== 'post') continue;
      const media = op['requestBody']?.content?.['application/json'];
      const example = media ? (Object.values(media['examples'] as Record<string, Json>)[0]?.['value'] ?? {}) : undefined;
      const security = (op['security'] ?? []) as Json[];
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (security.some((s) => 'apiKey' in s)) headers['x-api-key'] = ts.sandboxKey;
      else if (security.some((s) => 'bearer' in s)) headers['authorization'] = `Bearer ${token}`;
      const res = await fetch(`${ts.url}${path}`, { method: 'POST', headers, body: JSON.stringify(example ?? {}) });
      const body = (await res.json().catch(() => ({}))) as Json;
      const serverRequires = body['code'] === 'IDEMPOTENCY_KEY_REQUIRED';
      const param = ((op['parameters'] ?? []) as Json[]).find((p) => p['in'] === 'header' && String(p['name']).toLowerCase() === 'idempotency-key');
      expect(param?.['required'] === true, `${path}: server ${serverRequires ? 'requires' : 'does not require'} the key`).toBe(serverRequires);
      if (serverRequires) checked.push(path);
    }
    // The six idempotent POSTs of the interface (§4.1, §4.2).
    expect(checked.sort()).toEqual(
      ['account', 'address', 'face', 'identity', 'phone'].map((k) => `/api/v1/verify/${k}`).concat('/api/v1/verifications/correspondents').sort(),
    );
  });

  it('each verification POST documents only the answers it gives: face is synchronous only (no 202), address always pending (no 200)', () => {
    const answers = (k: string) => {
      const op = operations().find((o) => o.path === `/api/v1/verify/${k}` && o.method === 'post')!.op;
      return ['200', '202'].filter((s) => (op['responses'] as Record<string, Json>)[s] !== undefined);
    };
    expect(answers('face')).toEqual(['200']);
    expect(answers('address')).toEqual(['202']);
    for (const k of ['account', 'phone', 'identity']) expect(answers(k), k).toEqual(['200', '202']);
  });

  it('documents the statuses and headers every operation can meet beyond its own: 503, 429, X-Environment, Retry-After, Idempotent-Replayed', () => {
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const responses = op['responses'] as Record<string, Json>;
      const security = (op['security'] ?? []) as Json[];
      const parameters = (op['parameters'] ?? []) as Json[];
      // A store that cannot be written or read answers any request 503 STORAGE_UNAVAILABLE; a credential has a budget.
      expect(responses['503'], where).toBeDefined();
      if (security.some((s) => Object.keys(s).length > 0)) expect(responses['429'], where).toBeDefined();
      for (const s of ['429', '503']) if (responses[s]) expect(responses[s]!['headers']?.['Retry-After'], `${where} ${s}`).toBeDefined();
      // decisions §6: a token works on the environment X-Environment names; another value is a 422.
      const bearer = security.some((s) => 'bearer' in s);
      expect(parameters.some((p) => p['in'] === 'header' && p['name'] === 'X-Environment'), where).toBe(bearer);
      if (bearer) expect(responses['422'], where).toBeDefined();
      const idempotent = parameters.some((p) => p['in'] === 'header' && String(p['name']).toLowerCase() === 'idempotency-key');
      for (const s of ['200', '202']) if (responses[s]) expect(Boolean(responses[s]!['headers']?.['Idempotent-Replayed']), `${where} ${s}`).toBe(idempotent);
      // 409 is an idempotency conflict: only an operation that takes a key can meet it.
      if (!idempotent) expect(responses['409'], where).toBeUndefined();
    }
  });

  it('each status and header it documents is real: 429 with Retry-After on the fixtures list and logout, X-Environment on a Bearer read, a Bearer scheme in any case', async () => {
    const small = await startTestService({ rateLimitPerMinute: 3 });
    try {
      const fixtures = async () => fetch(`${small.url}/api/v1/sandbox/fixtures`, { headers: { 'x-api-key': small.sandboxKey } });
      let r = await fixtures();
      for (let i = 0; i < 5 && r.status !== 429; i++) r = await fixtures();
      expect(r.status).toBe(429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const { accessToken } = await login(small.url, small.email);
      // Lower-case `bearer` is the Bearer scheme; the token's budget spent on reads, its logout waits too.
      const read = async () => fetch(`${small.url}/api/v1/client/api-keys`, { headers: { authorization: `bearer ${accessToken}` } });
      let first = await read();
      expect(first.status).toBe(200);
      for (let i = 0; i < 5 && first.status !== 429; i++) first = await read();
      expect(first.status).toBe(429);
      const out = await fetch(`${small.url}/api/v1/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}` } });
      expect(out.status).toBe(429);
      expect(Number(out.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await small.stop();
    }
    const { accessToken } = await login(ts.url, ts.email);
    const keys = (environment: string) => fetch(`${ts.url}/api/v1/client/api-keys`, { headers: { authorization: `Bearer ${accessToken}`, 'x-environment': environment } });
    expect((await keys('live')).status).toBe(200);
    const bad = await keys('staging');
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as Json)['details']).toEqual([expect.objectContaining({ field: 'X-Environment' })]);
  });

  it('generates the checked-in client types (refresh: npx tsx scripts/generate-api-types.ts)', async () => {
    const fresh = await generateApiTypes(doc);
    const checkedIn = readFileSync(join(import.meta.dirname, 'generated', 'api.d.ts'), 'utf8');
    expect(fresh === checkedIn, 'test/conformance/generated/api.d.ts is stale: run npx tsx scripts/generate-api-types.ts').toBe(true);
  });
});

describe('a client generated from the document (openapi-typescript + openapi-fetch)', () => {
  const idem = () => `conf-${randomUUID()}`;
  const sandbox = () => createClient<paths>({ baseUrl: ts.url, headers: { 'x-api-key': ts.sandboxKey } });

  it('verifies an account synchronously, then reads it back and lists it', async () => {
    const client = sandbox();
    const { data, error, response } = await client.POST('/api/v1/verify/account', {
      params: { header: { 'idempotency-key': idem() } },
      body: { ...NG_OK },
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ status: 'success', verified: true, accountName: 'ADAEZE OKAFOR', environment: 'sandbox', mode: 'sync' });
    const id = data!.id!;
    const one = await client.GET('/api/v1/verify/{id}', { params: { path: { id } } });
    expect(one.data?.id).toBe(id);
    expect(one.data?.charge.status).toBe('not_charged');
    const list = await client.GET('/api/v1/verify', { params: { query: { limit: 5, status: 'success' } } });
    expect(list.data?.pagination.limit).toBe(5);
    expect(list.data?.data.map((v) => v.id)).toContain(id);
  });

  it('submits an async verification (202) and polls it to its result', async () => {
    const client = sandbox();
    const submitted = await client.POST('/api/v1/verify/account', {
      params: { header: { 'idempotency-key': idem() } },
      body: { ...NG_OK, mode: 'async' },
    });
    expect(submitted.response.status).toBe(202);
    expect(submitted.data?.status).toBe('pending');
    const id = submitted.data!.id!;
    let status: string | undefined = 'pending';
    for (let i = 0; i < 500 && status === 'pending'; i++) {
      const polled = await client.GET('/api/v1/verify/{id}', { params: { path: { id } } });
      status = polled.data?.status;
      if (status === 'pending') await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe('success');
  });

  it('gets typed error bodies: a 422 with details', async () => {
    const { error, response } = await sandbox().POST('/api/v1/verify/account', {
      params: { header: { 'idempotency-key': idem() } },
      body: { country: 'NG', accountNumber: '' },
    });
    expect(response.status).toBe(422);
    expect(error?.code).toBe('VALIDATION_ERROR');
    expect(error?.details?.map((d) => d.field)).toContain('accountNumber');
  });

  it('creates and lists webhooks', async () => {
    const client = sandbox();
    const created = await client.POST('/api/v1/client/webhooks', {
      body: { url: 'https://hooks.example.com/conformance', events: ['verification.completed'] },
    });
    expect(created.response.status).toBe(201);
    expect(created.data?.secret).toMatch(/^whsec_/);
    const list = await client.GET('/api/v1/client/webhooks', { params: { query: { limit: 100 } } });
    expect(list.data?.data.map((w) => w.id)).toContain(created.data!.id);
  });

  it('signs in, then creates, lists and revokes an API key with the Bearer token', async () => {
    const anonymous = createClient<paths>({ baseUrl: ts.url });
    const session = await anonymous.POST('/api/v1/auth/login', { body: { email: ts.email, password: 'correct horse battery staple' } });
    expect(session.data?.tokenType).toBe('Bearer');
    const owner = createClient<paths>({ baseUrl: ts.url, headers: { authorization: `Bearer ${session.data!.accessToken}` } });
    const created = await owner.POST('/api/v1/client/api-keys', { body: { name: 'conformance', environment: 'sandbox' } });
    expect(created.response.status).toBe(201);
    const keyId = created.data!.id;
    const listed = await owner.GET('/api/v1/client/api-keys', { params: { query: { limit: 100 } } });
    expect(listed.data?.data.map((k) => k.id)).toContain(keyId);
    const revoked = await owner.DELETE('/api/v1/client/api-keys/{id}', { params: { path: { id: keyId } } });
    expect(revoked.data?.status).toBe('revoked');
    const withRevoked = createClient<paths>({ baseUrl: ts.url, headers: { 'x-api-key': created.data!.key } });
    const refused = await withRevoked.GET('/api/v1/verify', { params: { query: {} } });
    expect(refused.error?.code).toBe('API_KEY_REVOKED');
  });

  it('reads the wallet with a live key; a sandbox key is refused', async () => {
    const live = createClient<paths>({ baseUrl: ts.url, headers: { 'x-api-key': ts.liveKey } });
    const wallet = await live.GET('/api/v1/client/wallet');
    expect(wallet.response.status).toBe(200);
    expect(typeof wallet.data?.balance).toBe('number');
    const refused = await sandbox().GET('/api/v1/client/wallet');
    expect(refused.response.status).toBe(403);
    expect(refused.error?.code).toBe('FORBIDDEN');
  });
});
