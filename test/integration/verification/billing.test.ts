// Live billing over real HTTP (decisions §9, interface §1.6): gate order and codes, the charge rule per outcome,
// a concurrent race against a balance for N−1, async reversal, the sync guard after a crash, and sandbox free.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enableService, getWallet, ledgerSum, setPrice, setWalletStatus, topUp } from '../../../src-main/core/billing/billing';
import { ManualClock } from '../../../src-main/core/clock';
import { processVerification, SYNC_GUARD_MS } from '../../../src-main/core/verification/engine';
import { bootstrap } from '../../../src-main/core/orgs/organizations';
import { startService, type RunningService } from '../../../src-main/service';
import { configureStandIn } from '../../../src-main/providers/registry';
import { dropTestStore, testStore } from '../../helpers/harness';

let service: RunningService;
let dir: string;
let live: string;
let sandbox: string;
let org: string;
let clock: ManualClock;
let n = 0;

const NG_OK = { country: 'NG', accountNumber: '0123456789', bankCode: '058' };

async function post(path: string, body: unknown, key = live) {
  const res = await fetch(`${service.url}/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, 'idempotency-key': `b-${++n}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
async function get(path: string, key = live) {
  const res = await fetch(`${service.url}/api/v1${path}`, { headers: { 'x-api-key': key } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vc-'));
  clock = new ManualClock(Date.now());
  service = await startService({ dataDir: dir, ...(await testStore(dir)), port: 0, logLevel: 'silent', scryptN: 1024, clock });
  const boot = await bootstrap(service.deps, { email: 'owner@example.com', password: 'correct horse battery' });
  live = boot.keys.live.key;
  sandbox = boot.keys.sandbox.key;
  org = boot.organizationId;
  // Live checks need a configured provider: these billing rules run against the sandbox-like stand-in.
  await configureStandIn(service.rt);
});

afterEach(async () => {
  await service.stop();
  await dropTestStore(dir);
  rmSync(dir, { recursive: true, force: true });
});

async function fund(service_: string, price: number, balance: number) {
  await enableService(service.deps, org, service_);
  await setPrice(service.deps, org, service_, price, 'USD');
  if (balance > 0) await topUp(service.deps, org, balance, 'USD');
}

describe('gates', () => {
  it('answers 403 → 402 → 402 → 402 in the documented order, each with its action', async () => {
    let r = await post('/verify/account', NG_OK);
    expect([r.status, r.body['code'], r.body['action']?.type]).toEqual([403, 'SERVICE_NOT_ENABLED', 'CONTACT_ADMIN']);
    await enableService(service.deps, org, 'account:NG');
    r = await post('/verify/account', NG_OK);
    expect([r.status, r.body['code'], r.body['action']?.type]).toEqual([402, 'SERVICE_PRICE_NOT_CONFIGURED', 'CONTACT_ADMIN']);
    await setPrice(service.deps, org, 'account:NG', 50, 'USD');
    await setWalletStatus(service.deps, org, 'suspended');
    r = await post('/verify/account', NG_OK);
    expect([r.status, r.body['code'], r.body['action']?.type]).toEqual([402, 'WALLET_SUSPENDED', 'CONTACT_ADMIN']);
    await setWalletStatus(service.deps, org, 'active');
    r = await post('/verify/account', NG_OK);
    expect([r.status, r.body['code'], r.body['action']?.type]).toEqual([402, 'INSUFFICIENT_FUNDS', 'TOP_UP_WALLET']);
    await topUp(service.deps, org, 50, 'USD');
    r = await post('/verify/account', NG_OK);
    expect(r.status).toBe(200);
    expect(r.body['charge']).toEqual({ amount: 50, currency: 'USD', status: 'charged' });
    // A refused request records nothing.
    const listed = await get('/verify');
    expect(listed.body['pagination'].total).toBe(1);
  });

  it('a currency must be one ISO 4217 lists, and a balance stays where it equals its ledger', async () => {
    // A typo of three letters (UDS) used to become the wallet's currency for good.
    for (const cur of ['UDS', 'XYZ']) {
      await expect(topUp(service.deps, org, 100, cur)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'currency' }] });
      await expect(setPrice(service.deps, org, 'account:NG', 50, cur)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    await topUp(service.deps, org, 2_500, 'USD');
    // The CLI passes the core any amount: past 2^53 the balance read back was a cent off its ledger's sum.
    await expect(topUp(service.deps, org, Number.MAX_SAFE_INTEGER, 'USD')).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'amount' }] });
    for (let i = 0; i < 999; i++) await topUp(service.deps, org, 1_000_000_000_000, 'USD');
    await expect(topUp(service.deps, org, 1_000_000_000_000, 'USD')).rejects.toMatchObject({ details: [{ field: 'amount', message: expect.stringContaining('the most a wallet holds') }] });
    const w = await getWallet(service.deps, org);
    expect(w.balance).toBe(999_000_000_002_500);
    expect(await ledgerSum(service.deps, org)).toBe(w.balance);
    await expect(setPrice(service.deps, org, 'account:NG', 1_000_000_001, 'USD')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it("a wallet an older version let be held in a code outside the list keeps working in it; XCG is listed", async () => {
    await topUp(service.deps, org, 100, 'XCG');
    expect((await getWallet(service.deps, org)).currency).toBe('XCG');
    // As an older version left it: held in HRK (withdrawn in 2023, so outside the list).
    await service.deps.sql.transaction((tx) => tx.run("UPDATE wallets SET currency = 'HRK' WHERE organization_id = ?", [org]));
    await expect(topUp(service.deps, org, 50, 'HRK')).resolves.toMatchObject({ balance: 150, currency: 'HRK' });
    await expect(setPrice(service.deps, org, 'account:NG', 25, 'HRK')).resolves.toMatchObject({ currency: 'HRK' });
    // Another code outside the list is still refused.
    await expect(setPrice(service.deps, org, 'account:GH', 25, 'SLL')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('layer-1 and layer-2 failures come before billing and are never charged', async () => {
    let r = await post('/verify/account', { country: 'NG', bankCode: '058' });
    expect([r.status, r.body['code']]).toEqual([422, 'VALIDATION_ERROR']);
    r = await post('/verify/account', { ...NG_OK, accountNumber: '12345' });
    expect([r.status, r.body['status'], r.body['error'].code, r.body['charge'].status]).toEqual([200, 'failed', 'INVALID_ACCOUNT_NUMBER', 'not_charged']);
  });

  it('sandbox keys are never gated nor charged', async () => {
    const r = await post('/verify/account', NG_OK, sandbox);
    expect([r.status, r.body['status'], r.body['charge'].status]).toEqual([200, 'success', 'not_charged']);
  });
});

describe('charge rule per outcome (interface §1.6)', () => {
  const cases: [string, Record<string, unknown>, string, string | undefined, 'charged' | 'reversed'][] = [
    ['success', NG_OK, 'success', undefined, 'charged'],
    ['name mismatch', { country: 'GB', accountNumber: '31926819', bankCode: '601613', accountName: 'John Smith' }, 'failed', 'VERIFICATION_FAILED', 'charged'],
    ['not found', { ...NG_OK, accountNumber: '0000000000' }, 'failed', 'ACCOUNT_NOT_FOUND', 'charged'],
    ['inactive', { ...NG_OK, accountNumber: '0111111111' }, 'failed', 'ACCOUNT_INACTIVE', 'charged'],
    ['timeout', { ...NG_OK, accountNumber: '0999999991' }, 'error', 'VERIFICATION_TIMEOUT', 'reversed'],
    ['inconclusive', { ...NG_OK, accountNumber: '0999999995' }, 'error', 'INCONCLUSIVE', 'reversed'],
    ['unavailable', { ...NG_OK, accountNumber: '0999999994' }, 'error', 'VERIFICATION_UNAVAILABLE', 'reversed'],
  ];
  for (const [name, req, status, codeWanted, charge] of cases) {
    it(`${name}: ${charge}`, async () => {
      await fund(`account:${String(req['country'])}`, 100, 1000);
      const r = await post('/verify/account', req);
      expect(r.status).toBe(200);
      expect([r.body['status'], r.body['error']?.code]).toEqual([status, codeWanted]);
      expect(r.body['charge']).toEqual({ amount: 100, currency: 'USD', status: charge });
      const wallet = await getWallet(service.deps, org);
      expect(wallet.balance).toBe(charge === 'charged' ? 900 : 1000);
      expect(await ledgerSum(service.deps, org)).toBe(wallet.balance);
      const usage = await get(`/client/usage?verificationId=${r.body['id']}`);
      expect(usage.body['data'].map((u: { kind: string }) => u.kind).sort()).toEqual(charge === 'charged' ? ['charge'] : ['charge', 'reversal']);
      // GET returns the same charge as the POST.
      expect((await get(`/verify/${r.body['id']}`)).body['charge']).toEqual(r.body['charge']);
    });
  }

  it('phone, identity and face use their own services', async () => {
    await fund('phone:KE', 20, 0);
    await fund('identity:national_id', 30, 0);
    await fund('face', 40, 0);
    await topUp(service.deps, org, 90, 'USD');
    expect((await post('/verify/phone', { country: 'KE', phoneNumber: '254712123456' })).body['charge'].status).toBe('charged');
    expect((await post('/verify/identity', { country: 'KE', idType: 'national_id', idNumber: '12345678' })).body['charge'].status).toBe('charged');
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    expect((await post('/verify/face', { country: 'GH', idNumber: 'GHA-123456789-0', selfieImage: png })).body['charge'].status).toBe('charged');
    expect((await getWallet(service.deps, org)).balance).toBe(0);
  });
});

describe('concurrency', () => {
  it('N concurrent requests against a balance for N−1: exactly N−1 charged, one 402, never negative', async () => {
    const N = 12;
    await fund('account:NG', 100, 100 * (N - 1));
    const results = await Promise.all(Array.from({ length: N }, () => post('/verify/account', NG_OK)));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(ok.length).toBe(N - 1);
    expect(refused.map((r) => r.body['code'])).toEqual(['INSUFFICIENT_FUNDS']);
    expect(ok.every((r) => r.body['charge'].status === 'charged')).toBe(true);
    const wallet = await getWallet(service.deps, org);
    expect(wallet.balance).toBe(0);
    expect(await ledgerSum(service.deps, org)).toBe(wallet.balance);
    const usage = await get('/client/usage?kind=charge&limit=100');
    expect(usage.body['pagination'].total).toBe(N - 1);
  });
});

describe('async and recovery', () => {
  it('async: charged at submission, reversed once at completion when the answer is a non-answer', async () => {
    await fund('account:NG', 100, 300);
    const ok = await post('/verify/account', { ...NG_OK, mode: 'async' });
    const inconclusive = await post('/verify/account', { ...NG_OK, accountNumber: '0999999995', mode: 'async' });
    expect([ok.status, inconclusive.status]).toEqual([202, 202]);
    const charges = (await service.deps.sql.get<{ n: number }>("SELECT count(*) AS n FROM ledger_entries WHERE kind = 'charge'"))!;
    expect(charges.n).toBe(2);
    await service.worker.drain();
    expect((await get(`/verify/${ok.body['id']}`)).body['charge'].status).toBe('charged');
    const done = (await get(`/verify/${inconclusive.body['id']}`)).body;
    expect([done['status'], done['error'].code, done['charge'].status]).toEqual(['error', 'INCONCLUSIVE', 'reversed']);
    expect((await getWallet(service.deps, org)).balance).toBe(200);
    // A second run of the completion job (at-least-once queue) changes nothing: no second refund, no second event.
    const id = String(inconclusive.body['id']);
    await processVerification(service.rt.verification, id);
    expect((await getWallet(service.deps, org)).balance).toBe(200);
    expect(await ledgerSum(service.deps, org)).toBe(200);
    const reversals = (await service.deps.sql.get<{ n: number }>("SELECT count(*) AS n FROM ledger_entries WHERE kind = 'reversal' AND verification_id = ?", [id]))!;
    expect(reversals.n).toBe(1);
    const events = (await service.deps.sql.get<{ n: number }>('SELECT count(*) AS n FROM outbox_events WHERE verification_id = ?', [id]))!;
    expect(events.n).toBe(1);
  });

  it('the currency of an empty wallet does not change while a live check charged in the old one may still be refunded', async () => {
    // Found by the money review: the refund of a 1.00 USD charge landed as 100 JPY in a wallet switched to JPY meanwhile.
    await fund('account:NG', 100, 100);
    let answer: (a: unknown) => void = () => {};
    const original = service.rt.verification.providers;
    service.rt.verification.providers = { ask: () => new Promise((resolve) => (answer = resolve)) } as never;
    const r = await post('/verify/account', { ...NG_OK, accountNumber: '0999999995', mode: 'async' });
    expect(r.status).toBe(202);
    let asked = false;
    for (let i = 0; i < 300 && !asked; i++) {
      await new Promise((res) => setTimeout(res, 10));
      asked = answer.length === 1;
    }
    expect(asked).toBe(true);
    expect((await getWallet(service.deps, org)).balance).toBe(0);
    await expect(topUp(service.deps, org, 1000, 'JPY')).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'currency', message: expect.stringContaining('a live check charged in USD is still in progress') }],
    });
    service.rt.verification.providers = original;
    answer({ outcome: 'error', errorCode: 'INCONCLUSIVE' });
    await service.worker.drain();
    const done = (await get(`/verify/${r.body['id']}`)).body;
    expect([done['status'], done['charge'].status]).toEqual(['error', 'reversed']);
    const w = await getWallet(service.deps, org);
    expect([w.balance, w.currency]).toEqual([100, 'USD']);
    expect(await ledgerSum(service.deps, org)).toBe(100);
  });

  it('address: always 202 pending, charged, final result after processing', async () => {
    await fund('address', 70, 70);
    const r = await post('/verify/address', { country: 'GB', addressLine1: '10 Downing Street', city: 'London', postalCode: 'SW1A 2AA' });
    expect([r.status, r.body['status'], r.body['verificationType']]).toEqual([202, 'pending', 'ADDRESS']);
    await service.worker.drain();
    const done = (await get(`/verify/${r.body['id']}`)).body;
    expect([done['status'], done['charge'].status]).toEqual(['success', 'charged']);
  });

  it('a charged sync verification left pending by a crash is reversed by the guard job', async () => {
    await fund('account:NG', 100, 100);
    // Simulate the crash: the charge transaction of the engine committed, the answer was never stored (the
    // provider hangs until after the guard ran, then answers late).
    let answerLate: (a: unknown) => void = () => {};
    const hangs = { ask: () => new Promise((resolve) => { answerLate = resolve; }) };
    const original = service.rt.verification.providers;
    service.rt.verification.providers = hangs as never;
    const late = post('/verify/account', NG_OK);
    let row: { id: string } | undefined;
    for (let i = 0; i < 200 && !row; i++) {
      await new Promise((r) => setTimeout(r, 10));
      row = await service.deps.sql.get<{ id: string }>("SELECT id FROM verifications WHERE status = 'pending'");
    }
    expect(row).toBeDefined();
    service.rt.verification.providers = original;
    expect((await getWallet(service.deps, org)).balance).toBe(0);
    clock.advance(SYNC_GUARD_MS + 1);
    service.worker.wake();
    await service.worker.drain();
    const rec = (await get(`/verify/${row!.id}`)).body;
    expect([rec['status'], rec['error'].code, rec['charge'].status]).toEqual(['error', 'VERIFICATION_ERROR', 'reversed']);
    expect((await getWallet(service.deps, org)).balance).toBe(100);
    expect(await ledgerSum(service.deps, org)).toBe(100);
    // The late answer changes nothing: the record stays settled and the charge is not taken or refunded again.
    answerLate({ outcome: 'error', errorCode: 'VERIFICATION_TIMEOUT' });
    expect((await late).status).toBe(200);
    expect((await get(`/verify/${row!.id}`)).body['error'].code).toBe('VERIFICATION_ERROR');
    expect((await getWallet(service.deps, org)).balance).toBe(100);
    const reversals = (await service.deps.sql.get<{ n: number }>("SELECT count(*) AS n FROM ledger_entries WHERE kind = 'reversal'"))!;
    expect(reversals.n).toBe(1);
  });
});

