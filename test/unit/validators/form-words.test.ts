// The words a format failure and a form use (issue 13 §5): a letter in a digits-only number says "digits only" and
// names it, a wrong count says how many there are, an empty required field is "<label> is required.".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountFormatFailure, accountRequestIssues, formIssueMessage } from '../../../src-shared/corridors';
import { digitRangeProblem, exactDigitsProblem, validateNuban } from '../../../src-shared/validators/index';

describe('digits-only words', () => {
  it('names the first character that is not a digit, whatever the length', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{0,12}$/), fc.constantFrom('a', 'O', '-', '/', 'é'), fc.stringMatching(/^\d{0,12}$/), (pre, bad, post) => {
        const value = `${pre}${bad}${post}`;
        const problem = exactDigitsProblem(value, 10, 'A NUBAN');
        expect(problem).toContain('digits only');
        expect(problem).toContain(`“${bad}”`);
      }),
    );
  });

  it('counts the digits when only the count is wrong, and passes exactly n digits', () => {
    expect(exactDigitsProblem('12345', 10, 'A NUBAN')).toBe('A NUBAN has exactly 10 digits; this one has 5.');
    expect(exactDigitsProblem(' 0123456789 ', 10, 'A NUBAN')).toBeNull();
    expect(digitRangeProblem('12a', 6, 20, 'The account number')).toBe('The account number takes digits only: “a” is not a digit.');
    expect(digitRangeProblem('123', 6, 20, 'The account number')).toBe('The account number has 6 to 20 digits; this one has 3.');
    expect(digitRangeProblem('1234567', 6, 20, 'The account number')).toBeNull();
  });

  it('is what the API and the console both say for letters in a NUBAN', () => {
    expect(validateNuban('01234S6789')).toEqual({ ok: false, reason: 'A Nigerian account number (NUBAN) takes digits only: “S” is not a digit.' });
    const failure = accountFormatFailure({ country: 'NG', accountNumber: '01234S6789', bankCode: '058' });
    expect(failure?.code).toBe('INVALID_ACCOUNT_NUMBER');
    expect(failure?.message).toContain('digits only');
  });
});

describe('formIssueMessage', () => {
  it('says "<label> is required." for an empty field, never the API’s JSON-named wording', () => {
    const [issue] = accountRequestIssues({ country: 'NG', accountNumber: '' });
    expect(issue?.message).toBe('accountNumber (Account number (NUBAN)) is required.');
    expect(formIssueMessage(issue!, 'Account number (NUBAN)', '  ')).toBe('Account number (NUBAN) is required.');
  });

  it('keeps the rule’s message when the field has a value', () => {
    const issue = { field: 'currency', message: 'Only NGN accounts can be verified in NG.' };
    expect(formIssueMessage(issue, 'Currency', 'USD')).toBe(issue.message);
  });
});
