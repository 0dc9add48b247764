// Providers › Cache of definitive answers (report #4): a decimal, a negative number or an empty field is refused
// in words, never turned into 15, 5 or 0.
import { describe, expect, it } from 'vitest';
import { CACHE_TTL_MAX_SECONDS, readCacheTtl } from '../../../src-renderer/features/providers/cache-ttl';

describe('readCacheTtl', () => {
  it('accepts whole seconds from 0 to 30 days', () => {
    expect(readCacheTtl('0')).toEqual({ ok: true, seconds: 0 });
    expect(readCacheTtl(86_400)).toEqual({ ok: true, seconds: 86_400 });
    expect(readCacheTtl('3,600')).toEqual({ ok: true, seconds: 3600 });
    expect(readCacheTtl(CACHE_TTL_MAX_SECONDS)).toEqual({ ok: true, seconds: CACHE_TTL_MAX_SECONDS });
  });
  it('refuses a decimal, a negative number, an empty field and too much, saying why', () => {
    for (const bad of ['1.5', 1.5, '-5', -5, String(CACHE_TTL_MAX_SECONDS + 1), 'abc']) {
      const r = readCacheTtl(bad);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatch(/whole number|Enter a number/);
    }
    const empty = readCacheTtl('');
    expect(empty).toEqual({ ok: false, error: 'Enter a number of seconds (0 turns the cache off).' });
  });
});
