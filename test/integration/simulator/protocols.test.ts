// The simulator's three upstream APIs answer per the documented directory and rules (docs/simulator.md), over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../../src-main/simulator';
import { cop, generic, post, vop } from './sim-client';

const CHECKS = '/v1/checks/';
const VOP = '/payee-verifications';
const COP = '/open-banking/v3.1/pisp/account-name-check';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ seed: { accounts: { '5550001111': { name: 'Seeded By Test Ltd', type: 'Business', bankName: 'Test Bank' } } } });
});
afterAll(async () => {
  await sim.stop();
});

describe('generic API', () => {
  it('matches a seeded account by name, ignoring case and spaces, and returns its holder and bank', async () => {
    const r = await post(sim, `${CHECKS}account`, generic('account', { accountNumber: '0123456789', bankCode: '058', accountName: '  ADAEZE   nwosu ' }, 'vrf_1'));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ reference: 'vrf_1', result: 'MATCH', data: { accountName: 'Adaeze Nwosu', bankName: 'Guaranty Trust Bank' } });
  });

  it('answers a close name with NO_MATCH + CLOSE_MATCH and the held name, a different one without it', async () => {
    const close = await post(sim, `${CHECKS}account`, generic('account', { accountNumber: '0123456789', accountName: 'Adaze Nwosu' }));
    expect(close.json).toMatchObject({ result: 'NO_MATCH', reason: 'CLOSE_MATCH', data: { accountName: 'Adaeze Nwosu' } });
    const other = await post(sim, `${CHECKS}account`, generic('account', { accountNumber: '0123456789', accountName: 'John Smith' }));
    expect(other.json).toMatchObject({ result: 'NO_MATCH', reason: 'NAME_MISMATCH' });
    expect((other.json as { data?: { accountName?: string } }).data?.accountName).toBeUndefined();
  });

  it('applies the 0000 / 9999 endings and refuses badly formed numbers', async () => {
    expect((await post(sim, `${CHECKS}account`, generic('account', { accountNumber: '1111110000' }))).json).toMatchObject({ result: 'NOT_FOUND' });
    expect((await post(sim, `${CHECKS}account`, generic('account', { accountNumber: '1111119999' }))).json).toMatchObject({ result: 'INCONCLUSIVE' });
    expect((await post(sim, `${CHECKS}account`, generic('account', { accountNumber: '12$' }))).json).toMatchObject({ result: 'INVALID' });
    expect((await post(sim, `${CHECKS}account`, generic('account', {}))).json).toMatchObject({ result: 'INVALID' });
  });

  it('derives a stable holder for unknown accounts, and honours the seed option', async () => {
    const a = await post(sim, `${CHECKS}account`, generic('account', { accountNumber: '3141592653' }));
    const b = await post(sim, `${CHECKS}account`, generic('account', { accountNumber: '3141592653' }));
    expect(a.json).toMatchObject({ result: 'MATCH' });
    expect(a.json).toEqual(b.json);
    const seeded = await post(sim, `${CHECKS}account`, generic('account', { accountNumber: '5550001111' }));
    expect(seeded.json).toMatchObject({ result: 'MATCH', data: { accountName: 'Seeded By Test Ltd', bankName: 'Test Bank' } });
  });

  it('looks GB accounts up by sort code + account number and SEPA ones by IBAN', async () => {
    const gb = await post(sim, `${CHECKS}account`, generic('account', { sortCode: '200000', accountNumber: '55779911' }));
    expect(gb.json).toMatchObject({ result: 'MATCH', data: { accountName: 'Jane Smith' } });
    const de = await post(sim, `${CHECKS}account`, generic('account', { iban: 'DE89 3704 0044 0532 0130 00', accountName: 'max mustermann' }));
    expect(de.json).toMatchObject({ result: 'MATCH', data: { accountName: 'Max Mustermann' } });
  });

  it('answers phone checks', async () => {
    expect((await post(sim, `${CHECKS}phone`, generic('phone', { phoneNumber: '+254712345678' }))).json).toMatchObject({
      result: 'MATCH',
      data: { fullName: 'Wanjiru Kamau', firstName: 'Wanjiru', lastName: 'Kamau' },
    });
    expect((await post(sim, `${CHECKS}phone`, generic('phone', { phoneNumber: '+254700000000' }))).json).toMatchObject({ result: 'NOT_FOUND' });
    expect((await post(sim, `${CHECKS}phone`, generic('phone', { phoneNumber: '+254799999999' }))).json).toMatchObject({ result: 'INCONCLUSIVE' });
    expect((await post(sim, `${CHECKS}phone`, generic('phone', { phoneNumber: 'call me' }))).json).toMatchObject({ result: 'INVALID' });
  });

  it('answers identity checks, comparing the names and date of birth given', async () => {
    const ok = await post(sim, `${CHECKS}identity`, generic('identity', { idType: 'national_id', idNumber: '12345678', firstName: 'john', lastName: 'Doe', dateOfBirth: '1990-01-15' }));
    expect(ok.json).toMatchObject({ result: 'MATCH', data: { fullName: 'John Kamau Doe', middleName: 'Kamau', dateOfBirth: '1990-01-15' } });
    const wrongDob = await post(sim, `${CHECKS}identity`, generic('identity', { idType: 'national_id', idNumber: '12345678', dateOfBirth: '1991-01-15' }));
    expect(wrongDob.json).toMatchObject({ result: 'NO_MATCH', reason: 'mismatch: dateOfBirth' });
    const wrongName = await post(sim, `${CHECKS}identity`, generic('identity', { idType: 'national_id', idNumber: '12345678', lastName: 'Ochieng' }));
    expect(wrongName.json).toMatchObject({ result: 'NO_MATCH', reason: 'mismatch: lastName' });
    expect((await post(sim, `${CHECKS}identity`, generic('identity', { idType: 'passport', idNumber: 'A120000' }))).json).toMatchObject({ result: 'NOT_FOUND' });
    const derived = (await post(sim, `${CHECKS}identity`, generic('identity', { idType: 'passport', idNumber: 'A7654321' }))).json as {
      data: { dateOfBirth: string };
    };
    expect(derived.data.dateOfBirth).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('answers face checks by the image digest', async () => {
    const good = 'ab'.repeat(32);
    const bad = 'ff'.repeat(32);
    expect((await post(sim, `${CHECKS}face`, generic('face', { idNumber: 'GHA-123456789-0', imageSha256: good }))).json).toMatchObject({
      result: 'MATCH',
      data: { fullName: 'Ama Owusu' },
    });
    expect((await post(sim, `${CHECKS}face`, generic('face', { idNumber: 'GHA-123456789-0', imageSha256: bad }))).json).toMatchObject({ result: 'NO_MATCH' });
    expect((await post(sim, `${CHECKS}face`, generic('face', { idNumber: 'GHA-123456789-0', imageSha256: 'xyz' }))).json).toMatchObject({ result: 'INVALID' });
  });

  it('answers address checks', async () => {
    const ok = await post(sim, `${CHECKS}address`, generic('address', { addressLine1: '4 Riverside Road', city: 'Nairobi', postalCode: '00100' }));
    expect(ok.json).toMatchObject({ result: 'MATCH', data: { address: { addressLine1: '4 Riverside Road', city: 'Nairobi', postalCode: '00100' } } });
    expect((await post(sim, `${CHECKS}address`, generic('address', { addressLine1: '13 Elm Street', city: 'Accra' }))).json).toMatchObject({ result: 'NO_MATCH' });
    expect((await post(sim, `${CHECKS}address`, generic('address', { addressLine1: '1 Elm Street', city: 'Accra', postalCode: 'GA-0000' }))).json).toMatchObject({
      result: 'NOT_FOUND',
    });
    expect((await post(sim, `${CHECKS}address`, generic('address', { city: 'Accra' }))).json).toMatchObject({ result: 'INVALID' });
  });

  it('refuses requests without a bearer token, bad JSON, a wrong shape or an unknown kind', async () => {
    const noAuth = await fetch(`${sim.url}${CHECKS}account`, { method: 'POST', body: JSON.stringify(generic('account', { accountNumber: '1' })) });
    expect(noAuth.status).toBe(401);
    expect((await post(sim, `${CHECKS}account`, '{not json')).status).toBe(400);
    expect((await post(sim, `${CHECKS}account`, { kind: 'account', query: {} })).status).toBe(400); // no reference
    expect((await post(sim, `${CHECKS}account`, generic('phone', { phoneNumber: '+254712345678' }))).status).toBe(400); // kind differs from path
    expect((await post(sim, `${CHECKS}vehicle`, generic('vehicle', {}))).status).toBe(404);
    expect((await post(sim, '/nowhere', {})).status).toBe(404);
  });

  it('requires exactly the configured api key when one is given', async () => {
    const strict = await startSimulator({ apiKey: 'sk_sim_right' });
    try {
      const body = generic('account', { accountNumber: '0123456789' });
      expect((await post(strict, `${CHECKS}account`, body, { authorization: 'Bearer sk_sim_wrong' })).status).toBe(401);
      expect((await post(strict, `${CHECKS}account`, body, { authorization: 'Bearer sk_sim_right' })).status).toBe(200);
      // Authentication comes before the 404 of a path without a check (a provider's health probe is GET /).
      expect((await fetch(`${strict.url}/`, { headers: { authorization: 'Bearer sk_sim_wrong' } })).status).toBe(401);
      expect((await fetch(`${strict.url}/`)).status).toBe(401);
      expect((await fetch(`${strict.url}/`, { headers: { authorization: 'Bearer sk_sim_right' } })).status).toBe(404);
      expect((await fetch(`${strict.url}/`, { headers: { 'x-api-key': 'sk_sim_right' } })).status).toBe(404);
      // The api-key scheme's header (X-API-Key, docs/providers.md), in place of Authorization.
      expect((await post(strict, `${CHECKS}account`, body, { authorization: '', 'x-api-key': 'sk_sim_right' })).status).toBe(200);
      expect((await post(strict, `${CHECKS}account`, body, { authorization: '', 'x-api-key': 'sk_sim_wrong' })).status).toBe(401);
      expect((await post(strict, COP, cop('20000055779911', 'Jane Smith'), { authorization: '', 'x-api-key': 'sk_sim_right' })).status).toBe(200);
    } finally {
      await strict.stop();
    }
  });
});

