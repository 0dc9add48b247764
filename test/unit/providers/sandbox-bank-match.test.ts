// Issue 18 item 3: a sandbox account fixture matches on every identifying field. A listed account number sent with
// another bank code is "not found" at that bank (documented, with its own fixtures), never the fixture's holder.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFixtures, WRONG_BANK_MESSAGE } from '../../../src-main/providers/sandbox/fixtures';
import { answerAccount } from '../../../src-main/providers/sandbox/sandbox-provider';

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
