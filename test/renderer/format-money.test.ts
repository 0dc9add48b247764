// The console shows amounts with ISO 4217's exponent, the API's: a rupiah balance of 100050 minor units is 1,000.50,
// not 1,001 (Intl alone shows IDR without decimals) nor 100,050 (its digits used to scale the amount).
import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../src-renderer/app/format';

describe('formatMoney', () => {
  it('scales by ISO 4217 minor units and shows each of their digits', () => {
    expect(formatMoney(100050, 'IDR')).toMatch(/1,000\.50/);
    expect(formatMoney(1500, 'IQD')).toMatch(/1\.500/);
    expect(formatMoney(1999, 'USD')).toMatch(/19\.99/);
    expect(formatMoney(500, 'JPY')).toMatch(/500/);
    expect(formatMoney(500, 'JPY')).not.toMatch(/\./);
  });
});
