// Pure parts of live mode: scheme answer mappings (EPC VoP result codes, Pay.UK CoP reason codes, the generic
// table), the cache key and what may be cached, and the Node SecretBox (AES-256-GCM, authenticated).
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheKey, isCacheable, normaliseQuery } from '../../../src-main/core/providers/cache';
import { createNodeSecretBox, maskSecret } from '../../../src-main/core/providers/secret-box';
import { epcVopAdapter, requestIdFor, VOP_ANSWERS } from '../../../src-main/providers/live/epc-vop-adapter';
import { genericAdapter } from '../../../src-main/providers/live/generic-adapter';
import { COP_REASONS, ukCopAdapter } from '../../../src-main/providers/live/uk-cop-adapter';
import { MAPPING_KEYS } from '../../../src-shared/schemas/providers';

describe('EPC VoP mapping', () => {
  // The EPC inter-PSP API answers `partyNameMatch` (docs/providers.md cites the specification).
  const read = (code: string, extra: Record<string, unknown> = {}) => epcVopAdapter.read('account', {}, { partyNameMatch: code, ...extra }, null);
  it('MTCH/CMTC/NMTC/NOAP → success / failed / failed / INCONCLUSIVE; a close match never carries the name', () => {
    expect(read('MTCH')).toEqual({ outcome: 'success' });
    const cmtc = read('CMTC', { matchedName: 'Max Mustermann' });
    expect(cmtc).toMatchObject({ outcome: 'failed', errorCode: 'VERIFICATION_FAILED' });
    expect(cmtc?.fields).toBeUndefined();
    expect(read('NMTC')).toMatchObject({ outcome: 'failed', errorCode: 'VERIFICATION_FAILED' });
    expect(read('NOAP')).toEqual({ outcome: 'error', errorCode: 'INCONCLUSIVE' });
  });
  it('still reads the earlier protocol\'s `verificationResult`, but `partyNameMatch` wins when both are present', () => {
    expect(epcVopAdapter.read('account', {}, { verificationResult: 'NOAP' }, null)).toEqual({ outcome: 'error', errorCode: 'INCONCLUSIVE' });
    expect(epcVopAdapter.read('account', {}, { partyNameMatch: 'MTCH', verificationResult: 'NMTC' }, null)).toEqual({ outcome: 'success' });
  });
  it('an unknown code or shape is malformed (null)', () => {
    expect(read('XXXX')).toBeNull();
    expect(epcVopAdapter.read('account', {}, [1], null)).toBeNull();
  });
  it('builds the request with a stable UUID request id from the verification id', () => {
    const x = epcVopAdapter.build('account', { country: 'DE', accountNumber: 'de89 3704 0044 0532 0130 00', accountName: 'Max' }, 'ver_1', Date.UTC(2025, 9, 9, 8, 30, 1, 250));
    // Only the EPC request shape (party.name, partyAccount.iban); no BIC given, so no partyAgent.
    expect(x.body).toEqual({ party: { name: 'Max' }, partyAccount: { iban: 'DE89370400440532013000' } });
    expect(x.path).toBe('/payee-verifications');
    expect(x.headers['x-request-timestamp']).toBe('2025-10-09T08:30:01.250Z');
    const withBic = epcVopAdapter.build('account', { country: 'DE', accountNumber: 'DE89370400440532013000', accountName: 'Max', bankCode: 'cobadeffxxx' }, 'ver_1');
    expect(withBic.body).toMatchObject({ partyAgent: { financialInstitutionId: { bicfi: 'COBADEFFXXX' } } });
    expect(x.headers['x-request-id']).toBe(requestIdFor('ver_1'));
    expect(requestIdFor('ver_1')).toBe(requestIdFor('ver_1'));
    expect(requestIdFor('ver_1')).not.toBe(requestIdFor('ver_2'));
    expect(requestIdFor('ver_1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('generic face answers (interface §7.3 rule 4)', () => {
  const read = (json: Record<string, unknown>, mapping: Parameters<typeof genericAdapter.read>[3] = null) => genericAdapter.read('face', {}, json, mapping);
  it('every failure is FACE_MATCH_FAILED with one of the six messages, the upstream reason read where it says which', () => {
    expect(read({ result: 'NO_MATCH', reason: 'face does not match the registry photo' })).toEqual({ outcome: 'failed', errorCode: 'FACE_MATCH_FAILED', message: 'Facial verification did not match.' });
    expect(read({ result: 'NO_MATCH', reason: 'LIVENESS_FAILED' })).toMatchObject({ errorCode: 'FACE_MATCH_FAILED', message: 'Liveness check failed.' });
    expect(read({ result: 'NO_MATCH', reason: 'multiple faces in the image' })).toMatchObject({ message: 'Multiple faces detected.' });
    expect(read({ result: 'INVALID', reason: 'no face detected' })).toMatchObject({ errorCode: 'FACE_MATCH_FAILED', message: 'No face detected.' });
    expect(read({ result: 'INVALID', reason: 'image quality too low' })).toMatchObject({ message: 'Photo quality too low.' });
    expect(read({ result: 'NOT_FOUND' })).toEqual({ outcome: 'failed', errorCode: 'FACE_MATCH_FAILED', message: 'Facial verification failed (check could not complete).' });
    // A mapping row's failure too: its code and a message outside the six are replaced.
    expect(read({ result: 'NO_MATCH' }, { NO_MATCH: { outcome: 'failed', code: 'VERIFICATION_FAILED', message: 'Nope.' } })).toMatchObject({ errorCode: 'FACE_MATCH_FAILED', message: 'Facial verification did not match.' });
    expect(read({ result: 'MATCH' })).toMatchObject({ outcome: 'success' });
    expect(read({ result: 'INCONCLUSIVE' })).toEqual({ outcome: 'error', errorCode: 'INCONCLUSIVE' });
  });
});

describe('identifiers as the upstream expects them (separators the format checks accept removed)', () => {
  it('generic: the derived iban and sortCode', () => {
    const gb = genericAdapter.build('account', { country: 'GB', accountNumber: '5577-9911', bankCode: '20-00-00' }, 'ver_1').body as { query: Record<string, unknown> };
    expect(gb.query['sortCode']).toBe('200000');
    const de = genericAdapter.build('account', { country: 'DE', accountNumber: 'de89-3704 0044-0532-0130-00' }, 'ver_1').body as { query: Record<string, unknown> };
    expect(de.query['iban']).toBe('DE89370400440532013000');
  });
  it('epc-vop and uk-cop', () => {
    expect(epcVopAdapter.build('account', { accountNumber: 'de89-3704-0044-0532-0130-00', accountName: 'Max' }, 'ver_1').body).toEqual({ party: { name: 'Max' }, partyAccount: { iban: 'DE89370400440532013000' } });
    const cop = ukCopAdapter.build('account', { bankCode: '20-00-00', accountNumber: '5577-9911', accountName: 'Jane' }, 'ver_1').body as { Data: { Identification: string } };
    expect(cop.Data.Identification).toBe('20000055779911');
  });
});

describe('mapping keys of the scheme adapters', () => {
  it('are exactly the values each adapter reads (the schema refuses any other key)', () => {
    expect([...MAPPING_KEYS['epc-vop']!].sort()).toEqual(Object.keys(VOP_ANSWERS).sort());
    expect([...MAPPING_KEYS['uk-cop']!].sort()).toEqual(['MATCHED', 'NOT_MATCHED', ...Object.keys(COP_REASONS)].sort());
    expect(MAPPING_KEYS.generic).toBeUndefined();
  });
});

describe('Pay.UK CoP mapping', () => {
  const read = (matched: boolean, reason?: string) =>
    ukCopAdapter.read('account', {}, { Data: { VerificationReport: { Matched: matched, ...(reason ? { ReasonCode: reason, Name: 'Jane Smith' } : {}) } } }, null);
  it.each([
    ['ANNM', 'failed', 'VERIFICATION_FAILED'],
    ['MBAM', 'failed', 'VERIFICATION_FAILED'],
    ['BANM', 'failed', 'VERIFICATION_FAILED'],
    ['PANM', 'failed', 'VERIFICATION_FAILED'],
    ['BAMM', 'failed', 'VERIFICATION_FAILED'],
    ['PAMM', 'failed', 'VERIFICATION_FAILED'],
    ['AC01', 'failed', 'ACCOUNT_NOT_FOUND'],
    ['IVCR', 'failed', 'VERIFICATION_FAILED'],
    ['CASS', 'failed', 'ACCOUNT_INACTIVE'],
    ['ACNS', 'error', 'INCONCLUSIVE'],
    ['OPTO', 'error', 'INCONCLUSIVE'],
    ['SCNS', 'error', 'INCONCLUSIVE'],
  ])('%s → %s %s, no name passed on', (reason, outcome, code) => {
    const a = read(false, reason);
    expect(a).toMatchObject({ outcome, errorCode: code });
    expect(a?.fields).toBeUndefined();
  });
  it('Matched → success; a report without Matched is malformed', () => {
    expect(read(true)).toEqual({ outcome: 'success' });
    expect(ukCopAdapter.read('account', {}, { Data: { VerificationReport: {} } }, null)).toBeNull();
  });
  it('sends sort code + account number and the account type', () => {
    const x = ukCopAdapter.build('account', { country: 'GB', bankCode: '20-00-00', accountNumber: '55779911', accountName: 'Acme', accountHolderType: 'BUSINESS' }, 'ver_9');
    expect(x.body).toEqual({ Data: { SchemeName: 'SortCodeAccountNumber', AccountType: 'Business', Identification: '20000055779911', Name: 'Acme' } });
    expect(x.idempotencyKey).toBe('ver_9');
  });
});

describe('generic mapping', () => {
  it('maps each result per kind, and a configured row overrides the default', () => {
    const r = (kind: 'account' | 'phone' | 'identity', result: string, mapping = null as never) => genericAdapter.read(kind, { accountName: 'X' }, { result, data: { accountName: 'A', bankName: 'B' } }, mapping);
    expect(r('account', 'MATCH')).toEqual({ outcome: 'success', fields: { accountName: 'A', bankName: 'B' } });
    expect(r('account', 'NO_MATCH')).toMatchObject({ outcome: 'failed', errorCode: 'VERIFICATION_FAILED', fields: { bankName: 'B' } });
    expect(r('account', 'NOT_FOUND')).toMatchObject({ errorCode: 'ACCOUNT_NOT_FOUND' });
    expect(r('phone', 'NOT_FOUND')).toMatchObject({ errorCode: 'SUBSCRIBER_NOT_FOUND' });
    expect(r('identity', 'NOT_FOUND')).toMatchObject({ errorCode: 'IDENTIFIER_NOT_FOUND' });
    expect(r('account', 'INVALID')).toMatchObject({ outcome: 'failed', errorCode: 'INVALID_ACCOUNT_NUMBER' });
    expect(r('account', 'INCONCLUSIVE')).toEqual({ outcome: 'error', errorCode: 'INCONCLUSIVE' });
    expect(r('account', 'WHATEVER')).toBeNull();
    expect(r('account', 'WHATEVER', { WHATEVER: { outcome: 'error', code: 'INCONCLUSIVE' } } as never)).toEqual({ outcome: 'error', errorCode: 'INCONCLUSIVE' });
  });
  it('sends only the protocol fields of the kind, with our verification id as reference and Idempotency-Key', () => {
    const x = genericAdapter.build('identity', { country: 'KE', idType: 'national_id', idNumber: '1', validation: { firstName: 'J' }, mode: 'async' }, 'ver_3');
    expect(x).toMatchObject({ path: '/v1/checks/identity', headers: { 'idempotency-key': 'ver_3' } });
    expect(x.body).toEqual({ reference: 'ver_3', kind: 'identity', country: 'KE', query: { idType: 'national_id', idNumber: '1', firstName: 'J' } });
  });
});

describe('cache key and cacheability', () => {
  it('ignores case, spacing, key order and mode; separates organizations and kinds', () => {
    const a = cacheKey('org1', 'account', { country: 'NG', accountNumber: '0123456789', bankCode: '058' });
    expect(cacheKey('org1', 'account', { bankCode: '058 ', accountNumber: '0123456789', country: 'ng', mode: 'async' })).toBe(a);
    expect(cacheKey('org2', 'account', { country: 'NG', accountNumber: '0123456789', bankCode: '058' })).not.toBe(a);
    expect(cacheKey('org1', 'phone', { country: 'NG', accountNumber: '0123456789', bankCode: '058' })).not.toBe(a);
    // A phone number is one question however it is typed (its E.164 form, as sent upstream).
    const ke = cacheKey('org1', 'phone', { country: 'KE', phoneNumber: '+254712345678' });
    for (const phoneNumber of ['254712345678', '0712345678', '+254 712 345 678']) expect(cacheKey('org1', 'phone', { country: 'KE', phoneNumber })).toBe(ke);
    expect(cacheKey('org1', 'phone', { country: 'KE', phoneNumber: '0712345679' })).not.toBe(ke);
    // A selfie is its digest: two images whose base64 differs only in case are two questions (normalising the text
    // upper-cases it); the same image is one, however its base64 is wrapped.
    const face = (selfieImage: string) => cacheKey('org1', 'face', { country: 'GH', idNumber: 'GHA-123456789-0', selfieImage });
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    expect(face(png)).not.toBe(face(png.replace('mNkYPhfDwAChwGA60e6kg', 'MnKypHFdWacHWga60E6KG')));
    expect(face(png)).toBe(face(`${png.slice(0, 40)}\n${png.slice(40)}`));
    expect(normaliseQuery({ b: [' x  y '], a: null })).toEqual({ b: ['X Y'] });
  });
  it('only definitive answers are cacheable', () => {
    expect(isCacheable({ outcome: 'success' })).toBe(true);
    expect(isCacheable({ outcome: 'failed', errorCode: 'ACCOUNT_NOT_FOUND' })).toBe(true);
    expect(isCacheable({ outcome: 'failed' })).toBe(true);
    expect(isCacheable({ outcome: 'failed', errorCode: 'INCONCLUSIVE' })).toBe(false);
    expect(isCacheable({ outcome: 'failed', errorCode: 'VERIFICATION_TIMEOUT' })).toBe(false);
    expect(isCacheable({ outcome: 'error', errorCode: 'VERIFICATION_UNAVAILABLE' })).toBe(false);
  });
});

describe('Node SecretBox', () => {
  it('round-trips, never contains the plain value, uses a fresh IV, rejects tampering, keeps a 0600 key file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vc-box-'));
    try {
      const box = createNodeSecretBox(dir);
      const a = box.seal('s3cret-value');
      expect(a).not.toContain('s3cret');
      expect(box.seal('s3cret-value')).not.toBe(a);
      expect(box.open(a)).toBe('s3cret-value');
      // Another box on the same data dir (a restart) opens it with the same key file.
      expect(createNodeSecretBox(dir).open(a)).toBe('s3cret-value');
      expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
      const raw = Buffer.from(a.slice(5), 'base64');
      raw[raw.length - 1] = raw[raw.length - 1]! ^ 1;
      expect(() => box.open(`gcm1:${raw.toString('base64')}`)).toThrow();
      // A different key cannot open it.
      const other = mkdtempSync(join(tmpdir(), 'vc-box-'));
      writeFileSync(join(other, 'secret.key'), Buffer.alloc(32, 7), { mode: 0o600 });
      expect(() => createNodeSecretBox(other).open(a)).toThrow();
      rmSync(other, { recursive: true, force: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('masks as •••• + last four', () => {
    expect(maskSecret('abcd')).toBe('••••abcd');
    expect(maskSecret(null)).toBeNull();
  });
});
