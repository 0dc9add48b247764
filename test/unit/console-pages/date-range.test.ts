import { describe, expect, it } from 'vitest';
import { reversedRangeError } from '../../../src-renderer/app/date-range';

describe('reversedRangeError', () => {
  it('names a To before From, and nothing else', () => {
    expect(reversedRangeError('2026-11-24', '2026-11-23')).toMatch(/Before From/);
    expect(reversedRangeError('2026-11-24', '2026-11-24')).toBeUndefined();
    expect(reversedRangeError('2026-11-24', '2026-12-01')).toBeUndefined();
    expect(reversedRangeError('', '2026-11-01')).toBeUndefined();
    expect(reversedRangeError('2026-11-01', '')).toBeUndefined();
    expect(reversedRangeError('2026-11-01', '2026-1')).toBeUndefined();
  });
});