describe('face payloads', () => {
  it('413 above 2 MB decoded, 422 when not an image', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024 + 10, 0xff);
    big[0] = 0xff; big[1] = 0xd8; big[2] = 0xff;
    let r = await post('/verify/face', { country: 'GH', idNumber: 'GHA-123456789-0', selfieImage: big.toString('base64') }, sandbox);
    expect([r.status, r.body['code']]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    r = await post('/verify/face', { country: 'GH', idNumber: 'GHA-123456789-0', selfieImage: Buffer.from('hello world, not an image').toString('base64') }, sandbox);
    expect([r.status, r.body['code'], r.body['details']?.[0]?.field]).toEqual([422, 'VALIDATION_ERROR', 'selfieImage']);
    r = await post('/verify/face', { country: 'NG', idNumber: 'GHA-123456789-0', selfieImage: 'iVBORw0KGgo=' }, sandbox);
    expect([r.status, r.body['code']]).toEqual([422, 'UNSUPPORTED_CORRIDOR']);
    // The stored request keeps no image.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]).toString('base64');
    r = await post('/verify/face', { country: 'GH', idNumber: 'GHA-123456789-0', selfieImage: jpeg }, sandbox);
    expect(r.body['status']).toBe('success');
    const stored = (await service.deps.sql.get<{ request: string }>('SELECT request FROM verifications WHERE id = ?', [r.body['id']]))!;
    expect(stored.request).not.toContain(jpeg);
  });
});