describe('EPC Verification of Payee', () => {
  it('answers MTCH, CMTC with the matched name, NMTC and NOAP, and echoes X-Request-ID', async () => {
    const id = '6b0e3f9c-1d2a-4c5b-9e8f-7a6b5c4d3e2f';
    const m = await post(sim, VOP, vop('DE89370400440532013000', 'Max Mustermann', id), { 'x-request-id': id });
    expect(m.json).toEqual({ requestId: id, verificationResult: 'MTCH', partyNameMatch: 'MTCH' });
    expect(m.headers.get('x-request-id')).toBe(id);
    expect((await post(sim, VOP, vop('DE89370400440532013000', 'Max Musterman'))).json).toMatchObject({ verificationResult: 'CMTC', matchedName: 'Max Mustermann' });
    const n = (await post(sim, VOP, vop('DE89370400440532013000', 'Erika Musterfrau'))).json as Record<string, unknown>;
    expect(n).toMatchObject({ verificationResult: 'NMTC' });
    expect(n['matchedName']).toBeUndefined();
    expect((await post(sim, VOP, vop('DE89370400440532010000', 'Max Mustermann'))).json).toMatchObject({ verificationResult: 'NOAP' });
    expect((await post(sim, VOP, vop('not an iban', 'Max Mustermann'))).json).toMatchObject({ verificationResult: 'NOAP' });
  });

  it('also accepts the EPC inter-PSP request shape (party.name)', async () => {
    const r = await post(sim, VOP, { party: { name: 'marie dupont' }, partyAccount: { iban: 'FR1420041010050500013M02606' } });
    expect(r.json).toMatchObject({ partyNameMatch: 'MTCH' });
  });

  it('refuses a request without a name or IBAN with FORMAT_ERROR', async () => {
    const r = await post(sim, VOP, { partyAccount: { iban: 'DE89370400440532013000' } });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'FORMAT_ERROR' });
  });
});

