// The routing check's one verdict: an answer that could not be checked (INCONCLUSIVE: no directory to look in, never
// charged) reads as inconclusive, not as a red "Not valid" (found when the correspondents answer became INCONCLUSIVE).
import { describe, expect, it } from 'vitest';
import { verdict } from '../../src-renderer/features/routing/check-tab';

describe('verdict', () => {
  it('valid, not found, inconclusive, not valid', () => {
    expect(verdict({ valid: true, error: null } as never).label).toBe('Valid');
    expect(verdict({ valid: false, error: { code: 'TEST_NUMBER_NOT_FOUND', message: '' } } as never).label).toBe('Not found');
    expect(verdict({ valid: false, error: { code: 'INCONCLUSIVE', message: '' } } as never)).toEqual({ label: 'Inconclusive', color: 'gray' });
    expect(verdict({ valid: false, error: null } as never).label).toBe('Not valid');
  });
});
