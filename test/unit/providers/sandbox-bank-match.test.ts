// Issue 18 item 3: a sandbox account fixture matches on every identifying field. A listed account number sent with
// another bank code is "not found" at that bank (documented, with its own fixtures), never the fixture's holder.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FACE_MATCH_MESSAGES } from '../../../src-shared/errors';
import { accountSpec } from '../../../src-main/core/verification/account-spec';
import { faceSpec } from '../../../src-main/core/verification/face-spec';
import { loadFixtures, OTHER_NETWORK_MESSAGE, WRONG_BANK_MESSAGE } from '../../../src-main/providers/sandbox/fixtures';
import { answerAccount, answerByKey } from '../../../src-main/providers/sandbox/sandbox-provider';

const fixtures = loadFixtures(join(import.meta.dirname, '..', '..', '..', 'resources'));
const answering = fixtures.filter((f) => !/format failure/i.test(f.description));

describe('sandbox accounts match on the bank code too', () => {
  const cases = [
    { country: 'NG', accountNumber: '0123456789', right: '058', others: ['044', '011', '000013'] },
    { country: 'US', accountNumber: '000123456789', right: '021000021', others: ['026009593', '011000015'], accountName: 'Jane Doe' },
    { country: 'IN', accountNumber: '123456789012', right: 'SBIN0000691', others: ['HDFC0000001', 'ICIC0000001'], accountName: 'Priya Sharma' },
    { country: 'AU', accountNumber: '12345678', right: '062000', others: ['033000', '082001'], accountName: 'Jane Doe' },
    { country: 'GB', accountNumber: '31926819', right: '601613', others: ['200000', '404784'], accountName: 'Jane Doe' },
  ];
  for (const c of cases) {
    it(`${c.country}: the right bank answers the holder; any other bank answers ACCOUNT_NOT_FOUND`, () => {
      const base = { country: c.country, accountNumber: c.accountNumber, ...(c.accountName ? { accountName: c.accountName } : {}) };
      expect(answerAccount(answering, { ...base, bankCode: c.right }).outcome).toBe('success');
      for (const other of c.others) {
        expect(answerAccount(answering, { ...base, bankCode: other }), `${c.country} ${other}`).toEqual({
          outcome: 'failed',
          errorCode: 'ACCOUNT_NOT_FOUND',
          message: WRONG_BANK_MESSAGE,
        });
      }
      // The catalogue documents the case with a fixture of its own.
      expect(fixtures.some((f) => f.country === c.country && /wrong bank/.test(f.description) && f.expected.errorCode === 'ACCOUNT_NOT_FOUND')).toBe(true);
    });
  }

  it('spacing and dashes in a bank code do not make it another bank', () => {
    expect(answerAccount(answering, { country: 'GB', accountNumber: '31926819', bankCode: '60-16-13', accountName: 'Jane Doe' }).outcome).toBe('success');
  });
});

// Found by the API review of 27 Nov 2026: a phone fixture ignored the network code (a wrong network passed as the
// subscriber), TH and PH echoed a name they never compared, and a malformed Ghana Card in a facial check failed with
// VERIFICATION_FAILED instead of the single facial code.
describe('sandbox phones match on the network code too', () => {
  const gh = { country: 'GH', phoneNumber: '023 123 4567' };
  it('the subscriber\'s network answers the holder; any other network answers "registered with another network"', () => {
    expect(answerByKey(answering, 'phone', { ...gh, networkCode: 'MTN' })).toMatchObject({ outcome: 'success', fields: { fullName: 'KWAME MENSAH' } });
    expect(answerByKey(answering, 'phone', { ...gh, networkCode: 'mtn' }).outcome).toBe('success');
    for (const networkCode of ['Vodafone', 'AirtelTigo']) {
      expect(answerByKey(answering, 'phone', { ...gh, networkCode }), networkCode).toEqual({ outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: OTHER_NETWORK_MESSAGE });
    }
    expect(answerByKey(answering, 'phone', { country: 'CI', phoneNumber: '01 23 45 6789', networkCode: 'MTN' })).toEqual({ outcome: 'failed', errorCode: 'VERIFICATION_FAILED', message: OTHER_NETWORK_MESSAGE });
    expect(answerByKey(answering, 'phone', { country: 'CI', phoneNumber: '01 23 45 6789', networkCode: 'ORANGE' }).outcome).toBe('success');
    // A number no carrier has is not found whatever network is named; markets that need no network ignore one.
    expect(answerByKey(answering, 'phone', { country: 'GH', phoneNumber: '0231239999', networkCode: 'Vodafone' })).toMatchObject({ outcome: 'failed', errorCode: 'SUBSCRIBER_NOT_FOUND' });
    expect(answerByKey(answering, 'phone', { country: 'KE', phoneNumber: '+254712123456', networkCode: 'SAFARICOM' }).outcome).toBe('success');
    expect(fixtures.filter((f) => /wrong network/.test(f.description) && f.expected.errorCode === 'VERIFICATION_FAILED').map((f) => f.country).sort()).toEqual(['CI', 'GH']);
  });
});

describe('what an account check confirms', () => {
  const answer = { outcome: 'success' as const, fields: { accountName: 'Jane Doe', bankName: 'Bangkok Bank' } };
  it('a name match echoes the name given; an existence (TH) or format (PH) check echoes none', () => {
    expect(accountSpec.answerFields({ country: 'GB', accountNumber: '31926819', bankCode: '601613', accountName: 'Jane Doe' }, answer)).toEqual({ accountName: 'Jane Doe', bankName: 'Bangkok Bank' });
    for (const country of ['TH', 'PH']) {
      expect(accountSpec.answerFields({ country, accountNumber: '1234567890', bankCode: 'BKKBTHBK', accountName: 'Someone Else' }, answer), country).toEqual({ bankName: 'Bangkok Bank' });
    }
  });
});

describe('a facial check with a malformed Ghana Card number', () => {
  it('fails with FACE_MATCH_FAILED and one of the six messages', () => {
    const f = faceSpec.formatFailure({ country: 'GH', idNumber: 'GHA-12345-0', selfieImage: '' });
    expect(f).toEqual({ code: 'FACE_MATCH_FAILED', message: 'Facial verification failed (check could not complete).' });
    expect(FACE_MATCH_MESSAGES).toContain(f!.message);
    expect(faceSpec.formatFailure({ country: 'GH', idNumber: 'GHA-123456789-0', selfieImage: '' })).toBeNull();
  });
});