describe('Pay.UK Confirmation of Payee', () => {
  const report = async (body: unknown) => ((await post(sim, COP, body)).json as { Data: { VerificationReport: Record<string, unknown> } }).Data.VerificationReport;

  it('matches, close-matches (MBAM with Name) and refuses (ANNM)', async () => {
    expect(await report(cop('20000055779911', 'jane smith'))).toEqual({ Matched: true });
    expect(await report(cop('20000055779911', 'Jane Smyth'))).toEqual({ Matched: false, ReasonCode: 'MBAM', Name: 'Jane Smith' });
    expect(await report(cop('20000055779911', 'Robert Brown'))).toEqual({ Matched: false, ReasonCode: 'ANNM' });
  });

  it('answers the account-type reason codes', async () => {
    expect(await report(cop('40053012345678', 'Acme Widgets Ltd', 'Personal'))).toEqual({ Matched: false, ReasonCode: 'BANM' });
    expect(await report(cop('40053012345678', 'Acme Widget Ltd', 'Personal'))).toEqual({ Matched: false, ReasonCode: 'BAMM', Name: 'Acme Widgets Ltd' });
    expect(await report(cop('20000055779911', 'Jane Smith', 'Business'))).toEqual({ Matched: false, ReasonCode: 'PANM' });
    expect(await report(cop('20000055779911', 'Jane Smit', 'Business'))).toEqual({ Matched: false, ReasonCode: 'PAMM', Name: 'Jane Smith' });
    expect(await report(cop('40053012345678', 'Acme Widgets Ltd', 'Business'))).toEqual({ Matched: true });
  });

  it('answers the account-level reason codes', async () => {
    expect(await report(cop('20000012340000', 'Jane Smith'))).toMatchObject({ ReasonCode: 'AC01' });
    expect(await report(cop('20000012349999', 'Jane Smith'))).toMatchObject({ ReasonCode: 'ACNS' });
    expect(await report(cop('20000012348888', 'Jane Smith'))).toMatchObject({ ReasonCode: 'OPTO' });
    expect(await report(cop('20000012347777', 'Jane Smith'))).toMatchObject({ ReasonCode: 'CASS' });
    expect(await report(cop('99000012345678', 'Jane Smith'))).toMatchObject({ ReasonCode: 'SCNS' });
    expect(await report(cop('20000055779911', 'Jane Smith', 'Personal', { SecondaryIdentification: 'ROLL#NUMBER!' }))).toMatchObject({ ReasonCode: 'IVCR' });
    expect(await report(cop('2000005577', 'Jane Smith'))).toMatchObject({ ReasonCode: 'AC01' });
  });

  it('refuses a wrong SchemeName with an Open Banking error body', async () => {
    const r = await post(sim, COP, { Data: { SchemeName: 'IBAN', AccountType: 'Personal', Identification: 'x', Name: 'y' } });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ Code: '400 BadRequest', Errors: [{ ErrorCode: 'UK.OBIE.Field.Invalid' }] });
  });
});
