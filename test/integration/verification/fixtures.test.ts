// Posts every documented sandbox fixture over real HTTP with a sandbox key and checks it answers what the
// catalogue says (decisions §10): status, error code, message and result fields. Address fixtures are async:
// 202 pending first, then the final record once the queue has run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORRIDORS } from '../../../src-shared/corridors';
import { FACE_MATCH_MESSAGES } from '../../../src-shared/errors';
import { IDENTITY_TYPES } from '../../../src-shared/identity-rules';
import { PHONE_MARKETS } from '../../../src-shared/phone-markets';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { startService, type RunningService } from '../../../src-main/service';
import { testStore } from '../../helpers/harness';

interface Fixture {
  kind: string;
  country: string;
  description: string;
  request: Record<string, unknown>;
  expected: { status: string; errorCode?: string; fields?: Record<string, unknown> };
}

let service: RunningService;
let dir: string;
let key: string;
let fixtures: Fixture[];
let n = 0;

async function post(path: string, body: unknown) {
  const res = await fetch(`${service.url}/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'idempotency-key': `fx-${++n}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function get(path: string) {
  const res = await fetch(`${service.url}/api/v1${path}`, { headers: { 'x-api-key': key } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vc-'));
  service = await startService({ dataDir: dir, ...(await testStore(dir)), port: 0, logLevel: 'silent', scryptN: 1024 });
  const boot = await bootstrap(service.deps, { email: 'owner@example.com', password: 'correct horse battery' });
  key = boot.keys.sandbox.key;
  const res = await get('/sandbox/fixtures');
  expect(res.status).toBe(200);
  // The catalogue also lists the bank-routing fixtures (another feature's endpoints); this test covers verifications.
  const KINDS = ['account', 'phone', 'identity', 'face', 'address'];
  fixtures = (res.body as unknown as { data: Fixture[] }).data.filter((f) => KINDS.includes(f.kind));
});

afterAll(async () => {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('sandbox fixture catalogue coverage (decisions §10)', () => {
  it('has a success and a failed account fixture for every corridor', () => {
    for (const c of CORRIDORS) {
      const mine = fixtures.filter((f) => f.kind === 'account' && f.country === c.country);
      expect(mine.some((f) => f.expected.status === 'success'), c.country).toBe(true);
      // A format-check corridor (PH) checks no bank and no name: it fails on format only.
      expect(
        mine.some((f) => f.expected.status === 'failed' && (c.checkType === 'FORMAT_CHECK' ? /format failure/.test(f.description) : ['VERIFICATION_FAILED', 'ACCOUNT_NOT_FOUND'].includes(f.expected.errorCode ?? '') && !/format/.test(f.description))),
        c.country,
      ).toBe(true);
    }
  });

  it('has a success and a failed fixture for every phone market and identity type', () => {
    for (const m of PHONE_MARKETS) {
      const mine = fixtures.filter((f) => f.kind === 'phone' && f.country === m.country);
      expect(mine.some((f) => f.expected.status === 'success'), m.country).toBe(true);
      expect(mine.some((f) => f.expected.status === 'failed'), m.country).toBe(true);
    }
    for (const t of IDENTITY_TYPES) {
      const mine = fixtures.filter((f) => f.kind === 'identity' && f.request['idType'] === t.idType);
      expect(mine.some((f) => f.expected.status === 'success'), t.idType).toBe(true);
      expect(mine.some((f) => f.expected.status === 'failed'), t.idType).toBe(true);
    }
  });

  it('reaches every verification error code each kind can produce', () => {
    const all = ['VERIFICATION_ERROR', 'VERIFICATION_TIMEOUT', 'VERIFICATION_UNAVAILABLE', 'VERIFICATION_RATE_LIMITED', 'VERIFICATION_CANCELLED', 'INCONCLUSIVE', 'VERIFICATION_FAILED'];
    const perKind: Record<string, string[]> = {
      account: [...all, 'ACCOUNT_NOT_FOUND', 'ACCOUNT_INACTIVE', 'INVALID_BANK_CODE', 'INVALID_ACCOUNT_NUMBER'],
      phone: [...all, 'SUBSCRIBER_NOT_FOUND', 'INVALID_PHONE_NUMBER', 'INVALID_NETWORK_CODE', 'NETWORK_CODE_REQUIRED'],
      identity: [...all, 'IDENTIFIER_NOT_FOUND'],
      face: [...all.filter((c) => c !== 'VERIFICATION_FAILED'), 'FACE_MATCH_FAILED'],
      address: all,
    };
    for (const [kind, codes] of Object.entries(perKind)) {
      const have = new Set(fixtures.filter((f) => f.kind === kind).map((f) => f.expected.errorCode));
      for (const code of codes) expect(have.has(code), `${kind} ${code}`).toBe(true);
    }
    const et = new Set(fixtures.filter((f) => f.kind === 'account' && f.country === 'ET').map((f) => f.expected.errorCode));
    for (const code of ['ACCOUNT_NOT_FOUND', 'ACCOUNT_INACTIVE', 'INCONCLUSIVE']) expect(et.has(code), `ET ${code}`).toBe(true);
    const faceMessages = fixtures.filter((f) => f.kind === 'face' && f.expected.errorCode === 'FACE_MATCH_FAILED').map((f) => f.expected.fields?.['message']);
    expect(new Set(faceMessages)).toEqual(new Set(FACE_MATCH_MESSAGES));
  });
});

describe('every fixture answers as documented over HTTP', () => {
  it('posts each fixture and compares the record', async () => {
    const failures: string[] = [];
    const pendingAddresses: { f: Fixture; id: string }[] = [];
    for (const f of fixtures) {
      const res = await post(`/verify/${f.kind}`, f.request);
      const label = `${f.kind} ${f.country} ${f.description}`;
      if (f.kind === 'address') {
        if (res.status !== 202 || res.body['status'] !== 'pending' || res.body['verificationType'] !== 'ADDRESS') {
          failures.push(`${label}: expected 202 pending, got ${res.status} ${JSON.stringify(res.body)}`);
        } else {
          pendingAddresses.push({ f, id: String(res.body['id']) });
        }
        continue;
      }
      if (res.status !== 200) {
        failures.push(`${label}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
        continue;
      }
      failures.push(...compare(label, f, res.body));
    }
    await service.worker.drain();
    for (const { f, id } of pendingAddresses) {
      const res = await get(`/verify/${id}`);
      failures.push(...compare(`${f.kind} ${f.country} ${f.description}`, f, res.body));
    }
    expect(failures).toEqual([]);
    expect(fixtures.length).toBeGreaterThan(150);
  });

  it('is deterministic: the same request answers the same way twice', async () => {
    for (const f of fixtures.filter((x) => x.kind !== 'address').slice(0, 40)) {
      const a = await post(`/verify/${f.kind}`, f.request);
      const b = await post(`/verify/${f.kind}`, f.request);
      expect([b.body['status'], (b.body['error'] as { code?: string } | undefined)?.code]).toEqual([
        a.body['status'],
        (a.body['error'] as { code?: string } | undefined)?.code,
      ]);
    }
  });
});

function compare(label: string, f: Fixture, rec: Record<string, unknown>): string[] {
  const out: string[] = [];
  const error = rec['error'] as { code: string; message: string } | undefined;
  if (rec['status'] !== f.expected.status) out.push(`${label}: status ${String(rec['status'])} (${error?.code}: ${error?.message}), expected ${f.expected.status}`);
  if (error?.code !== f.expected.errorCode) out.push(`${label}: error code ${error?.code}, expected ${f.expected.errorCode}`);
  if (rec['verified'] !== (f.expected.status === 'success')) out.push(`${label}: verified ${String(rec['verified'])}`);
  const charge = rec['charge'] as { status?: string } | undefined;
  if (charge?.status !== 'not_charged') out.push(`${label}: sandbox charge ${JSON.stringify(charge)}`);
  for (const [k, v] of Object.entries(f.expected.fields ?? {})) {
    const actual = k === 'message' ? error?.message : rec[k];
    if (JSON.stringify(actual) !== JSON.stringify(v)) out.push(`${label}: ${k} = ${JSON.stringify(actual)}, expected ${JSON.stringify(v)}`);
  }
  return out;
}
