// The dashboard's period starts and rate wording (pure renderer helpers).
import { describe, expect, it } from 'vitest';
import { formatRate, periodStart } from '../../../src-renderer/features/dashboard/period';

describe('periodStart', () => {
  const now = Date.parse('2026-11-21T00:30:00.000Z');
  it('starts at the UTC day, as the service reads dates in list filters', () => {
    expect(periodStart('today', now)).toBe('2026-11-21');
    expect(periodStart('7d', now)).toBe('2026-11-15');
    expect(periodStart('30d', now)).toBe('2026-10-23');
  });
});

describe('formatRate', () => {
  it('shows no rate as a dash, never 0 %', () => {
    expect(formatRate(null)).toBe('—');
    expect(formatRate(0)).toBe('0 %');
    expect(formatRate(2 / 3)).toBe('66.7 %');
    expect(formatRate(1)).toBe('100 %');
  });
});
