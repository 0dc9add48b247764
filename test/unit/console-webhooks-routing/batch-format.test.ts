// Helpers of the batch-CSV screens: column-mapping options and checks, progress figures and the reason bars.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  columnOptions,
  formatEta,
  formatRate,
  fromSelectValue,
  mappingProblem,
  reasonBars,
  toSelectValue,
  UNMAPPED,
  type Mapping,
} from '../../../src-renderer/features/routing/batch-format';

const EMPTY: Mapping = { type: null, bic: null, routing: null, fromBic: null, toBic: null, currency: null };

describe('column mapping', () => {
  it('offers "not in this file" and every column by position', () => {
    expect(columnOptions(['id', 'bic', ''])).toEqual([
      { value: UNMAPPED, label: '— not in this file —' },
      { value: '0', label: '1. id' },
      { value: '1', label: '2. bic' },
      { value: '2', label: '3. (unnamed column)' },
    ]);
  });

  it('round-trips a column index through the select value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.nat(), (count, raw) => {
        const i = raw % count;
        expect(fromSelectValue(toSelectValue(i), count)).toBe(i);
      }),
    );
    expect(fromSelectValue(toSelectValue(null), 3)).toBeNull();
  });

  it('ignores a select value outside the file', () => {
    expect(fromSelectValue('3', 3)).toBeNull();
    expect(fromSelectValue('-1', 3)).toBeNull();
    expect(fromSelectValue('1.5', 3)).toBeNull();
    expect(fromSelectValue(null, 3)).toBeNull();
  });

  it('needs a BIC, a routing number or a complete route', () => {
    expect(mappingProblem(EMPTY)).toMatch(/BIC/);
    expect(mappingProblem({ ...EMPTY, type: 0 })).not.toBeNull();
    expect(mappingProblem({ ...EMPTY, fromBic: 0, toBic: 1 })).not.toBeNull();
    expect(mappingProblem({ ...EMPTY, bic: 1 })).toBeNull();
    expect(mappingProblem({ ...EMPTY, routing: 0 })).toBeNull();
    expect(mappingProblem({ ...EMPTY, fromBic: 0, toBic: 1, currency: 2 })).toBeNull();
  });

  it('refuses one column used for two fields', () => {
    expect(mappingProblem({ ...EMPTY, bic: 1, routing: 1 })).toMatch(/two fields/);
  });
});

describe('progress figures', () => {
  it('formats the ETA', () => {
    expect(formatEta(null)).toBe('—');
    expect(formatEta(-1)).toBe('—');
    expect(formatEta(Number.POSITIVE_INFINITY)).toBe('—');
    expect(formatEta(4.4)).toBe('4 s');
    expect(formatEta(125)).toBe('2 min 5 s');
    expect(formatEta(3 * 3600 + 120)).toBe('3 h 2 min');
  });

  it('formats the rate', () => {
    expect(formatRate(0)).toBe('—');
    expect(formatRate(Number.NaN)).toBe('—');
    expect(formatRate(12.345)).toBe('12.3 rows/s');
    expect(formatRate(577074.4)).toBe('577,074 rows/s');
  });
});

describe('reasonBars', () => {
  it('sorts by count, then by name, and gives each its share', () => {
    const bars = reasonBars({ TEST_NUMBER_NOT_FOUND: 1, BIC_MALFORMED: 3, A_TIE: 1, ZERO: 0 });
    expect(bars.map((b) => b.reason)).toEqual(['BIC_MALFORMED', 'A_TIE', 'TEST_NUMBER_NOT_FOUND']);
    expect(bars.map((b) => b.percent)).toEqual([60, 20, 20]);
  });

  it('has shares summing to 100 whenever there is a reason', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 1_000_000 })), (reasons) => {
        const bars = reasonBars(reasons);
        const sum = bars.reduce((s, b) => s + b.percent, 0);
        if (bars.length === 0) expect(sum).toBe(0);
        else expect(sum).toBeCloseTo(100, 6);
      }),
    );
  });
});
